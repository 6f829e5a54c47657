// Package database connects to PostgreSQL with pgxpool, creates the service's
// database when asked to, applies embedded goose migrations under a
// PostgreSQL advisory lock and provides a readiness check.
package database

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/trace"
)

// Connect opens a pool for url and waits until the server answers a ping,
// retrying with backoff (up to 5s between attempts) until ctx is done.
// Its queries are traced (see Tracer) with the global tracer provider.
func Connect(ctx context.Context, url string, logger *slog.Logger) (*pgxpool.Pool, error) {
	return connect(ctx, url, logger, nil)
}

func connect(ctx context.Context, url string, logger *slog.Logger, tp trace.TracerProvider) (*pgxpool.Pool, error) {
	if logger == nil {
		logger = slog.Default()
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database: parse DATABASE_URL: %w", err)
	}
	cfg.ConnConfig.Tracer = Tracer(tp)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("database: create pool: %w", err)
	}
	delay := 250 * time.Millisecond
	for attempt := 1; ; attempt++ {
		pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err = pool.Ping(pingCtx)
		cancel()
		if err == nil {
			return pool, nil
		}
		logger.WarnContext(ctx, "database not reachable yet", "attempt", attempt, "database", cfg.ConnConfig.Database, "error", err)
		select {
		case <-ctx.Done():
			pool.Close()
			return nil, fmt.Errorf("database: connect: %w (last error: %v)", ctx.Err(), err)
		case <-time.After(delay):
		}
		delay = min(delay*2, 5*time.Second)
	}
}

// EnsureDatabase creates the database named in url if it does not exist. It
// connects to the "postgres" database of the same server with the same
// credentials. Concurrent callers are fine (an "already exists" race is ignored).
func EnsureDatabase(ctx context.Context, url string) error {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return fmt.Errorf("database: parse DATABASE_URL: %w", err)
	}
	name := cfg.Database
	if name == "" {
		return errors.New("database: DATABASE_URL names no database")
	}
	admin := cfg.Copy()
	admin.Database = "postgres"
	dropPoolParams(admin)
	conn, err := pgx.ConnectConfig(ctx, admin)
	if err != nil {
		return fmt.Errorf("database: connect to postgres database: %w", err)
	}
	defer conn.Close(context.Background())

	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return fmt.Errorf("database: check %q: %w", name, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "42P04" || pgErr.Code == "23505") {
		return nil // created concurrently by someone else
	}
	if err != nil {
		return fmt.Errorf("database: create %q: %w", name, err)
	}
	return nil
}

// DropDatabase drops the database named in url (terminating its connections).
// Meant for tests.
func DropDatabase(ctx context.Context, url string) error {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return err
	}
	admin := cfg.Copy()
	admin.Database = "postgres"
	dropPoolParams(admin)
	conn, err := pgx.ConnectConfig(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{cfg.Database}.Sanitize()+" WITH (FORCE)")
	return err
}

// Check returns a readiness check that pings the pool.
func Check(pool *pgxpool.Pool) func(context.Context) error {
	return func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		return pool.Ping(ctx)
	}
}

// dropPoolParams removes pgxpool's settings (pool_max_conns, ...) from a
// single connection's config: a DATABASE_URL may carry them for the
// service's pool, but pgx.ParseConfig keeps unknown URL parameters as
// run-time parameters, which the server refuses.
func dropPoolParams(cfg *pgx.ConnConfig) {
	for k := range cfg.RuntimeParams {
		if strings.HasPrefix(k, "pool_") {
			delete(cfg.RuntimeParams, k)
		}
	}
}
