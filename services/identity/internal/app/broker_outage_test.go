package app

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
	"github.com/agentic-app/agentic/services/platform/service/servicetest"
)

// Issue 18: with the broker down the identity service stays ready (its
// database is up), onboarding still succeeds, and the user.onboarded event
// waits in the outbox until the broker returns.
func TestBrokerDownServiceStaysReadyAndOutboxDrains(t *testing.T) {
	dbURL := dbtest.NewURL(t, "identity")
	broker := eventstest.StartBroker(t)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{
			Settings: servicetest.Settings(dbURL, broker.Addrs(), func(h, _ net.Addr) { ready <- h }),
			Accounts: testAccounts,
			Wallet:   testWallet{},
		}, nil)
	}()
	var base string
	select {
	case h := <-ready:
		base = "http://" + h.String()
	case err := <-done:
		t.Fatalf("app exited: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("app did not start")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("app did not shut down")
		}
	})
	pool, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	pending := func() int {
		var n int
		if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE published_at IS NULL`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	readyz := func() (int, map[string]any) {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}

	broker.Stop()
	if code, body := readyz(); code != 200 || body["status"] != "degraded" {
		t.Fatalf("readyz with the broker down: %d %v", code, body)
	}
	if resp, err := http.Get(base + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz with the broker down: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if code, body := post(t, base+"/api/user/onboarding", "token-bob", `{"displayName":"bob_b"}`); code != 200 || body["success"] != true {
		t.Fatalf("onboarding with the broker down: %d %v", code, body)
	}
	time.Sleep(time.Second)
	if n := pending(); n < 1 {
		t.Fatalf("pending outbox rows during the outage = %d, want the onboarding event", n)
	}

	broker.Start()
	deadline := time.Now().Add(30 * time.Second)
	for pending() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("outbox not drained after the broker returned: %d pending", pending())
		}
		time.Sleep(50 * time.Millisecond)
	}
	recs := eventstest.Consume(t, broker.Addrs(), "agentic.identity.v1", 1, 20*time.Second, 200*time.Millisecond)
	found := false
	for _, r := range recs {
		found = found || r.Key == "bob"
	}
	if !found {
		t.Fatalf("bob's event not on the topic after recovery: %d records", len(recs))
	}
	if code, body := readyz(); code != 200 || body["status"] != "ready" {
		t.Fatalf("readyz after recovery: %d %v", code, body)
	}
}
