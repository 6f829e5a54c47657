package events_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

// A message whose handler loses its database connection (the backend is
// terminated: SQLSTATE 57P01, as when PostgreSQL restarts) far more often
// than MaxAttempts is retried until it succeeds and is never parked, while a
// poison message next to it is parked after MaxAttempts and one marked
// Permanent is parked at once.
func TestConsumerRetriesTransientErrorsAndParksOnlyPoison(t *testing.T) {
	pool, brokers := setupConsumer(t)
	const topic, group = "agentic.consumer-transient.v1", "test-transient"
	produce(t, brokers, topic, "ok1", "db-away", "poison", "permanent", "peer-away", "ok2")

	const outages = 8 // > MaxAttempts (3)
	var dbAway, peerAway, poison, permanent atomic.Int32
	reg := prometheus.NewRegistry()
	rc := startConsumer(t, pool, brokers, topic, group, reg, func(ctx context.Context, tx pgx.Tx, ev events.Received) error {
		if err := recordEffect(ctx, tx, ev); err != nil {
			return err
		}
		switch ev.ID {
		case "db-away":
			if dbAway.Add(1) <= outages {
				// The database drops this session mid-transaction.
				_, err := tx.Exec(ctx, `SELECT pg_terminate_backend(pg_backend_pid())`)
				if err == nil {
					t.Error("terminating the backend did not fail")
				}
				return err
			}
		case "peer-away":
			if peerAway.Add(1) <= outages {
				return events.Transient(errors.New("identity: connection refused"))
			}
		case "poison":
			poison.Add(1)
			return errors.New("agent_id missing")
		case "permanent":
			permanent.Add(1)
			return events.Permanent(errors.New("payload does not decode"))
		}
		return nil
	})
	testwait.Until(t, "ok2 applied", func() bool { return count(t, pool, `SELECT count(*) FROM effects WHERE event_id = 'ok2'`) == 1 }, waitOpts...)
	testwait.Until(t, "offsets committed", func() bool { return maxCommitted(committed(t, brokers, group, topic)) == 6 }, waitOpts...)
	rc.stop()

	for _, id := range []string{"ok1", "db-away", "peer-away", "ok2"} {
		if n := count(t, pool, `SELECT count(*) FROM effects WHERE event_id = $1`, id); n != 1 {
			t.Errorf("%s applied %d times, want 1", id, n)
		}
	}
	if dbAway.Load() != outages+1 || peerAway.Load() != outages+1 {
		t.Errorf("transient messages tried %d/%d times, want %d", dbAway.Load(), peerAway.Load(), outages+1)
	}
	if n := count(t, pool, `SELECT count(*) FROM parked_events WHERE event_id IN ('db-away', 'peer-away')`); n != 0 {
		t.Errorf("%d transiently failing messages parked", n)
	}
	var attempts int
	var reason string
	if err := pool.QueryRow(context.Background(),
		`SELECT attempts, reason FROM parked_events WHERE consumer_group = $1 AND event_id = 'poison'`, group).Scan(&attempts, &reason); err != nil {
		t.Fatalf("poison not parked: %v", err)
	}
	if attempts != 3 || reason != "attempts_exhausted" || poison.Load() != 3 {
		t.Errorf("poison: attempts %d reason %q calls %d", attempts, reason, poison.Load())
	}
	if err := pool.QueryRow(context.Background(),
		`SELECT attempts, reason FROM parked_events WHERE consumer_group = $1 AND event_id = 'permanent'`, group).Scan(&attempts, &reason); err != nil {
		t.Fatalf("permanent not parked: %v", err)
	}
	if attempts != 1 || reason != "permanent" || permanent.Load() != 1 {
		t.Errorf("permanent: attempts %d reason %q calls %d", attempts, reason, permanent.Load())
	}
	if got := testutil.ToFloat64(metric(t, reg, "events_parked_total")); got != 2 {
		t.Errorf("events_parked_total = %v, want 2", got)
	}
	if got := testutil.ToFloat64(metric(t, reg, "events_transient_retries_total")); got != 2*outages {
		t.Errorf("events_transient_retries_total = %v, want %d", got, 2*outages)
	}
}

// A parked message is applied exactly once after an operator asks for a
// replay; a second request finds nothing; a replay that fails again leaves
// the message parked; a re-delivery after the replay is deduplicated.
func TestParkedMessageReplayAppliesOnce(t *testing.T) {
	pool, brokers := setupConsumer(t)
	ctx := context.Background()
	const topic, group = "agentic.consumer-replay.v1", "test-replay"
	produce(t, brokers, topic, "r1", "r2")

	var broken atomic.Bool
	broken.Store(true)
	var calls atomic.Int32
	reg := prometheus.NewRegistry()
	startConsumer(t, pool, brokers, topic, group, reg, func(ctx context.Context, tx pgx.Tx, ev events.Received) error {
		if ev.ID == "r1" {
			calls.Add(1)
			if broken.Load() {
				return events.Permanent(errors.New("unknown agent (bug)"))
			}
		}
		return recordEffect(ctx, tx, ev)
	})
	testwait.Until(t, "r2 applied", func() bool { return count(t, pool, `SELECT count(*) FROM effects WHERE event_id = 'r2'`) == 1 }, waitOpts...)
	parked, err := events.ListParked(ctx, pool, events.ParkedFilter{Group: group})
	if err != nil || len(parked) != 1 || parked[0].EventID != "r1" || parked[0].Reason != "permanent" || parked[0].ReplayRequestedAt != nil {
		t.Fatalf("parked = %+v (%v)", parked, err)
	}

	// Replay while the cause is not fixed: fails again, stays parked, the
	// request is cleared.
	if n, err := events.RequestReplay(ctx, pool, events.ParkedFilter{Group: group, EventID: "r1"}); err != nil || n != 1 {
		t.Fatalf("request replay: %d %v", n, err)
	}
	testwait.Until(t, "failed replay settled", func() bool {
		return count(t, pool, `SELECT count(*) FROM parked_events WHERE event_id = 'r1' AND attempts = 2 AND replay_requested_at IS NULL`) == 1
	}, waitOpts...)
	if n := count(t, pool, `SELECT count(*) FROM effects WHERE event_id = 'r1'`); n != 0 {
		t.Fatalf("failed replay left %d effects", n)
	}

	// Fixed: the replay applies it once and unparks it.
	broken.Store(false)
	if n, err := events.RequestReplay(ctx, pool, events.ParkedFilter{Group: group}); err != nil || n != 1 {
		t.Fatalf("request replay: %d %v", n, err)
	}
	testwait.Until(t, "r1 replayed", func() bool { return count(t, pool, `SELECT count(*) FROM effects WHERE event_id = 'r1'`) == 1 }, waitOpts...)
	testwait.Until(t, "r1 unparked", func() bool { return count(t, pool, `SELECT count(*) FROM parked_events`) == 0 }, waitOpts...)
	if n, err := events.RequestReplay(ctx, pool, events.ParkedFilter{Group: group}); err != nil || n != 0 {
		t.Fatalf("second replay request marked %d (%v)", n, err)
	}
	// The same event delivered again (a producer retry) is a duplicate.
	produce(t, brokers, topic, "r1")
	testwait.Until(t, "re-delivery committed", func() bool { return maxCommitted(committed(t, brokers, group, topic)) == 3 }, waitOpts...)
	if n := count(t, pool, `SELECT count(*) FROM effects WHERE event_id = 'r1'`); n != 1 {
		t.Fatalf("r1 applied %d times", n)
	}
	if got := testutil.ToFloat64(metric(t, reg, "events_replayed_total")); got != 1 {
		t.Errorf("events_replayed_total = %v", got)
	}
	if calls.Load() != 3 {
		t.Errorf("r1 handler calls = %d, want 3 (delivery, failed replay, replay)", calls.Load())
	}
}
