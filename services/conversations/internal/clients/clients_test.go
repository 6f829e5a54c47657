package clients

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/platform/server"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/conversations/internal/fakes"
)

func TestCatalogCachesOnlyPositiveAnswers(t *testing.T) {
	cat := fakes.NewCatalog()
	cat.AddAgent(&catalogv1.Agent{Id: "a1", OwnerUid: "owner", Name: "Tutor", IconColor: "#111", Instructions: "Be nice."})
	cat.SetSubscriber("a1", "sub", "active")
	conn, err := server.DialGRPC(fakes.Start(t, cat), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var now atomic.Int64
	now.Store(time.Unix(1_800_000_000, 0).UnixNano())
	c := NewCatalog(conn, CatalogConfig{CacheTTL: 10 * time.Second, Now: func() time.Time { return time.Unix(0, now.Load()) }})
	ctx := context.Background()

	a, err := c.CheckAccess(ctx, "a1", "sub")
	want := conversations.Access{Allowed: true, Role: "subscriber", PayerUID: "owner",
		Agent: conversations.Agent{ID: "a1", OwnerUID: "owner", Name: "Tutor", IconColor: "#111", Instructions: "Be nice."}}
	if err != nil || a != want {
		t.Fatalf("access %+v %v", a, err)
	}
	// Cached: the catalog is not asked again, even when it is down.
	cat.SetDown(true)
	if a, err := c.CheckAccess(ctx, "a1", "sub"); err != nil || !a.Allowed || cat.Calls() != 1 {
		t.Fatalf("cached %+v %v (%d calls)", a, err, cat.Calls())
	}
	// After the TTL the catalog decides again (here: it is down → error).
	now.Add(int64(11 * time.Second))
	if _, err := c.CheckAccess(ctx, "a1", "sub"); err == nil {
		t.Fatal("expired entry used")
	}
	cat.SetDown(false)
	// Negative answers are never cached: a subscription activated now works now.
	if a, err := c.CheckAccess(ctx, "a1", "late"); err != nil || a.Allowed {
		t.Fatalf("stranger %+v %v", a, err)
	}
	cat.SetSubscriber("a1", "late", "active")
	if a, err := c.CheckAccess(ctx, "a1", "late"); err != nil || !a.Allowed {
		t.Fatalf("after activation %+v %v", a, err)
	}
	// Disabled cache: every call asks.
	nc := NewCatalog(conn, CatalogConfig{CacheTTL: -1})
	before := cat.Calls()
	for range 2 {
		if _, err := nc.CheckAccess(ctx, "a1", "owner"); err != nil {
			t.Fatal(err)
		}
	}
	if cat.Calls()-before != 2 {
		t.Fatalf("uncached client made %d calls", cat.Calls()-before)
	}
}

func TestKnowledgeMapsUnimplemented(t *testing.T) {
	// A server without KnowledgeService answers UNIMPLEMENTED: reported as
	// ErrKnowledgeNotServed (answers go on without knowledge), unlike an outage.
	conn, err := server.DialGRPC(fakes.Start(t, fakes.NewCatalog()), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	k := NewKnowledge(conn, time.Second)
	if _, err := k.Search(context.Background(), conversations.SearchQuery{AgentID: "a", Query: "q"}); !errors.Is(err, conversations.ErrKnowledgeNotServed) {
		t.Fatalf("search: %v", err)
	}
	kn := fakes.NewKnowledge(fakes.Document{ID: "d", AgentID: "a", Name: "Doc", URL: "u", Labels: []string{"l"}, Paragraphs: []string{"alpha beta gamma"}})
	kn.SetDown(true)
	conn2, _ := server.DialGRPC(fakes.Start(t, kn), nil)
	defer conn2.Close()
	k2 := NewKnowledge(conn2, time.Second)
	if _, err := k2.Search(context.Background(), conversations.SearchQuery{AgentID: "a", Query: "alpha"}); err == nil || errors.Is(err, conversations.ErrKnowledgeNotServed) {
		t.Fatalf("outage: %v", err)
	}
	kn.SetDown(false)
	ps, err := k2.GetPassages(context.Background(), "a", []string{"d"}, 100)
	if err != nil || len(ps) != 1 || ps[0].DocumentName != "Doc" || ps[0].URL != "u" || ps[0].Text != "alpha beta gamma" || ps[0].Labels[0] != "l" {
		t.Fatalf("passages %+v %v", ps, err)
	}
}
