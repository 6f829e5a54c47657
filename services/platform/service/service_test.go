package service

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
	"github.com/agentic-app/agentic/services/platform/logtest"
)

// One event goes the whole way the builder wires: the outbox (its table
// migrated by Start), the relay worker, Kafka, a consumer added with Consume.
// Cancelling ctx stops the servers, the consumer and the service's own
// workers before Serve returns.
func TestServeRunsTheRelayConsumersAndWorkersUntilCancelled(t *testing.T) {
	brokers := eventstest.StartKafka(t)
	var logs logtest.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	ready := make(chan net.Addr, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := Start(ctx, "servicetest", Config{Outbox: true, Consumes: true, Settings: Settings{
		DatabaseURL: dbtest.NewURL(t, "service"), KafkaBrokers: brokers,
		HTTPAddr: "127.0.0.1:0", GRPCAddr: "127.0.0.1:0", ShutdownTimeout: 5 * time.Second,
		RelayPollInterval: 20 * time.Millisecond, ConsumerMaxWait: 100 * time.Millisecond,
		Ready: func(h, _ net.Addr) { ready <- h },
	}}, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	const topic = "agentic.servicetest.v1"
	handled := make(chan events.Received, 1)
	if err := s.Consume("test-events", events.ConsumerConfig{
		GroupID: "servicetest", Topics: []string{topic},
		Handler: func(_ context.Context, _ pgx.Tx, ev events.Received) error { handled <- ev; return nil },
	}); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	var stopped atomic.Bool
	s.AddWorker("probe", func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		stopped.Store(true)
		return nil
	})

	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, s.Mux, nil, nil) }()
	var addr net.Addr
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("Serve returned before listening: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("not ready")
	}
	// Ready means listening: the operational endpoints answer at once, with
	// the database and Kafka checks Start added.
	body := get(t, "http://"+addr.String()+"/readyz", http.StatusOK)
	for _, want := range []string{`"database":"ok"`, `"kafka":"ok"`} {
		if !strings.Contains(body, want) {
			t.Errorf("/readyz %s: no %s", body, want)
		}
	}

	tx, err := s.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id, err := events.NewOutbox("/servicetest").Enqueue(ctx, tx, events.Event{
		Topic: topic, Key: "k1", Type: "servicetest.happened.v1", Payload: wrapperspb.String("hello"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-handled:
		if ev.ID != id.String() || ev.Key != "k1" {
			t.Fatalf("consumed %+v, want id %s key k1", ev, id)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the event never reached the consumer")
	}
	<-started
	// The consumer's metrics are in the service's registry.
	if body := get(t, "http://"+addr.String()+"/metrics", http.StatusOK); !strings.Contains(body, `events_consumer_lag{group="servicetest"}`) {
		t.Errorf("/metrics has no events_consumer_lag of the group")
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
	if !stopped.Load() {
		t.Error("Serve returned before its worker stopped")
	}
	if !strings.Contains(logs.String(), "event consumer stopped") {
		t.Error("Serve returned before the consumer stopped")
	}
}

// Consume without Config.Consumes would run against tables Start did not
// create: it is refused up front.
func TestConsumeNeedsConsumes(t *testing.T) {
	s, err := Start(context.Background(), "servicetest", Config{Settings: Settings{
		DatabaseURL: dbtest.NewURL(t, "service"), KafkaBrokers: []string{"127.0.0.1:1"},
	}}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Consume("test-events", events.ConsumerConfig{
		GroupID: "servicetest", Topics: []string{"agentic.servicetest.v1"},
		Handler: func(context.Context, pgx.Tx, events.Received) error { return nil },
	})
	if err == nil || !strings.Contains(err.Error(), "Consumes") {
		t.Fatalf("Consume without Consumes: %v", err)
	}
	var exists bool
	if err := s.Pool.QueryRow(context.Background(), `SELECT to_regclass('processed_events') IS NOT NULL`).Scan(&exists); err != nil || exists {
		t.Fatalf("processed_events exists=%v (%v), want no consumer tables", exists, err)
	}
}

func get(t *testing.T, url string, want int) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}
