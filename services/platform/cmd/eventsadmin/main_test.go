package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events"
)

func TestParkedListReplayAndOutboxRetry(t *testing.T) {
	pool, url := dbtest.NewPool(t, "eventsadmin")
	ctx := context.Background()
	if err := events.Migrate(ctx, pool, nil); err != nil {
		t.Fatal(err)
	}
	if err := events.MigrateConsumer(ctx, pool, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `
		INSERT INTO parked_events (consumer_group, event_id, topic, partition, "offset", type, error, attempts, reason)
		VALUES ('g1', 'ev-1', 'agentic.t.v1', 2, 41, 'agentic.t.x.v1', 'agent_id missing', 5, 'attempts_exhausted'),
		       ('g2', 'ev-2', 'agentic.t.v1', 0, 7, 'agentic.t.x.v1', 'bad', 1, 'permanent')`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `
		INSERT INTO outbox (event_id, topic, key, type, source, payload, failed_at, attempts, last_error)
		VALUES (gen_random_uuid(), 'bad topic', 'k', 'x', '/s', '{}', now(), 10, 'invalid topic name')`); err != nil {
		t.Fatal(err)
	}
	do := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := run(ctx, append([]string{"-database-url", url}, args...), &out); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out.String()
	}
	if out := do("parked", "list", "-group", "g1"); !strings.Contains(out, "ev-1") || strings.Contains(out, "ev-2") ||
		!strings.Contains(out, "agentic.t.v1/2/41") || !strings.Contains(out, "agent_id missing") || !strings.Contains(out, "1 parked") {
		t.Fatalf("list:\n%s", out)
	}
	if err := run(ctx, []string{"-database-url", url, "parked", "replay"}, &bytes.Buffer{}); err == nil {
		t.Fatal("replay without a selection was accepted")
	}
	if out := do("parked", "replay", "-id", "ev-2"); !strings.HasPrefix(out, "1 parked event(s) marked") {
		t.Fatalf("replay: %s", out)
	}
	parked, err := events.ListParked(ctx, pool, events.ParkedFilter{})
	if err != nil || len(parked) != 2 {
		t.Fatal(parked, err)
	}
	for _, p := range parked {
		if (p.EventID == "ev-2") != (p.ReplayRequestedAt != nil) {
			t.Errorf("%s replay requested = %v", p.EventID, p.ReplayRequestedAt)
		}
	}
	if out := do("parked", "drop", "-group", "g1", "-id", "ev-1"); !strings.HasPrefix(out, "1 parked event(s) dropped") {
		t.Fatalf("drop: %s", out)
	}
	if out := do("outbox", "failed"); !strings.Contains(out, "invalid topic name") || !strings.Contains(out, "1 failed") {
		t.Fatalf("outbox failed:\n%s", out)
	}
	if out := do("outbox", "retry", "-all"); !strings.HasPrefix(out, "1 outbox row(s) re-queued") {
		t.Fatalf("outbox retry: %s", out)
	}
}
