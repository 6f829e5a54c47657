package events_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
	"github.com/agentic-app/agentic/services/platform/server"
)

// The broker stops: /readyz (wired as every service wires it: database
// required, broker optional) stays 200 "degraded", writes into the outbox
// succeed and stay pending without burning retry attempts; the broker comes
// back: every row is published.
func TestBrokerOutageKeepsServiceReadyAndOutboxDrains(t *testing.T) {
	pool, _ := dbtest.NewPool(t, "outage")
	ctx := context.Background()
	if err := events.Migrate(ctx, pool, nil); err != nil {
		t.Fatal(err)
	}
	broker := eventstest.StartBroker(t)
	relay, err := events.NewRelay(events.RelayConfig{Pool: pool, Brokers: broker.Addrs(), PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = relay.Run(rctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; _ = relay.Close() })

	srv := httptest.NewServer(server.NewMux(nil,
		server.Check{Name: "database", Fn: database.Check(pool)},
		server.Check{Name: "kafka", Fn: relay.Check, Optional: true},
	))
	defer srv.Close()
	readyz := func() (int, map[string]any) {
		t.Helper()
		resp, err := http.Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}

	const topic = "agentic.outage.v1"
	ob := events.NewOutbox("/agentic/test")
	enqueue(t, pool, ob, ctx, topic, 0, true)
	waitUnpublished(t, pool, 0)
	if code, body := readyz(); code != 200 || body["status"] != "ready" {
		t.Fatalf("readyz with broker up: %d %v", code, body)
	}

	broker.Stop()
	code, body := readyz()
	if code != 200 || body["status"] != "degraded" || body["checks"].(map[string]any)["database"] != "ok" {
		t.Fatalf("readyz with broker down: %d %v", code, body)
	}
	for i := 1; i <= 20; i++ {
		enqueue(t, pool, ob, ctx, topic, i, true) // writes keep succeeding
	}
	time.Sleep(1500 * time.Millisecond) // several relay rounds against a dead broker
	if n := unpublished(t, pool); n != 20 {
		t.Fatalf("unpublished during the outage = %d, want 20", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM outbox WHERE attempts > 0 OR failed_at IS NOT NULL`); n != 0 {
		t.Fatalf("%d rows charged with attempts for a broker outage", n)
	}

	broker.Start()
	waitUnpublished(t, pool, 0)
	recs := eventstest.Consume(t, broker.Addrs(), topic, 20, 20*time.Second, 300*time.Millisecond)
	seen := map[string]bool{}
	for _, r := range recs {
		seen[r.Key] = true
	}
	if len(seen) != 20 {
		t.Fatalf("after recovery the broker has %d of the 20 buffered events", len(seen))
	}
	if code, body := readyz(); code != 200 || body["status"] != "ready" {
		t.Fatalf("readyz after recovery: %d %v", code, body)
	}
}
