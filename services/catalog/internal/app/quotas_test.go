package app

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/catalog/internal/endpoints"
	"github.com/agentic-app/agentic/services/catalog/internal/transport"
	"github.com/agentic-app/agentic/services/platform/auth/authtest"
	"github.com/agentic-app/agentic/services/platform/openapi"
	"github.com/agentic-app/agentic/services/platform/ratelimit"
)

// ownedBy is a Service whose only agent is agent, owned by owner (the gate
// asks nothing else).
type ownedBy struct {
	agents.Service
	owner, agent string
}

func (o ownedBy) GetAgent(_ context.Context, owner, id string) (agents.Agent, error) {
	if owner == o.owner && id == o.agent {
		return agents.Agent{ID: id, OwnerUID: owner}, nil
	}
	return agents.Agent{}, agents.ErrNotFound
}

// gatedMux is the catalog's real route table with stub endpoints (every
// call fails with 500) and the invitation gate in front of the invite route.
func gatedMux(t *testing.T, rdb redis.Scripter, rule ratelimit.Rule, svc agents.Service) *http.ServeMux {
	t.Helper()
	var set endpoints.Set
	authtest.StubEndpoints(&set)
	mux := http.NewServeMux()
	l := ratelimit.New(rdb, ratelimit.Options{Service: ServiceName})
	transport.RegisterHTTP(mux, set, authtest.TokenIsUID, nil, transport.WithInviteGate(inviteGate(l, rule, svc)))
	return mux
}

func inviteAs(h http.Handler, uid, agent string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/api/agents/"+agent+"/subscribers", strings.NewReader(`{"email":"x@example.org"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+uid)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// Redis unreachable: inviting to one's own agent answers 503 unavailable
// (the quota fails closed) without reaching the handler; another user's
// agent is not counted, so it reaches the handler (which answers 404 in
// the service; 500 from the stub here).
func TestInvitationQuotaFailsClosed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	rdb := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: 100 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	rule, err := invitationRule("2/24h")
	if err != nil {
		t.Fatal(err)
	}
	const agent = "0190a0a0-0000-7000-8000-000000000001"
	mux := gatedMux(t, rdb, rule, ownedBy{owner: "alice", agent: agent})
	if rec := inviteAs(mux, "alice", agent); rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"unavailable"`) ||
		rec.Header().Get("Retry-After") == "" {
		t.Errorf("own agent with Redis down: %d %s, want 503 unavailable", rec.Code, rec.Body)
	}
	if rec := inviteAs(mux, "bob", agent); rec.Code != http.StatusInternalServerError {
		t.Errorf("another user's agent: %d %s, want the handler's answer", rec.Code, rec.Body)
	}
	// "0/24h" turns the quota off: Redis is not asked.
	off, err := invitationRule("0/24h")
	if err != nil {
		t.Fatal(err)
	}
	if rec := inviteAs(gatedMux(t, rdb, off, ownedBy{owner: "alice", agent: agent}), "alice", agent); rec.Code != http.StatusInternalServerError {
		t.Errorf("quota off: %d %s, want the handler's answer", rec.Code, rec.Body)
	}
}

// The rates the catalog applies are the ones the OpenAPI document lists
// (x-quotas), on the routes they are applied to: the invitations per agent
// and the reviews and reports per user (reviewquotas.go).
func TestInvitationRateIsDocumented(t *testing.T) {
	rates := map[string]string{
		http.MethodPost + " " + transport.PathSubscribers: "RATE_LIMIT_INVITATIONS",
		// Resending an invitation, per subscriber (invitations.go).
		http.MethodPost + " " + transport.PathResendInvitation: "RATE_LIMIT_INVITATION_RESENDS",
	}
	reviewQuotas, err := reviewRules("", "")
	if err != nil {
		t.Fatal(err)
	}
	for route, env := range reviewQuotas.Envs() {
		rates[route] = env
	}
	for route, env := range marketplaceRates() { // per client address (marketplace.go)
		rates[route] = env
	}
	for _, p := range openapi.CheckRates(ServiceName, rates) {
		t.Error(p)
	}
}
