package events_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/segmentio/kafka-go"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

func enqueueEvent(t *testing.T, pool *pgxpool.Pool, topic, key, body string) int64 {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	p, _ := structpb.NewStruct(map[string]any{"body": body})
	if _, err := events.NewOutbox("/agentic/test").Enqueue(ctx, tx, events.Event{
		Topic: topic, Key: key, Type: "agentic.test.thing.happened.v1", Payload: p,
	}); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := tx.QueryRow(ctx, `SELECT max(id) FROM outbox`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return id
}

func runRelay(t *testing.T, cfg events.RelayConfig) {
	t.Helper()
	r, err := events.NewRelay(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = r.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; _ = r.Close() })
}

// One row too large and one with an invalid topic do not stop the rest: the
// other rows are published at once, the bad ones are retried with back-off
// and then marked failed (metric), and the row queued after the too-large
// one with the same key waits for it instead of overtaking it.
func TestRelayIsolatesUnpublishableRowsAndKeepsKeyOrder(t *testing.T) {
	pool, brokers := setup(t)
	ctx := context.Background()
	const topic = "agentic.isolate.v1"
	big := enqueueEvent(t, pool, topic, "k", strings.Repeat("x", 8000))
	afterBig := enqueueEvent(t, pool, topic, "k", "after big")
	badTopic := enqueueEvent(t, pool, "agentic bad topic!", "z", "invalid topic")
	other := enqueueEvent(t, pool, topic, "y", "other key")

	reg := prometheus.NewRegistry()
	runRelay(t, events.RelayConfig{
		Pool: pool, Brokers: brokers, Registerer: reg, PollInterval: 10 * time.Millisecond,
		MaxAttempts: 3, RetryBackoff: 100 * time.Millisecond, MaxRetryBackoff: 200 * time.Millisecond, MaxMessageBytes: 4096,
	})
	published := func(id int64) bool {
		return count(t, pool, `SELECT count(*) FROM outbox WHERE id = $1 AND published_at IS NOT NULL`, id) == 1
	}
	testwait.Until(t, "the other key published", func() bool { return published(other) }, waitOpts...)
	// The first round published "other" while "big" went into back-off:
	// "afterBig" (same key) must still be waiting.
	if published(afterBig) {
		t.Fatal("a later row of the same key overtook the failing one")
	}
	testwait.Until(t, "bad rows given up", func() bool {
		return count(t, pool, `SELECT count(*) FROM outbox WHERE failed_at IS NOT NULL AND attempts = 3`) == 2
	}, waitOpts...)
	testwait.Until(t, "the held-back row published", func() bool { return published(afterBig) }, waitOpts...)
	var order bool
	if err := pool.QueryRow(ctx, `SELECT (SELECT published_at FROM outbox WHERE id = $1) >= (SELECT failed_at FROM outbox WHERE id = $2)`,
		afterBig, big).Scan(&order); err != nil || !order {
		t.Fatalf("held-back row published before the earlier row was given up (%v)", err)
	}
	var lastErr string
	if err := pool.QueryRow(ctx, `SELECT last_error FROM outbox WHERE id = $1`, badTopic).Scan(&lastErr); err != nil || !strings.Contains(lastErr, "invalid topic") {
		t.Fatalf("last_error = %q (%v)", lastErr, err)
	}
	if got := testutil.ToFloat64(metric(t, reg, "outbox_events_failed_total")); got != 2 {
		t.Errorf("outbox_events_failed_total = %v, want 2", got)
	}
	recs := eventstest.Consume(t, brokers, topic, 2, 20*time.Second, 300*time.Millisecond)
	var bodies []string
	for _, r := range recs {
		bodies = append(bodies, string(r.Value))
	}
	if len(recs) != 2 || strings.Contains(strings.Join(bodies, " "), "xxxx") {
		t.Fatalf("published records: %v", bodies)
	}
	// Failed rows can be re-queued by an operator.
	failed, err := events.ListFailedOutbox(ctx, pool, 10)
	if err != nil || len(failed) != 2 {
		t.Fatalf("failed rows: %+v (%v)", failed, err)
	}
	if n, err := events.RetryFailedOutbox(ctx, pool, badTopic); err != nil || n != 1 {
		t.Fatalf("retry: %d %v", n, err)
	}
	if n := count(t, pool, `SELECT count(*) FROM outbox WHERE id = $1 AND failed_at IS NULL AND attempts = 0`, badTopic); n != 1 {
		t.Fatal("retry did not re-queue the row")
	}
}

// flakyWriter refuses every message with key "slow" (a transient, partition-
// level error, so all of the key's messages in a call fail together, as in
// Kafka) for the first failures calls that contain one, and records the order
// in which messages were accepted.
type flakyWriter struct {
	mu       sync.Mutex
	failures int
	written  []string
}

func (w *flakyWriter) WriteMessages(_ context.Context, msgs ...kafka.Message) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	fail := false
	for _, m := range msgs {
		if string(m.Key) == "slow" && w.failures > 0 {
			fail = true
		}
	}
	if fail {
		w.failures--
	}
	errs := make(kafka.WriteErrors, len(msgs))
	for i, m := range msgs {
		if fail && string(m.Key) == "slow" {
			errs[i] = kafka.NotEnoughReplicas
			continue
		}
		var body map[string]any
		_ = jsonUnmarshal(m.Value, &body)
		w.written = append(w.written, body["body"].(string))
	}
	if errs.Count() > 0 {
		return errs
	}
	return nil
}
func (w *flakyWriter) Close() error { return nil }

func (w *flakyWriter) order() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.written...)
}

// A row refused with a transient error while other rows go through is retried
// with back-off beyond MaxAttempts (never given up), other keys flow
// meanwhile, and the key's later row is written only after it.
func TestRelayRetriesRefusedRowWithoutReorderingItsKey(t *testing.T) {
	pool, _ := setup(t)
	const topic = "agentic.flaky.v1"
	enqueueEvent(t, pool, topic, "slow", "s1")
	enqueueEvent(t, pool, topic, "fast", "f1")
	enqueueEvent(t, pool, topic, "slow", "s2")
	enqueueEvent(t, pool, topic, "fast", "f2")
	w := &flakyWriter{failures: 5}
	runRelay(t, events.RelayConfig{
		Pool: pool, Writer: w, PollInterval: 10 * time.Millisecond,
		MaxAttempts: 3, RetryBackoff: 10 * time.Millisecond, MaxRetryBackoff: 40 * time.Millisecond,
	})
	waitUnpublished(t, pool, 0)
	got := strings.Join(w.order(), ",")
	if got != "f1,f2,s1,s2" {
		t.Fatalf("write order = %s, want f1,f2,s1,s2", got)
	}
	if n := count(t, pool, `SELECT count(*) FROM outbox WHERE failed_at IS NOT NULL`); n != 0 {
		t.Fatalf("%d rows given up for a transient error", n)
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
