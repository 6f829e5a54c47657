// Package ratelimittest checks a service's quota table the way every
// service's tests do: each rule names a route the service registers, writes
// fail closed and reads fail open, and requests go through the guard as a
// signed-in user.
package ratelimittest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/agentic-app/agentic/services/platform/ratelimit"
)

// Params fills a route pattern's wildcards with sample values, so that the
// request built from it reaches the route it names.
var Params = strings.NewReplacer("{agentId}", "a1", "{id}", "i1", "{keyId}", "k1", "{slug}", "s1", "{reviewId}", "r1")

// CheckRules fails the test for every rule that does not name a route mux
// registers (a typo would leave the route unlimited silently), for a write
// (any method but GET) that fails open and a read that fails closed, and
// for each pattern of mustLimit that has no rule.
func CheckRules(t testing.TB, rules ratelimit.Rules, mux *http.ServeMux, mustLimit ...string) {
	t.Helper()
	for pattern, rule := range rules {
		method, path, _ := strings.Cut(pattern, " ")
		req := httptest.NewRequest(method, Params.Replace(path), nil)
		if _, got := mux.Handler(req); got != pattern {
			t.Errorf("rule %q: the service routes %s %s to %q", pattern, method, req.URL.Path, got)
		}
		want, what := ratelimit.FailClosed, "write"
		if method == http.MethodGet {
			want, what = ratelimit.FailOpen, "read"
		}
		if rule.Mode != want {
			t.Errorf("%s %q: mode %v, want %v", what, pattern, rule.Mode, want)
		}
	}
	for _, p := range mustLimit {
		if _, ok := rules[p]; !ok {
			t.Errorf("route %q has no quota", p)
		}
	}
}

// Do sends method path with a JSON body "{}" as uid (the tests' verifiers
// take the bearer token for the uid) through h.
func Do(h http.Handler, method, path, uid string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+uid)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// Redis is a client of the test Redis server (127.0.0.1:6379), closed when
// the test ends; the test fails at once when the server does not answer.
func Redis(t testing.TB) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	t.Cleanup(func() { _ = rdb.Close() })
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("redis: %v", err)
	}
	return rdb
}
