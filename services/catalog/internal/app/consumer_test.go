package app

import (
	"context"
	"testing"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
)

// Issue 28: a signed-in user who neither owns nor subscribes to a listed
// agent (public, published, active; the marketplace on) may use it as a
// consumer, paying for themselves.
func TestCheckAccessConsumerOfAListedAgent(t *testing.T) {
	l := startListing(t, nil)
	cl := catalogClient(t, l.grpc)
	ctx := context.Background()

	listed := l.publishNew(t, "alice", validAgent)["id"].(string)
	if r := l.patch(t, "token-alice", listed, `{"markupPercent":50,"greetingCostCents":3,"greeting":"Hello there!","memoryTokens":2000,"showSources":false}`); r.Status != 200 {
		t.Fatalf("listing fields: %d %s", r.Status, r.Raw)
	}
	private := createAgent(t, l.http, "token-alice", validAgent)["id"].(string)
	inviteActive(t, l.http, listed, "erin", "erin@example.org")

	check := func(what, agent, uid, role, payer string) *catalogv1.CheckAccessResponse {
		t.Helper()
		res, err := cl.CheckAccess(ctx, &catalogv1.CheckAccessRequest{AgentId: agent, Uid: uid})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if role == "" {
			if res.GetAllowed() || res.GetRole() != "" || res.GetAgent() != nil {
				t.Errorf("%s: %v, want not allowed", what, res)
			}
			return res
		}
		if !res.GetAllowed() || res.GetRole() != role || res.GetPayerUid() != payer || res.GetAgent().GetId() != agent {
			t.Errorf("%s: %v, want %s paid by %s", what, res, role, payer)
		}
		return res
	}
	check("owner", listed, "alice", "owner", "alice")
	check("active subscriber", listed, "erin", "subscriber", "alice")
	res := check("stranger of a listed agent", listed, "zed", "consumer", "zed")
	ag := res.GetAgent()
	if !ag.GetListed() || ag.GetMarkupPercent() != 50 || ag.GetGreetingCostCents() != 3 || ag.GetGreeting() != "Hello there!" ||
		ag.GetMemoryTokens() != 2000 || ag.GetShowSources() || ag.GetSlug() == "" || ag.GetOwnerUid() != "alice" {
		t.Errorf("consumer's agent %v", ag)
	}
	check("stranger of a private agent", private, "zed", "", "")
	// GetAgent carries the listing too.
	if g, err := cl.GetAgent(ctx, &catalogv1.GetAgentRequest{AgentId: listed}); err != nil || !g.GetAgent().GetListed() || g.GetAgent().GetMarkupPercent() != 50 {
		t.Errorf("GetAgent: %v %v", g, err)
	}
	if g, err := cl.GetAgent(ctx, &catalogv1.GetAgentRequest{AgentId: private}); err != nil || g.GetAgent().GetListed() {
		t.Errorf("GetAgent of a private agent: %v %v", g, err)
	}

	// Deactivated: still listed (as unavailable) but nobody's to consume;
	// the owner and subscribers keep their access as before. Every change
	// is an access change of everyone, so conversations drops its cache.
	since := func() *catalogv1.AccessChangesSinceResponse {
		res, err := cl.AccessChangesSince(ctx, &catalogv1.AccessChangesSinceRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	before := since().GetNow()
	if r := l.patch(t, "token-alice", listed, `{"status":"inactive"}`); r.Status != 200 {
		t.Fatalf("deactivate: %d %s", r.Status, r.Raw)
	}
	check("stranger of a deactivated listed agent", listed, "zed", "", "")
	check("owner of a deactivated agent", listed, "alice", "owner", "alice")
	if r := l.patch(t, "token-alice", listed, `{"status":"active"}`); r.Status != 200 {
		t.Fatalf("activate: %d %s", r.Status, r.Raw)
	}
	check("stranger again", listed, "zed", "consumer", "zed")
	if r := l.patch(t, "token-alice", listed, `{"markupPercent":60}`); r.Status != 200 {
		t.Fatalf("markup: %d %s", r.Status, r.Raw)
	}
	if r := l.patch(t, "token-alice", listed, `{"isPublic":false}`); r.Status != 200 {
		t.Fatalf("unpublish: %d %s", r.Status, r.Raw)
	}
	check("stranger of an unpublished agent", listed, "zed", "", "")
	check("subscriber of an unpublished agent", listed, "erin", "subscriber", "alice")
	res2, err := cl.AccessChangesSince(ctx, &catalogv1.AccessChangesSinceRequest{Since: before, MarginMs: 0})
	if err != nil {
		t.Fatal(err)
	}
	everyone := false
	for _, c := range changesOf(res2) {
		everyone = everyone || (c == change{listed, ""})
	}
	if !everyone {
		t.Errorf("no access change of everyone after deactivating, repricing and unpublishing: %v", changesOf(res2))
	}
}

// With the marketplace off (MARKETPLACE_ENABLED=false) no agent is listed:
// a public, published, active agent has no consumers.
func TestCheckAccessNoConsumersWhileMarketplaceOff(t *testing.T) {
	l := startListing(t, func(c *Config) { c.MarketplaceEnabled = false })
	cl := catalogClient(t, l.grpc)
	id := createAgent(t, l.http, "token-alice", validAgent)["id"].(string)
	// Published while the marketplace was on.
	l.exec(t, `UPDATE agents SET is_public = true, published_at = now(), slug = 'math-tutor-off' WHERE id = $1`, id)
	res, err := cl.CheckAccess(context.Background(), &catalogv1.CheckAccessRequest{AgentId: id, Uid: "zed"})
	if err != nil || res.GetAllowed() {
		t.Fatalf("stranger while off: %v %v", res, err)
	}
	res, err = cl.CheckAccess(context.Background(), &catalogv1.CheckAccessRequest{AgentId: id, Uid: "alice"})
	if err != nil || res.GetRole() != "owner" || res.GetAgent().GetListed() {
		t.Fatalf("owner while off: %v %v", res, err)
	}
}
