package database

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"time"

	"github.com/IBM/pgxpoolprometheus"
	"github.com/exaring/otelpgx"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"
)

// DefaultOpenTimeout bounds Open when OpenConfig.Timeout is zero.
const DefaultOpenTimeout = 2 * time.Minute

// MigrateFunc applies a component's own migrations (e.g. events.Migrate,
// events.MigrateConsumer) to pool.
type MigrateFunc func(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger) error

// OpenConfig configures Open.
type OpenConfig struct {
	// URL is the database URL (DATABASE_URL).
	URL string
	// Create creates the database first when it does not exist (DATABASE_CREATE, local only).
	Create bool
	// Logger receives connection and migration logs (default slog.Default()).
	Logger *slog.Logger
	// Migrations and Dir are the service's goose migrations (Dir defaults to
	// "migrations"); nil Migrations skips them.
	Migrations fs.FS
	Dir        string
	// Extra migrations applied after the service's, in order (e.g. events.Migrate).
	Extra []MigrateFunc
	// Timeout bounds the whole start-up (default DefaultOpenTimeout).
	Timeout time.Duration
	// TracerProvider traces the pool's queries (default: the global one,
	// set up by observability.StartTracing). See Tracer.
	TracerProvider trace.TracerProvider
	// Registerer, when set, gets the pool's gauges and counters
	// (pgxpoolprometheus: pgxpool_acquired_conns, pgxpool_max_conns,
	// pgxpool_empty_acquire — acquires that had to wait for a connection —,
	// pgxpool_empty_acquire_wait_time_ns, ...). A request that waits for a
	// connection shows up there and nowhere else: its query's own span and
	// duration start only once it has one.
	Registerer prometheus.Registerer
}

// Tracer returns the pgx tracer every pool of this package gets (otelpgx):
// each query, batch, COPY, prepare, connect and pool acquire made with a
// context holding a recording span (an HTTP request's, a gRPC call's, a
// consumer's) becomes a client span named after the SQL operation ("SELECT",
// "INSERT", ...) with the statement (never its arguments) as db.query.text.
// Without a recording parent (tracing off, background polling) no span is
// started, so the cost is a context lookup per query. tp nil means the global
// provider.
func Tracer(tp trace.TracerProvider) *otelpgx.Tracer {
	if tp == nil {
		return otelpgx.NewTracer()
	}
	return otelpgx.NewTracer(otelpgx.WithTracerProvider(tp))
}

// Open runs a service's database start-up: create the database when asked to
// (EnsureDatabase), connect with retry (Connect), then apply the service's
// migrations and the Extra ones (Migrate). It returns the migrated pool; the
// caller closes it. On error no pool is left open.
func Open(ctx context.Context, cfg OpenConfig) (*pgxpool.Pool, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Dir == "" {
		cfg.Dir = "migrations"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultOpenTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()

	if cfg.Create {
		if err := EnsureDatabase(ctx, cfg.URL); err != nil {
			return nil, err
		}
	}
	pool, err := connect(ctx, cfg.URL, cfg.Logger, cfg.TracerProvider)
	if err != nil {
		return nil, err
	}
	if cfg.Registerer != nil {
		if err := cfg.Registerer.Register(pgxpoolprometheus.NewCollector(pool, nil)); err != nil {
			pool.Close()
			return nil, fmt.Errorf("register pool metrics: %w", err)
		}
	}
	if cfg.Migrations != nil {
		if err := Migrate(ctx, pool, cfg.Migrations, cfg.Dir, WithLogger(cfg.Logger)); err != nil {
			pool.Close()
			return nil, err
		}
	}
	for _, m := range cfg.Extra {
		if err := m(ctx, pool, cfg.Logger); err != nil {
			pool.Close()
			return nil, err
		}
	}
	return pool, nil
}
