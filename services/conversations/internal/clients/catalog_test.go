package clients

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	"github.com/agentic-app/agentic/services/conversations/internal/fakes"
	"github.com/agentic-app/agentic/services/platform/server"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

// testClock is a settable clock for both of the client's clocks.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// watchedCatalog is a client of a fake catalog with agents a1 (subscriber
// "sub" and "other" active) and a2, on a fake clock (the catalog's too),
// with the default TTL. The setup's changes are older than the poll margin.
func watchedCatalog(t *testing.T) (*Catalog, *fakes.Catalog, *testClock, *syncBuffer) {
	t.Helper()
	clk := &testClock{t: time.Unix(1_800_000_000, 0)}
	cat := fakes.NewCatalog()
	cat.SetClock(clk.now)
	cat.AddAgent(&catalogv1.Agent{Id: "a1", OwnerUid: "owner", Name: "Tutor"})
	cat.AddAgent(&catalogv1.Agent{Id: "a2", OwnerUid: "owner", Name: "Chef"})
	cat.SetSubscriber("a1", "sub", "active")
	cat.SetSubscriber("a1", "other", "active")
	conn, err := server.DialGRPC(fakes.Start(t, cat), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	clk.add(2 * DefaultAccessPollMargin)
	logs := &syncBuffer{}
	c := NewCatalog(conn, CatalogConfig{Now: clk.now, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	c.mono = clk.now
	return c, cat, clk, logs
}

func mustAccess(t *testing.T, c *Catalog, agent, uid string, allowed bool) {
	t.Helper()
	a, err := c.CheckAccess(context.Background(), agent, uid)
	if err != nil || a.Allowed != allowed {
		t.Fatalf("CheckAccess(%s, %s) = %+v, %v; want allowed %v", agent, uid, a, err, allowed)
	}
}

// A removal the catalog reports drops the entry: the next CheckAccess asks
// the catalog again (and is refused). An agent-wide change (uid empty) drops
// every entry of that agent and no other.
func TestAccessChangeEvictsCachedAccess(t *testing.T) {
	c, cat, clk, _ := watchedCatalog(t)
	ctx := context.Background()
	var since time.Time
	if err := c.poll(ctx, &since); err != nil {
		t.Fatal(err)
	}
	mustAccess(t, c, "a1", "sub", true)
	mustAccess(t, c, "a1", "other", true)
	mustAccess(t, c, "a2", "owner", true)
	calls := cat.Calls()
	// In step: trusted beyond a second (polls every 250 ms for 5 s).
	for range 20 {
		clk.add(DefaultAccessPollInterval)
		if err := c.poll(ctx, &since); err != nil {
			t.Fatal(err)
		}
		mustAccess(t, c, "a1", "sub", true)
	}
	if cat.Calls() != calls {
		t.Fatalf("cached entry re-read while the watcher is in step (%d calls, want %d)", cat.Calls(), calls)
	}

	cat.SetSubscriber("a1", "sub", "inactive") // the removal
	if err := c.poll(ctx, &since); err != nil {
		t.Fatal(err)
	}
	mustAccess(t, c, "a1", "sub", false)
	if cat.Calls() != calls+1 {
		t.Fatalf("removed subscriber answered from the cache (%d calls, want %d)", cat.Calls(), calls+1)
	}
	mustAccess(t, c, "a1", "other", true) // another user's entry stays
	if cat.Calls() != calls+1 {
		t.Fatalf("a change of one user dropped another's entry (%d calls)", cat.Calls())
	}

	cat.RecordChange("a1", "") // the agent deactivated or edited
	if err := c.poll(ctx, &since); err != nil {
		t.Fatal(err)
	}
	mustAccess(t, c, "a2", "owner", true)
	if cat.Calls() != calls+1 {
		t.Fatalf("a change of a1 dropped a2's entry (%d calls)", cat.Calls())
	}
	mustAccess(t, c, "a1", "other", true)
	if cat.Calls() != calls+2 {
		t.Fatalf("an agent-wide change left its user's entry (%d calls, want %d)", cat.Calls(), calls+2)
	}
}

// When the polls fail, entries are trusted for one second after they were
// read, however long the TTL; the failure and the recovery are logged once.
func TestAccessCacheFallsBackToOneSecondWhenPollsFail(t *testing.T) {
	c, cat, clk, logs := watchedCatalog(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var since time.Time
	if err := c.poll(ctx, &since); err != nil {
		t.Fatal(err)
	}
	mustAccess(t, c, "a1", "sub", true)
	calls := cat.Calls()

	cat.SetPollsDown(true)
	clk.add(200 * time.Millisecond)
	if err := c.poll(ctx, &since); err == nil {
		t.Fatal("poll succeeded while the catalog refuses it")
	}
	clk.add(700 * time.Millisecond) // 900 ms after the read
	mustAccess(t, c, "a1", "sub", true)
	if cat.Calls() != calls {
		t.Fatalf("entry younger than 1 s re-read (%d calls)", cat.Calls())
	}
	clk.add(150 * time.Millisecond) // 1.05 s after the read, the last good poll 1.05 s ago
	mustAccess(t, c, "a1", "sub", true)
	if cat.Calls() != calls+1 {
		t.Fatalf("entry trusted beyond 1 s with polls failing (%d calls, want %d)", cat.Calls(), calls+1)
	}

	// Run logs the failure once, however many polls fail, and the recovery once.
	go func() { _ = c.Run(ctx) }()
	testwait.Until(t, "polls to fail", func() bool { return cat.Polls() >= 4 }, waitOpts...)
	cat.SetPollsDown(false)
	testwait.Until(t, "the recovery", func() bool { return strings.Contains(logs.String(), "recovered") }, waitOpts...)
	cancel()
	if n := strings.Count(logs.String(), "poll failed"); n != 1 {
		t.Fatalf("failure logged %d times:\n%s", n, logs.String())
	}
	if n := strings.Count(logs.String(), "recovered"); n != 1 {
		t.Fatalf("recovery logged %d times:\n%s", n, logs.String())
	}
}

// A look-up that read the catalog before a change was applied does not put
// its (possibly stale) answer into the cache.
func TestAccessLookUpStartedBeforeAChangeIsNotCached(t *testing.T) {
	c, cat, _, _ := watchedCatalog(t)
	ctx := context.Background()
	var since time.Time
	if err := c.poll(ctx, &since); err != nil {
		t.Fatal(err)
	}
	entered, release := cat.HoldAnswers()
	defer release()
	done := make(chan error, 1)
	go func() {
		a, err := c.CheckAccess(ctx, "a1", "sub")
		if err == nil && !a.Allowed {
			t.Error("the held look-up read the catalog before the removal: it should answer allowed")
		}
		done <- err
	}()
	<-entered // the catalog answered "allowed"; the answer is on its way
	cat.SetSubscriber("a1", "sub", "inactive")
	if err := c.poll(ctx, &since); err != nil {
		t.Fatal(err)
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	calls := cat.Calls()
	mustAccess(t, c, "a1", "sub", false)
	if cat.Calls() != calls+1 {
		t.Fatal("the answer of a look-up that started before the removal was cached")
	}

	// A look-up that starts after the change is cached as usual.
	cat.SetSubscriber("a1", "sub", "active")
	if err := c.poll(ctx, &since); err != nil {
		t.Fatal(err)
	}
	mustAccess(t, c, "a1", "sub", true)
	calls = cat.Calls()
	mustAccess(t, c, "a1", "sub", true)
	if cat.Calls() != calls {
		t.Fatal("a look-up after the change was not cached")
	}
}

var waitOpts = []testwait.Option{testwait.Every(10 * time.Millisecond)}
