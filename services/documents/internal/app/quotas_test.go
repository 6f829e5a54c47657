package app

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentic-app/agentic/services/documents/internal/transport"
	"github.com/agentic-app/agentic/services/platform/auth/authtest"
	"github.com/agentic-app/agentic/services/platform/openapi"
	"github.com/agentic-app/agentic/services/platform/ratelimit"
)

// An agent has at most MAX_DOCUMENTS_PER_AGENT documents (here 2): the third
// add is 400 limit_reached stating the limit; another agent has its own
// count, and removing a document makes room again.
func TestDocumentsPerAgentLimit(t *testing.T) {
	catalogAddr, _ := startCatalog(t)
	app := startWith(t, catalogAddr, options{maxDocuments: 2})
	base, alice := app.http, "token-alice"

	for i, url := range []string{fileURL, fileURL2} {
		if r := do(t, "POST", docsPath(base, agentA), alice, docBody(fmt.Sprintf("Doc%d", i), url)); r.Status != 201 {
			t.Fatalf("add %d: %d %s", i+1, r.Status, r.Raw)
		}
	}
	r := do(t, "POST", docsPath(base, agentA), alice, docBody("Doc3", fileURL))
	if r.Status != 400 || r.Obj()["error"] != "limit_reached" || r.Obj()["message"] != "An agent can have at most 2 documents." {
		t.Fatalf("third add: %d %s, want 400 limit_reached \"An agent can have at most 2 documents.\"", r.Status, r.Raw)
	}
	if r := do(t, "GET", docsPath(base, agentA), alice, ""); len(r.List()) != 2 {
		t.Fatalf("after the refusal: %d documents, want 2 (%s)", len(r.List()), truncate(r.Raw))
	}
	if r := do(t, "POST", docsPath(base, agentA2), alice, docBody("Doc3", fileURL)); r.Status != 201 {
		t.Fatalf("another agent: %d %s", r.Status, r.Raw)
	}
	first := do(t, "GET", docsPath(base, agentA), alice, "").List()[0].(map[string]any)["id"].(string)
	if r := do(t, "DELETE", docsPath(base, agentA)+"/"+first, alice, ""); r.Status != 204 {
		t.Fatalf("remove: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "POST", docsPath(base, agentA), alice, docBody("Doc3", fileURL)); r.Status != 201 {
		t.Fatalf("add after a removal: %d %s", r.Status, r.Raw)
	}
}

// Knowledge searches are limited per user (RATE_LIMIT_KNOWLEDGE_SEARCH, here
// 2/1m) with the real Redis: the third is 429 rate_limited with Retry-After
// and a message stating the limit; another user is not affected.
func TestKnowledgeSearchQuota(t *testing.T) {
	catalogAddr, cat := startCatalog(t)
	// Users of their own: the counters live in Redis for two windows.
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	carol, dave := "carol-"+stamp, "dave-"+stamp
	const agentC, agentD = "01900000-0000-7000-8000-0000000000c1", "01900000-0000-7000-8000-0000000000d1"
	cat.mu.Lock()
	cat.owners[agentC], cat.owners[agentD] = carol, dave
	cat.mu.Unlock()
	app := startWith(t, catalogAddr, options{searchRate: "2/1m"})

	search := func(uid, agent string) (*http.Response, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest("POST", app.http+"/api/agents/"+agent+"/knowledge/search", strings.NewReader(`{"query":"grading policy"}`))
		req.Header.Set("Authorization", "Bearer token-"+uid)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		return res, body
	}
	for i := range 2 {
		if res, body := search(carol, agentC); res.StatusCode != 200 {
			t.Fatalf("carol's search %d: %d %v", i+1, res.StatusCode, body)
		}
	}
	res, body := search(carol, agentC)
	if res.StatusCode != 429 || body["error"] != "rate_limited" {
		t.Fatalf("carol's third search: %d %v, want 429 rate_limited", res.StatusCode, body)
	}
	if secs, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || secs < 1 || secs > 60 {
		t.Errorf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	if msg, _ := body["message"].(string); !strings.Contains(msg, "at most 2 per minute") {
		t.Errorf("message %q does not state the limit", msg)
	}
	if res, body := search(dave, agentD); res.StatusCode != 200 {
		t.Fatalf("dave limited by carol's searches: %d %v", res.StatusCode, body)
	}
}

// Redis unreachable: the search is served (fail open); an unknown rate is a
// configuration error.
func TestKnowledgeSearchQuotaFailsOpen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	rdb := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: 100 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+transport.PathSearch, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	one, err := quotaRules("1/1m")
	if err != nil {
		t.Fatal(err)
	}
	h := ratelimit.GuardMux(mux, rdb, one, authtest.TokenIsUID, ratelimit.Options{Service: ServiceName})
	for i := range 3 {
		req := httptest.NewRequest("POST", "/api/agents/a1/knowledge/search", strings.NewReader(`{}`))
		req.Header.Set("Authorization", "Bearer erin")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("search %d with Redis down: %d %s", i+1, rec.Code, rec.Body)
		}
	}

	rules, err := quotaRules("")
	if err != nil {
		t.Fatal(err)
	}
	if r := rules["POST "+transport.PathSearch]; r.Limit != 60 || r.Window != time.Minute || r.Mode != ratelimit.FailOpen {
		t.Errorf("default rule %+v, want 60/1m fail open", r)
	}
	if _, err := quotaRules("lots"); err == nil || !strings.Contains(err.Error(), "RATE_LIMIT_KNOWLEDGE_SEARCH") {
		t.Errorf("bad rate: %v", err)
	}
}

// The rates the service applies are the ones the OpenAPI document lists
// (x-quotas), on the routes they are applied to, with the variables that
// configure them.
func TestRatesAreDocumented(t *testing.T) {
	rules, err := quotaRules("")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range openapi.CheckRates(ServiceName, rules.Envs()) {
		t.Error(p)
	}
}
