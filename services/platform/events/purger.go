package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/worker"
)

// Retention defaults. Processed-event ids must be kept longer than the
// broker keeps messages: a message re-delivered (or re-read by a group reset
// to the earliest offset) after its id was purged would be applied twice.
const (
	DefaultOutboxRetention    = 7 * 24 * time.Hour
	DefaultProcessedRetention = 30 * 24 * time.Hour
	DefaultPurgeInterval      = time.Hour
)

// PurgerConfig configures a Purger.
type PurgerConfig struct {
	Pool *pgxpool.Pool
	// OutboxRetention: published outbox rows older than this (by published_at)
	// are deleted (default 7 days; negative: never). Unpublished and failed
	// rows are never purged.
	OutboxRetention time.Duration
	// ProcessedRetention: processed_events rows older than this (by
	// processed_at) are deleted (default 30 days; negative: never). Keep it
	// longer than the topics' retention.ms.
	ProcessedRetention time.Duration
	// Interval between purges (default 1h); the first runs at start.
	Interval time.Duration
	// BatchSize: rows deleted per statement (default 1000), each in its own
	// short transaction, so a big purge never holds many locks for long.
	BatchSize int
	// BatchPause: wait between two batches (default 20ms).
	BatchPause time.Duration
	Logger     *slog.Logger
	Registerer prometheus.Registerer
}

// PurgerConfigFromEnv reads OUTBOX_RETENTION (default 168h),
// PROCESSED_EVENTS_RETENTION (default 720h) and EVENTS_PURGE_INTERVAL
// (default 1h); a retention of 0 disables that purge. It refuses a processed
// retention shorter than the outbox retention or than 24h: ids must outlive
// every copy of their message.
func PurgerConfigFromEnv() (PurgerConfig, error) {
	var l config.Loader
	c := PurgerConfig{
		OutboxRetention:    l.Duration("OUTBOX_RETENTION", DefaultOutboxRetention),
		ProcessedRetention: l.Duration("PROCESSED_EVENTS_RETENTION", DefaultProcessedRetention),
		Interval:           l.Duration("EVENTS_PURGE_INTERVAL", DefaultPurgeInterval),
	}
	if err := l.Err(); err != nil {
		return c, err
	}
	if c.OutboxRetention == 0 {
		c.OutboxRetention = -1
	}
	if c.ProcessedRetention == 0 {
		c.ProcessedRetention = -1
	}
	if c.ProcessedRetention > 0 && (c.ProcessedRetention < 24*time.Hour || c.ProcessedRetention < c.OutboxRetention) {
		return c, fmt.Errorf("PROCESSED_EVENTS_RETENTION=%s must be at least 24h and at least OUTBOX_RETENTION (%s), and longer than the broker's retention",
			c.ProcessedRetention, c.OutboxRetention)
	}
	return c, nil
}

// Purger deletes published outbox rows and processed-event ids past their
// retention, on a schedule. Tables the service does not have (no outbox, no
// consumer) are skipped. Replicas take turns: a batch runs only under a
// transaction-scoped advisory lock.
type Purger struct {
	cfg    PurgerConfig
	logger *slog.Logger
	purged *prometheus.CounterVec
}

// purgeLockID is the advisory lock held while a purge batch runs.
const purgeLockID int64 = 0x7075726765 // "purge"

// NewPurger builds a Purger.
func NewPurger(cfg PurgerConfig) (*Purger, error) {
	if cfg.Pool == nil {
		return nil, errors.New("purger: Pool is required")
	}
	if cfg.OutboxRetention == 0 {
		cfg.OutboxRetention = DefaultOutboxRetention
	}
	if cfg.ProcessedRetention == 0 {
		cfg.ProcessedRetention = DefaultProcessedRetention
	}
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultPurgeInterval
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 1000
	}
	if cfg.BatchPause <= 0 {
		cfg.BatchPause = 20 * time.Millisecond
	}
	p := &Purger{cfg: cfg, logger: cfg.Logger}
	if p.logger == nil {
		p.logger = slog.Default()
	}
	p.purged = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "events_purged_total", Help: "Rows deleted by the events purger past their retention, by table (outbox, processed_events).",
	}, []string{"table"})
	if cfg.Registerer != nil {
		p.purged = observability.Register(cfg.Registerer, p.purged)
	}
	return p, nil
}

// NewPurgerFromEnv is NewPurger with PurgerConfigFromEnv's retention.
func NewPurgerFromEnv(pool *pgxpool.Pool, logger *slog.Logger, reg prometheus.Registerer) (*Purger, error) {
	cfg, err := PurgerConfigFromEnv()
	if err != nil {
		return nil, err
	}
	cfg.Pool, cfg.Logger, cfg.Registerer = pool, logger, reg
	return NewPurger(cfg)
}

// Run purges at start and then every Interval until ctx ends; it returns nil.
// Errors are logged and retried at the next interval.
func (p *Purger) Run(ctx context.Context) error {
	p.logger.InfoContext(ctx, "events purger started",
		"outbox_retention", p.cfg.OutboxRetention, "processed_events_retention", p.cfg.ProcessedRetention, "interval", p.cfg.Interval)
	worker.Every(ctx, p.cfg.Interval, func(ctx context.Context) {
		if _, _, err := p.PurgeOnce(ctx); err != nil && ctx.Err() == nil {
			p.logger.WarnContext(ctx, "events purge failed; retrying at the next interval", "error", err)
		}
	})
	return nil
}

// PurgeOnce deletes everything past retention, in batches, and returns how
// many outbox and processed_events rows it deleted.
func (p *Purger) PurgeOnce(ctx context.Context) (outbox, processed int64, err error) {
	if p.cfg.OutboxRetention > 0 {
		outbox, err = p.purge(ctx, "outbox", `
			DELETE FROM outbox WHERE id IN (
				SELECT id FROM outbox
				WHERE published_at IS NOT NULL AND published_at < now() - $1 * interval '1 millisecond'
				ORDER BY published_at LIMIT $2)`, p.cfg.OutboxRetention)
		if err != nil {
			return outbox, 0, err
		}
	}
	if p.cfg.ProcessedRetention > 0 {
		processed, err = p.purge(ctx, "processed_events", `
			DELETE FROM processed_events WHERE (consumer_group, event_id) IN (
				SELECT consumer_group, event_id FROM processed_events
				WHERE processed_at < now() - $1 * interval '1 millisecond'
				ORDER BY processed_at LIMIT $2)`, p.cfg.ProcessedRetention)
	}
	if outbox+processed > 0 {
		p.logger.InfoContext(ctx, "events purged", "outbox_rows", outbox, "processed_events_rows", processed)
	}
	return outbox, processed, err
}

func (p *Purger) purge(ctx context.Context, table, query string, retention time.Duration) (int64, error) {
	var exists bool
	if err := p.cfg.Pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&exists); err != nil {
		return 0, fmt.Errorf("purge %s: %w", table, err)
	}
	if !exists {
		return 0, nil
	}
	var total int64
	for {
		var n int64
		err := pgx.BeginFunc(ctx, p.cfg.Pool, func(tx pgx.Tx) error {
			var ours bool
			if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, purgeLockID).Scan(&ours); err != nil || !ours {
				n = -1 // another replica is purging
				return err
			}
			tag, err := tx.Exec(ctx, query, retention.Milliseconds(), p.cfg.BatchSize)
			n = tag.RowsAffected()
			return err
		})
		if err != nil {
			return total, fmt.Errorf("purge %s: %w", table, err)
		}
		if n < 0 {
			return total, nil
		}
		total += n
		p.purged.WithLabelValues(table).Add(float64(n))
		if n < int64(p.cfg.BatchSize) {
			return total, nil
		}
		if !sleep(ctx, p.cfg.BatchPause) {
			return total, ctx.Err()
		}
	}
}
