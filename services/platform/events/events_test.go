package events_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
)

func setup(t *testing.T) (*pgxpool.Pool, []string) {
	t.Helper()
	pool, _ := dbtest.NewPool(t, "platform")
	if err := events.Migrate(context.Background(), pool, nil); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return pool, eventstest.StartKafka(t)
}

func payload(t *testing.T, n int) *structpb.Struct {
	s, err := structpb.NewStruct(map[string]any{"n": n, "hello": "world"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func enqueue(t *testing.T, pool *pgxpool.Pool, ob *events.Outbox, ctx context.Context, topic string, n int, commit bool) {
	t.Helper()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ob.Enqueue(ctx, tx, events.Event{
		Topic: topic, Key: fmt.Sprintf("user-%d", n), Type: "agentic.test.thing.happened.v1",
		Subject: fmt.Sprintf("user-%d", n), Payload: payload(t, n),
	}); err != nil {
		t.Fatal(err)
	}
	if commit {
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	} else if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
}

func startRelay(t *testing.T, pool *pgxpool.Pool, brokers []string, reg prometheus.Registerer, batch int) (stop func()) {
	t.Helper()
	r, err := events.NewRelay(events.RelayConfig{Pool: pool, Brokers: brokers, Registerer: reg, BatchSize: batch, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = r.Run(ctx); close(done) }()
	var once atomic.Bool
	stop = func() {
		if once.Swap(true) {
			return
		}
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("relay did not stop after cancel")
		}
		_ = r.Close()
	}
	t.Cleanup(stop)
	return stop
}

func unpublished(t *testing.T, pool *pgxpool.Pool) int {
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE published_at IS NULL`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func waitUnpublished(t *testing.T, pool *pgxpool.Pool, want int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for unpublished(t, pool) != want {
		if time.Now().After(deadline) {
			t.Fatalf("unpublished rows = %d, want %d", unpublished(t, pool), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestOutboxPublishesCommittedEventWithCloudEventsHeaders(t *testing.T) {
	pool, brokers := setup(t)
	ctx := context.Background()
	ob := events.NewOutbox("/agentic/test")
	const topic = "agentic.test.v1"

	// A traced request context: the relay must forward its trace id.
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	tctx := trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))

	enqueue(t, pool, ob, tctx, topic, 1, true)  // committed
	enqueue(t, pool, ob, tctx, topic, 2, false) // rolled back: must never be published

	reg := prometheus.NewRegistry()
	startRelay(t, pool, brokers, reg, 100)
	recs := eventstest.Consume(t, brokers, topic, 1, 20*time.Second, 700*time.Millisecond)
	if len(recs) != 1 {
		t.Fatalf("got %d records, want exactly 1: %+v", len(recs), recs)
	}
	r := recs[0]
	if r.Key != "user-1" {
		t.Fatalf("key = %q", r.Key)
	}
	var body map[string]any
	if err := json.Unmarshal(r.Value, &body); err != nil || body["n"] != float64(1) || body["hello"] != "world" {
		t.Fatalf("value = %s (%v)", r.Value, err)
	}
	var eventID string
	if err := pool.QueryRow(ctx, `SELECT event_id::text FROM outbox`).Scan(&eventID); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"ce_specversion": "1.0",
		"ce_id":          eventID,
		"ce_type":        "agentic.test.thing.happened.v1",
		"ce_source":      "/agentic/test",
		"ce_subject":     "user-1",
		"content-type":   "application/json",
	}
	for k, v := range want {
		if r.Headers[k] != v {
			t.Errorf("header %s = %q, want %q", k, r.Headers[k], v)
		}
	}
	if _, err := time.Parse(time.RFC3339Nano, r.Headers["ce_time"]); err != nil {
		t.Errorf("ce_time %q: %v", r.Headers["ce_time"], err)
	}
	if tp := r.Headers["traceparent"]; len(tp) != 55 || tp[3:35] != tid.String() {
		t.Errorf("traceparent = %q, want trace id %s", tp, tid)
	}
	waitUnpublished(t, pool, 0)
	if got := testutil.ToFloat64(mustCounter(t, reg)); got != 1 {
		t.Errorf("published metric = %v", got)
	}
}

func mustCounter(t *testing.T, reg *prometheus.Registry) prometheus.Collector {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "outbox_events_published_total" {
			c := prometheus.NewCounter(prometheus.CounterOpts{Name: "x"})
			c.Add(mf.GetMetric()[0].GetCounter().GetValue())
			return c
		}
	}
	t.Fatal("outbox_events_published_total not registered")
	return nil
}

func TestRelayRestartDeliversEverything(t *testing.T) {
	pool, brokers := setup(t)
	ctx := context.Background()
	ob := events.NewOutbox("/agentic/test")
	const topic = "agentic.restart.v1"
	const total = 60

	for i := 0; i < total/2; i++ {
		enqueue(t, pool, ob, ctx, topic, i, true)
	}
	// First relay: small batches, stopped while work remains.
	stop := startRelay(t, pool, brokers, nil, 5)
	deadline := time.Now().Add(20 * time.Second)
	for unpublished(t, pool) == total/2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	stop()
	for i := total / 2; i < total; i++ {
		enqueue(t, pool, ob, ctx, topic, i, true)
	}
	if left := unpublished(t, pool); left == 0 {
		t.Fatal("expected unpublished rows after stopping the first relay")
	}
	// Second and third relay running together finish the job.
	startRelay(t, pool, brokers, nil, 7)
	startRelay(t, pool, brokers, nil, 7)
	waitUnpublished(t, pool, 0)

	recs := eventstest.Consume(t, brokers, topic, total, 20*time.Second, 500*time.Millisecond)
	seen := map[string]int{}
	for _, r := range recs {
		seen[r.Key]++
	}
	for i := 0; i < total; i++ {
		if seen[fmt.Sprintf("user-%d", i)] == 0 {
			t.Errorf("event for user-%d lost", i)
		}
	}
	t.Logf("%d events, %d records (at least once)", total, len(recs))
}

// failingWriter fails every write: nothing may be marked published.
type failingWriter struct{ calls atomic.Int32 }

func (w *failingWriter) WriteMessages(context.Context, ...kafka.Message) error {
	w.calls.Add(1)
	return errors.New("broker down")
}
func (w *failingWriter) Close() error { return nil }

func TestRelayKeepsRowsWhenKafkaFails(t *testing.T) {
	pool, _ := dbtest.NewPool(t, "platform")
	ctx := context.Background()
	if err := events.Migrate(ctx, pool, nil); err != nil {
		t.Fatal(err)
	}
	// Migrating twice is a no-op.
	if err := events.Migrate(ctx, pool, nil); err != nil {
		t.Fatal(err)
	}
	enqueue(t, pool, events.NewOutbox("/agentic/test"), ctx, "agentic.fail.v1", 1, true)
	w := &failingWriter{}
	r, err := events.NewRelay(events.RelayConfig{Pool: pool, Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.PublishBatch(ctx); err == nil {
		t.Fatal("expected error")
	}
	if w.calls.Load() != 1 || unpublished(t, pool) != 1 {
		t.Fatalf("calls=%d unpublished=%d", w.calls.Load(), unpublished(t, pool))
	}
}

func TestBrokerCheck(t *testing.T) {
	brokers := eventstest.StartKafka(t)
	if err := events.BrokerCheck(brokers)(context.Background()); err != nil {
		t.Fatalf("reachable broker: %v", err)
	}
	if err := events.BrokerCheck([]string{"127.0.0.1:1"})(context.Background()); err == nil {
		t.Fatal("unreachable broker reported ready")
	}
}
