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

	"github.com/agentic-app/agentic/services/conversations/internal/endpoints"
	"github.com/agentic-app/agentic/services/conversations/internal/transport"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/auth/authtest"
	"github.com/agentic-app/agentic/services/platform/openapi"
	quota "github.com/agentic-app/agentic/services/platform/ratelimit"
)

// quotaMux is the service's real route table with stub endpoints (every
// call fails): a request the quotas let through is answered by its handler,
// never with 429 or 503 "unavailable".
func quotaMux(t *testing.T) *http.ServeMux {
	t.Helper()
	var set endpoints.Set
	authtest.StubEndpoints(&set)
	mux := http.NewServeMux()
	transport.RegisterHTTP(mux, set, quotaTokenIsUID, nil)
	transport.RegisterAgentAPI(mux, set, quotaTokenIsUID, nil, nil)
	return mux
}

var quotaTokenIsUID = auth.VerifierFunc(func(_ context.Context, raw string) (auth.Claims, error) {
	return auth.Claims{UID: raw}, nil
})

func quotaDo(h http.Handler, method, path, uid string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+uid)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestQuotaRulesNameRegisteredRoutes(t *testing.T) {
	rules, err := quotaRules()
	if err != nil {
		t.Fatal(err)
	}
	mux := quotaMux(t)
	for pattern, rule := range rules {
		method, path, _ := strings.Cut(pattern, " ")
		req := httptest.NewRequest(method, strings.NewReplacer("{agentId}", "a1", "{id}", "c1", "{keyId}", "k1").Replace(path), nil)
		if _, got := mux.Handler(req); got != pattern {
			t.Errorf("rule %q: the service routes %s %s to %q", pattern, method, req.URL.Path, got)
		}
		want := quota.FailOpen
		if method != http.MethodGet {
			want = quota.FailClosed
		}
		if rule.Mode != want {
			t.Errorf("%q: mode %v, want %v", pattern, rule.Mode, want)
		}
	}
	for _, p := range []string{"POST " + transport.PathMessages, "POST " + transport.PathAPIKeys} {
		if _, ok := rules[p]; !ok {
			t.Errorf("money route %q has no quota", p)
		}
	}
}

// With real Redis: A's third API key in the window is refused, B's is not.
func TestAPIKeyQuotaPerUser(t *testing.T) {
	t.Setenv("RATE_LIMIT_MONEY", "2/1m")
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	t.Cleanup(func() { _ = rdb.Close() })
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("redis: %v", err)
	}
	h, err := withQuotas(quotaMux(t), rdb, quotaTokenIsUID, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	stamp := time.Now().Format("150405.000000")
	a, b := "quota-a-"+stamp, "quota-b-"+stamp
	for i := range 2 {
		if rec := quotaDo(h, "POST", "/api/agents/a1/api-keys", a); rec.Code == http.StatusTooManyRequests {
			t.Fatalf("A's key %d refused", i+1)
		}
	}
	rec := quotaDo(h, "POST", "/api/agents/a2/api-keys", a)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("A's third key: %d Retry-After %q, want 429 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	if rec := quotaDo(h, "POST", "/api/agents/a1/api-keys", b); rec.Code == http.StatusTooManyRequests {
		t.Fatal("B limited by A's keys")
	}
}

// Starting conversations is limited per user (RATE_LIMIT_CONVERSATIONS),
// and the 429 says the limit.
func TestConversationQuotaPerUser(t *testing.T) {
	t.Setenv("RATE_LIMIT_CONVERSATIONS", "2/1m")
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	t.Cleanup(func() { _ = rdb.Close() })
	h, err := withQuotas(quotaMux(t), rdb, quotaTokenIsUID, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	stamp := time.Now().Format("150405.000000")
	a, b := "conv-a-"+stamp, "conv-b-"+stamp
	for i := range 2 {
		if rec := quotaDo(h, "POST", "/api/agents/a1/conversations", a); rec.Code == http.StatusTooManyRequests {
			t.Fatalf("A's conversation %d refused", i+1)
		}
	}
	rec := quotaDo(h, "POST", "/api/agents/a2/conversations", a)
	if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), "at most 2 per minute") {
		t.Fatalf("A's third conversation: %d %s, want 429 stating the limit", rec.Code, rec.Body)
	}
	if rec := quotaDo(h, "POST", "/api/agents/a1/conversations", b); rec.Code == http.StatusTooManyRequests {
		t.Fatal("B limited by A's conversations")
	}
}

// Redis unreachable: sending a message and creating a key answer 503; the
// reads are served (fail open).
func TestQuotasWithRedisDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	rdb := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: 100 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	h, err := withQuotas(quotaMux(t), rdb, quotaTokenIsUID, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/conversations/c1/messages", "/api/agents/a1/api-keys"} {
		if rec := quotaDo(h, "POST", path, "u1"); rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"unavailable"`) {
			t.Errorf("POST %s with Redis down: %d %s, want 503 unavailable (fail closed)", path, rec.Code, rec.Body)
		}
	}
	for _, path := range []string{"/api/conversations/c1", "/api/agents/a1/conversations"} {
		if rec := quotaDo(h, "GET", path, "u1"); rec.Code == http.StatusServiceUnavailable || rec.Code == http.StatusTooManyRequests {
			t.Errorf("GET %s with Redis down: %d, want it served (fail open)", path, rec.Code)
		}
	}
}

// The rates the service applies are the ones the OpenAPI document lists
// (x-quotas), on the routes they are applied to, with the variables that
// configure them.
func TestRatesAreDocumented(t *testing.T) {
	rules, err := quotaRules()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range openapi.CheckRates(ServiceName, rules.Envs()) {
		t.Error(p)
	}
}
