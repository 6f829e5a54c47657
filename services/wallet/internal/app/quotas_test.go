package app

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentic-app/agentic/services/platform/auth/authtest"
	"github.com/agentic-app/agentic/services/platform/openapi"
	"github.com/agentic-app/agentic/services/platform/ratelimit"
	"github.com/agentic-app/agentic/services/platform/ratelimit/ratelimittest"
	"github.com/agentic-app/agentic/services/wallet/internal/endpoints"
	"github.com/agentic-app/agentic/services/wallet/internal/transport"
)

// quotaMux is the wallet's real route table with stub endpoints (every
// call fails with 500): a request the quotas let through reaches the
// handler and is answered by it, never with 429 or 503.
func quotaMux(t *testing.T) *http.ServeMux {
	t.Helper()
	var set endpoints.Set
	authtest.StubEndpoints(&set)
	mux := http.NewServeMux()
	transport.RegisterHTTP(mux, set, authtest.TokenIsUID, nil)
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
	return ratelimit.GuardMux(quotaMux(t), rdb, rules, authtest.TokenIsUID, ratelimit.Options{Service: ServiceName})
}

// Every rule names a route the wallet registers (a typo would silently
// leave a route unlimited), money routes fail closed and reads fail open.
func TestQuotaRulesNameRegisteredRoutes(t *testing.T) {
	rules, err := quotaRules()
	if err != nil {
		t.Fatal(err)
	}
	ratelimittest.CheckRules(t, rules, quotaMux(t), "POST "+transport.PathCheckout, "POST "+transport.PathSetupSession, "PUT "+transport.PathBillingSettings)
}

// With real Redis: user A's third checkout in a minute is refused (429,
// Retry-After), user B's are not; money routes do not share a counter.
func TestCheckoutQuotaPerUser(t *testing.T) {
	t.Setenv("RATE_LIMIT_MONEY", "2/1m")
	rdb := ratelimittest.Redis(t)
	h := quotaGuard(t, rdb)
	a, b := "quota-a-"+time.Now().Format("150405.000000"), "quota-b-"+time.Now().Format("150405.000000")
	for i := range 2 {
		if rec := ratelimittest.Do(h, "POST", transport.PathCheckout, a); rec.Code == http.StatusTooManyRequests || rec.Code == http.StatusServiceUnavailable {
			t.Fatalf("A's checkout %d refused: %d", i+1, rec.Code)
		}
	}
	rec := ratelimittest.Do(h, "POST", transport.PathCheckout, a)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("A's third checkout: %d Retry-After %q, want 429 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	if rec := ratelimittest.Do(h, "POST", transport.PathCheckout, b); rec.Code == http.StatusTooManyRequests {
		t.Fatal("B limited by A's checkouts")
	}
	if rec := ratelimittest.Do(h, "PUT", transport.PathBillingSettings, a); rec.Code == http.StatusTooManyRequests {
		t.Fatal("billing settings share the checkout counter")
	}
}

// Redis unreachable: checkout, auto-recharge setup and billing settings
// answer 503 without reaching the wallet; the balance is still served.
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
	for _, r := range []struct{ method, path string }{
		{"POST", transport.PathCheckout}, {"POST", transport.PathSetupSession}, {"PUT", transport.PathBillingSettings},
	} {
		if rec := ratelimittest.Do(h, r.method, r.path, "u1"); rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"unavailable"`) {
			t.Errorf("%s %s with Redis down: %d %s, want 503 unavailable (fail closed)", r.method, r.path, rec.Code, rec.Body)
		}
	}
	if rec := ratelimittest.Do(h, "GET", transport.PathBalance, "u1"); rec.Code == http.StatusServiceUnavailable || rec.Code == http.StatusTooManyRequests {
		t.Errorf("balance with Redis down: %d, want it served (fail open)", rec.Code)
	}
}

// The whole app with Redis unreachable: checkout answers 503 "unavailable"
// (the quota fails closed) while the balance is served (reads fail open),
// and both are counted.
func TestQuotasFailClosedInTheApp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	_ = ln.Close()
	app := start(t, "redis://"+closed+"/0")
	uid := uniq("quota")
	code, body := call(t, "POST", app.http+"/api/stripe/create-checkout-session", "token-"+uid,
		fmt.Sprintf(`{"amount":2000,"currency":"usd","metadata":{"userId":%q,"email":"x@example.com","timestamp":"2026-01-01T00:00:00Z"}}`, uid))
	if code != http.StatusServiceUnavailable || body["error"] != "unavailable" {
		t.Fatalf("checkout with Redis down: %d %v, want 503 unavailable", code, body)
	}
	if b := balance(t, app, uid); b != 0 {
		t.Fatalf("balance %v", b)
	}
	resp, err := http.Get(app.http + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	metrics, _ := io.ReadAll(resp.Body)
	for _, want := range []string{
		`agentic_ratelimit_redis_errors_total{class="checkout",mode="fail_closed",service="wallet"} 1`,
		`agentic_ratelimit_redis_errors_total{class="read",mode="fail_open",service="wallet"} 1`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("metrics lack %s", want)
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
