package app

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentic-app/agentic/services/conversations/internal/endpoints"
	"github.com/agentic-app/agentic/services/conversations/internal/transport"
	"github.com/agentic-app/agentic/services/platform/auth/authtest"
	"github.com/agentic-app/agentic/services/platform/openapi"
	quota "github.com/agentic-app/agentic/services/platform/ratelimit"
	"github.com/agentic-app/agentic/services/platform/ratelimit/ratelimittest"
)

// quotaMux is the service's real route table with stub endpoints (every
// call fails): a request the quotas let through is answered by its handler,
// never with 429 or 503 "unavailable".
func quotaMux(t *testing.T) *http.ServeMux {
	t.Helper()
	var set endpoints.Set
	authtest.StubEndpoints(&set)
	mux := http.NewServeMux()
	transport.RegisterHTTP(mux, set, authtest.TokenIsUID, nil)
	transport.RegisterAgentAPI(mux, set, authtest.TokenIsUID, nil, nil)
	return mux
}

// quotaGuard is the service's quota table in front of quotaMux, as Run
// puts it.
func quotaGuard(t *testing.T, rdb redis.Scripter) http.Handler {
	t.Helper()
	rules, err := quotaRules()
	if err != nil {
		t.Fatal(err)
	}
	return quota.GuardMux(quotaMux(t), rdb, rules, authtest.TokenIsUID, quota.Options{Service: ServiceName})
}

func TestQuotaRulesNameRegisteredRoutes(t *testing.T) {
	rules, err := quotaRules()
	if err != nil {
		t.Fatal(err)
	}
	ratelimittest.CheckRules(t, rules, quotaMux(t), "POST "+transport.PathMessages, "POST "+transport.PathAPIKeys)
}

// With real Redis: A's third API key in the window is refused, B's is not.
func TestAPIKeyQuotaPerUser(t *testing.T) {
	t.Setenv("RATE_LIMIT_MONEY", "2/1m")
	rdb := ratelimittest.Redis(t)
	h := quotaGuard(t, rdb)
	stamp := time.Now().Format("150405.000000")
	a, b := "quota-a-"+stamp, "quota-b-"+stamp
	for i := range 2 {
		if rec := ratelimittest.Do(h, "POST", "/api/agents/a1/api-keys", a); rec.Code == http.StatusTooManyRequests {
			t.Fatalf("A's key %d refused", i+1)
		}
	}
	rec := ratelimittest.Do(h, "POST", "/api/agents/a2/api-keys", a)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("A's third key: %d Retry-After %q, want 429 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	if rec := ratelimittest.Do(h, "POST", "/api/agents/a1/api-keys", b); rec.Code == http.StatusTooManyRequests {
		t.Fatal("B limited by A's keys")
	}
}

// Starting conversations is limited per user (RATE_LIMIT_CONVERSATIONS),
// and the 429 says the limit.
func TestConversationQuotaPerUser(t *testing.T) {
	t.Setenv("RATE_LIMIT_CONVERSATIONS", "2/1m")
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	t.Cleanup(func() { _ = rdb.Close() })
	h := quotaGuard(t, rdb)
	stamp := time.Now().Format("150405.000000")
	a, b := "conv-a-"+stamp, "conv-b-"+stamp
	for i := range 2 {
		if rec := ratelimittest.Do(h, "POST", "/api/agents/a1/conversations", a); rec.Code == http.StatusTooManyRequests {
			t.Fatalf("A's conversation %d refused", i+1)
		}
	}
	rec := ratelimittest.Do(h, "POST", "/api/agents/a2/conversations", a)
	if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), "at most 2 per minute") {
		t.Fatalf("A's third conversation: %d %s, want 429 stating the limit", rec.Code, rec.Body)
	}
	if rec := ratelimittest.Do(h, "POST", "/api/agents/a1/conversations", b); rec.Code == http.StatusTooManyRequests {
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
	h := quotaGuard(t, rdb)
	for _, path := range []string{"/api/conversations/c1/messages", "/api/agents/a1/api-keys"} {
		if rec := ratelimittest.Do(h, "POST", path, "u1"); rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"unavailable"`) {
			t.Errorf("POST %s with Redis down: %d %s, want 503 unavailable (fail closed)", path, rec.Code, rec.Body)
		}
	}
	for _, path := range []string{"/api/conversations/c1", "/api/agents/a1/conversations"} {
		if rec := ratelimittest.Do(h, "GET", path, "u1"); rec.Code == http.StatusServiceUnavailable || rec.Code == http.StatusTooManyRequests {
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
