package app

import (
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/conversations/internal/clients"
)

// With the access cache on (10 s) and the access-change watcher running,
// each replica asks the catalog once and then trusts its answer beyond a
// second; removing the subscriber is refused on every replica within 1 s.
func TestRemovedSubscriberRefusedWithinASecondOnEveryReplica(t *testing.T) {
	e := start(t, options{accessTTL: 10 * time.Second})
	other := e.replica(t)
	bases := []string{e.base, other}
	// The setup's own changes (bob subscribed) are re-reported for the
	// poll margin, each time dropping bob's entry: let them pass.
	time.Sleep(clients.DefaultAccessPollMargin + 250*time.Millisecond)
	chatInfo := func(base string) int {
		t.Helper()
		return raw(t, "GET", base+"/api/agents/"+agentA+"/chat-info", "Bearer "+tok(e.bob), "").Status
	}
	for _, base := range bases {
		if s := chatInfo(base); s != 200 {
			t.Fatalf("subscriber on %s: %d", base, s)
		}
	}
	calls := e.catalog.Calls()
	time.Sleep(1500 * time.Millisecond)
	for _, base := range bases {
		if s := chatInfo(base); s != 200 {
			t.Fatalf("subscriber on %s: %d", base, s)
		}
	}
	if e.catalog.Calls() != calls {
		t.Fatalf("access asked again after 1.5 s (%d → %d calls): the watcher should keep it cached", calls, e.catalog.Calls())
	}

	e.catalog.SetSubscriber(agentA, e.bob, "inactive")
	removed := time.Now()
	for _, base := range bases {
		for {
			sent := time.Since(removed)
			s := chatInfo(base)
			if s == 404 {
				break
			}
			if s != 200 || sent > time.Second {
				t.Fatalf("removed subscriber on %s: %d, %s after the removal", base, s, sent)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
