package database

import (
	"context"
	"fmt"
	"hash/crc64"
	"io/fs"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// DefaultVersionTable is the goose version table of a service's own migrations.
const DefaultVersionTable = "goose_db_version"

type migrateConfig struct {
	table  string
	logger *slog.Logger
}

// MigrateOption configures Migrate.
type MigrateOption func(*migrateConfig)

// WithVersionTable sets the goose version table (default goose_db_version).
// Components that ship their own migrations (e.g. the outbox) use their own
// table so their version numbers never clash with the service's.
func WithVersionTable(name string) MigrateOption {
	return func(c *migrateConfig) { c.table = name }
}

// WithLogger sets the logger goose reports to.
func WithLogger(l *slog.Logger) MigrateOption {
	return func(c *migrateConfig) { c.logger = l }
}

// Migrate applies the goose SQL migrations found in dir of fsys (typically an
// embed.FS) that are not applied yet. It holds a PostgreSQL session-level
// advisory lock (one per version table) while doing so, so several replicas
// can start at the same time: one migrates, the others wait and then find
// nothing to do.
func Migrate(ctx context.Context, pool *pgxpool.Pool, fsys fs.FS, dir string, opts ...MigrateOption) error {
	cfg := migrateConfig{table: DefaultVersionTable, logger: slog.Default()}
	for _, o := range opts {
		o(&cfg)
	}
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	// Lock id derived from the version table name: different components do not
	// block each other, replicas of one component do.
	lockID := int64(crc64.Checksum([]byte("agentic-migrate:"+cfg.table), crc64.MakeTable(crc64.ECMA)) >> 1)
	locker, err := lock.NewPostgresSessionLocker(
		lock.WithLockID(lockID),
		lock.WithLockTimeout(1, 300), // retry every second for up to 5 minutes
	)
	if err != nil {
		return fmt.Errorf("migrate: locker: %w", err)
	}
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()

	provider, err := goose.NewProvider(goose.DialectPostgres, db, sub,
		goose.WithTableName(cfg.table),
		goose.WithSessionLocker(locker),
		goose.WithDisableGlobalRegistry(true),
		goose.WithSlog(cfg.logger),
	)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	results, err := provider.Up(ctx)
	if err != nil {
		return fmt.Errorf("migrate (%s): %w", cfg.table, err)
	}
	for _, r := range results {
		cfg.logger.InfoContext(ctx, "migration applied", "table", cfg.table, "version", r.Source.Version, "duration", r.Duration)
	}
	return nil
}
