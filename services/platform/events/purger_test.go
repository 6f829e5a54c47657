package events_test

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events"
)

// Published outbox rows and processed ids past their retention are deleted
// in batches; recent ones, unpublished and failed rows are kept.
func TestPurgerDeletesOnlyExpiredRows(t *testing.T) {
	pool, _ := dbtest.NewPool(t, "purger")
	ctx := context.Background()
	if err := events.Migrate(ctx, pool, nil); err != nil {
		t.Fatal(err)
	}
	if err := events.MigrateConsumer(ctx, pool, nil); err != nil {
		t.Fatal(err)
	}
	exec := func(q string) {
		t.Helper()
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// outbox: 25 published 8 days ago (expired), 3 published 1 day ago, 2
	// unpublished created 9 days ago, 1 failed 9 days ago.
	exec(`INSERT INTO outbox (event_id, topic, key, type, source, payload, created_at, published_at)
		SELECT gen_random_uuid(), 't', 'k' || g, 'x', '/s', '{}', now() - interval '9 days', now() - interval '8 days'
		FROM generate_series(1, 25) g`)
	exec(`INSERT INTO outbox (event_id, topic, key, type, source, payload, created_at, published_at)
		SELECT gen_random_uuid(), 't', 'recent', 'x', '/s', '{}', now() - interval '2 days', now() - interval '1 day'
		FROM generate_series(1, 3)`)
	exec(`INSERT INTO outbox (event_id, topic, key, type, source, payload, created_at)
		SELECT gen_random_uuid(), 't', 'pending', 'x', '/s', '{}', now() - interval '9 days' FROM generate_series(1, 2)`)
	exec(`INSERT INTO outbox (event_id, topic, key, type, source, payload, created_at, failed_at, attempts)
		VALUES (gen_random_uuid(), 't', 'failed', 'x', '/s', '{}', now() - interval '9 days', now() - interval '9 days', 10)`)
	// processed_events: 12 processed 31 days ago, 4 processed 29 days ago.
	exec(`INSERT INTO processed_events (consumer_group, event_id, topic, partition, "offset", processed_at)
		SELECT 'g', 'old-' || g, 't', 0, g, now() - interval '31 days' FROM generate_series(1, 12) g`)
	exec(`INSERT INTO processed_events (consumer_group, event_id, topic, partition, "offset", processed_at)
		SELECT 'g', 'new-' || g, 't', 0, g, now() - interval '29 days' FROM generate_series(1, 4) g`)

	reg := prometheus.NewRegistry()
	p, err := events.NewPurger(events.PurgerConfig{Pool: pool, BatchSize: 10, Registerer: reg}) // default retention: 7 d / 30 d
	if err != nil {
		t.Fatal(err)
	}
	ob, pe, err := p.PurgeOnce(ctx)
	if err != nil || ob != 25 || pe != 12 {
		t.Fatalf("purged outbox %d, processed %d (%v); want 25, 12", ob, pe, err)
	}
	if n := count(t, pool, `SELECT count(*) FROM outbox`); n != 6 {
		t.Errorf("outbox rows left = %d, want 6 (3 recent, 2 pending, 1 failed)", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM outbox WHERE key IN ('pending', 'failed')`); n != 3 {
		t.Errorf("unpublished/failed rows left = %d, want 3", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM processed_events WHERE event_id LIKE 'new-%'`); n != 4 {
		t.Errorf("recent processed ids left = %d, want 4", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM processed_events`); n != 4 {
		t.Errorf("processed ids left = %d, want 4", n)
	}
	if got := testutil.ToFloat64(metric(t, reg, "events_purged_total")); got != 37 {
		t.Errorf("events_purged_total = %v, want 37", got)
	}
	// Nothing more to do.
	if ob, pe, err := p.PurgeOnce(ctx); err != nil || ob != 0 || pe != 0 {
		t.Fatalf("second purge: %d %d %v", ob, pe, err)
	}
}

// A database with only an outbox (a service that consumes nothing) is fine.
func TestPurgerSkipsMissingTables(t *testing.T) {
	pool, _ := dbtest.NewPool(t, "purger")
	ctx := context.Background()
	if err := events.Migrate(ctx, pool, nil); err != nil {
		t.Fatal(err)
	}
	p, err := events.NewPurger(events.PurgerConfig{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.PurgeOnce(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestPurgerConfigFromEnv(t *testing.T) {
	t.Setenv("OUTBOX_RETENTION", "48h")
	t.Setenv("PROCESSED_EVENTS_RETENTION", "240h")
	c, err := events.PurgerConfigFromEnv()
	if err != nil || c.OutboxRetention.Hours() != 48 || c.ProcessedRetention.Hours() != 240 {
		t.Fatalf("%+v %v", c, err)
	}
	t.Setenv("PROCESSED_EVENTS_RETENTION", "1h")
	if _, err := events.PurgerConfigFromEnv(); err == nil {
		t.Fatal("a processed retention of 1h was accepted")
	}
	t.Setenv("PROCESSED_EVENTS_RETENTION", "0")
	if c, err := events.PurgerConfigFromEnv(); err != nil || c.ProcessedRetention >= 0 {
		t.Fatalf("0 must disable: %+v %v", c, err)
	}
}
