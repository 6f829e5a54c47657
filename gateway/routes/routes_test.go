package routes_test

import (
	"strings"
	"testing"

	"github.com/agentic-app/agentic/gateway"
	"github.com/agentic-app/agentic/gateway/routes"
)

func mustTable(t *testing.T) *routes.Table {
	t.Helper()
	table, err := routes.Parse(gateway.RoutesYAML)
	if err != nil {
		t.Fatalf("parse committed route table: %v", err)
	}
	return table
}

// Every /api call of SPEC.md §7 must reach the service that owns it
// (ARCHITECTURE.md "Services").
func TestEverySpecPathIsRoutedToItsOwner(t *testing.T) {
	table := mustTable(t)
	cases := []struct {
		path, service string
		auth          bool
	}{
		{"/api/user/onboarding", "identity", true},
		{"/api/user/public-agent-interest", "identity", true},
		{"/api/dashboard/stats", "analytics", true},
		{"/api/activities", "analytics", true},
		{"/api/agents", "catalog", true},
		{"/api/agents/a1b2", "catalog", true},
		{"/api/agents/a1b2/subscribers", "catalog", true},
		{"/api/agents/a1b2/subscribers/s9", "catalog", true},
		{"/api/agents/a1b2/documents", "documents", true},
		{"/api/agents/a1b2/documents/d7", "documents", true},
		{"/api/user/balance", "wallet", true},
		{"/api/user/transactions", "wallet", true},
		{"/api/stripe/create-checkout-session", "wallet", true},
		{"/api/stripe/webhook", "wallet", false},
		// Agents at work (knowledge, conversations).
		{"/api/agents/a1b2/documents/d7/sync", "documents", true},
		{"/api/agents/a1b2/knowledge/search", "documents", true},
		{"/api/agents/a1b2/conversations", "conversations", true},
		{"/api/agents/a1b2/chat-info", "conversations", true},
		{"/api/agents/shared", "catalog", true},
		{"/api/conversations/c1", "conversations", true},
		{"/api/conversations/c1/messages", "conversations", true},
		{"/api/library", "conversations", true},
		// Billing.
		{"/api/user/billing-settings", "wallet", true},
		{"/api/user/transactions.csv", "wallet", true},
		{"/api/user/agent-fees", "wallet", true},
		{"/api/stripe/setup-session", "wallet", true},
		{"/api/usage", "analytics", true},
		// Agent API: the service checks API keys itself.
		{"/api/agents/a1b2/api-keys", "conversations", true},
		{"/api/agents/a1b2/api-keys/k1", "conversations", true},
		{"/api/v1/chat/completions", "conversations", false},
		{"/api/v1/models", "conversations", false},
		{"/api/v1/models/agentic/x", "conversations", false},
		{"/api/v1/responses", "conversations", false},
		{"/api/v1/responses/resp_x", "conversations", false},
		{"/api/v1/unknown", "conversations", false},
		// The marketplace's writes need a token (issue 27).
		{"/api/marketplace/agents/math-tutor/review", "catalog", true},
		{"/api/marketplace/agents/math-tutor/report", "catalog", true},
		{"/api/marketplace/reviews/r1/report", "catalog", true},
		{"/api/agents/a1b2/reviews/r1/reply", "catalog", true},
		// The public marketplace: discovery and the reviews list (issue 27).
		{"/api/marketplace/agents", "catalog", false},
		{"/api/marketplace/agents/math-tutor", "catalog", false},
		{"/api/marketplace/categories", "catalog", false},
		{"/api/marketplace/agents/math-tutor/reviews", "catalog", false},
		// Pages: a listed agent's link preview and the sitemap (issue 27).
		{"/marketplace/math-tutor", "catalog", false},
		{"/marketplace/math-tutor-2", "catalog", false},
		{"/sitemap.xml", "catalog", false},
	}
	for _, c := range cases {
		r, ok := table.Lookup(c.path)
		if !ok {
			t.Errorf("%s: no route", c.path)
			continue
		}
		if r.Service != c.service {
			t.Errorf("%s: routed to %s, want %s", c.path, r.Service, c.service)
		}
		if r.RequiresAuth() != c.auth {
			t.Errorf("%s: auth = %v, want %v", c.path, r.RequiresAuth(), c.auth)
		}
	}
}

func TestUnroutedPaths(t *testing.T) {
	table := mustTable(t)
	for _, p := range []string{"/api/unknown", "/api/agents/a/b/c/d", "/api/user", "/dashboard", "/api/agents/a1/documents/d1/extra",
		"/api/marketplace", "/api/marketplace/agents/a/b", "/api/marketplace/agents/a/reviews/x", "/api/marketplace/categories/x",
		// The SPA's: its files, its shell and its other marketplace pages.
		"/", "/index.html", "/robots.txt", "/assets/index-1234.js", "/marketplace", "/marketplace/", "/marketplace/math-tutor/",
		"/marketplace/math-tutor/chat", "/dashboard/marketplace", "/dashboard/marketplace/x", "/sitemap.xml.gz"} {
		if r, ok := table.Lookup(p); ok {
			t.Errorf("%s unexpectedly routed to %s", p, r.Name)
		}
	}
}

// Only the Stripe webhook (signature) and the agent API (API keys) skip the
// Firebase ID-token check; their services check their own credentials. The
// OpenAPI document and the public marketplace are public.
func TestOnlyTheWebhookAndAgentAPISkipAuth(t *testing.T) {
	for _, r := range mustTable(t).Routes {
		if !r.RequiresAuth() && r.Name != "stripe-webhook" && r.Name != "openapi" && r.Name != "marketplace-public" && r.Match.Prefix != "/api/v1/" && !r.Page() {
			t.Errorf("route %s skips auth", r.Name)
		}
	}
}

// GET /api/openapi.json reaches identity (which serves the embedded
// document) without a token, through the local gateway and Envoy alike.
func TestOpenAPIDocumentIsPublicOnIdentity(t *testing.T) {
	r, ok := mustTable(t).Lookup("/api/openapi.json")
	if !ok || r.Service != "identity" || r.RequiresAuth() {
		t.Fatalf("route %+v ok=%v", r, ok)
	}
}

func TestParseRejectsBadTables(t *testing.T) {
	svc := "services:\n  a: { localHTTP: \"127.0.0.1:1\", httpPort: 1, grpcPort: 2 }\n"
	cases := map[string]string{
		"unknown service": svc + "routes:\n  - { name: r, match: { path: /api/x }, service: b }\n",
		"two match kinds": svc + "routes:\n  - { name: r, match: { path: /api/x, prefix: /api/ }, service: a }\n",
		"no match":        svc + "routes:\n  - { name: r, match: {}, service: a }\n",
		"bad regex":       svc + "routes:\n  - { name: r, match: { regex: \"/api/(\" }, service: a }\n",
		"unknown key":     svc + "routes:\n  - { name: r, match: { path: /api/x }, service: a, colour: red }\n",
		"duplicate name":  svc + "routes:\n  - { name: r, match: { path: /api/x }, service: a }\n  - { name: r, match: { path: /api/y }, service: a }\n",
		"outside /api":    svc + "routes:\n  - { name: r, match: { path: /x }, service: a }\n",

		"service no port": "services:\n  a: { localHTTP: \"127.0.0.1:1\" }\nroutes:\n  - { name: r, match: { path: /api/x }, service: a }\n",
	}
	for name, doc := range cases {
		if _, err := routes.Parse([]byte(doc)); err == nil {
			t.Errorf("%s: parsed without error", name)
		} else if !strings.Contains(err.Error(), "route table") {
			t.Errorf("%s: error %q lacks context", name, err)
		}
	}
}

// Only the streamed-answer routes are streams (no edge response timeout):
// the chat's messages and the agent API (chat completions and responses
// stream; its other routes answer at once).
func TestOnlyMessageSendingStreams(t *testing.T) {
	table := mustTable(t)
	for _, r := range table.Routes {
		if r.Stream != (r.Name == "conversation-messages" || r.Name == "agent-api") {
			t.Errorf("route %s: stream = %v", r.Name, r.Stream)
		}
	}
}

// The only pages outside /api are the catalog's agent pages and its sitemap
// (link previews, issue 27); every other non-/api path is the SPA's. A page
// may be defined with a path or a regex when it needs no token.
func TestPagesAreTheCatalogsAgentPagesAndSitemap(t *testing.T) {
	var pages []string
	for _, r := range mustTable(t).Routes {
		if r.Page() {
			pages = append(pages, r.Name)
			if r.Service != "catalog" || r.RequiresAuth() || r.Stream || r.RateLimited {
				t.Errorf("page %s: %+v", r.Name, r)
			}
		}
	}
	if strings.Join(pages, ",") != "marketplace-agent-page,sitemap" {
		t.Errorf("pages %v", pages)
	}
	svc := "services:\n  a: { localHTTP: \"127.0.0.1:1\", httpPort: 1, grpcPort: 2 }\n" +
		"securityHeaders: { contentSecurityPolicy: \"default-src 'self'\", referrerPolicy: no-referrer, permissionsPolicy: \"camera=()\" }\n"
	for name, route := range map[string]string{
		"with a token": "{ name: r, match: { path: /x }, service: a }",
		"prefix":       "{ name: r, match: { prefix: /x }, service: a, auth: false }",
		"catch-all":    "{ name: r, match: { prefix: / }, service: a, auth: false }",
		"stream":       "{ name: r, match: { path: /x }, service: a, auth: false, stream: true }",
		"rate limited": "{ name: r, match: { path: /x }, service: a, auth: false, rateLimited: true }",
		"relative":     "{ name: r, match: { regex: \"x/[^/]+\" }, service: a, auth: false }",
	} {
		if _, err := routes.Parse([]byte(svc + "routes:\n  - " + route + "\n")); err == nil || !strings.Contains(err.Error(), "outside /api/") {
			t.Errorf("page %s: %v", name, err)
		}
	}
	table, err := routes.Parse([]byte(svc + "routes:\n  - { name: p, match: { regex: \"/p/[^/]+\" }, service: a, auth: false }\n" +
		"  - { name: q, match: { path: /q.xml }, service: a, auth: false }\n"))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/p/x": "p", "/q.xml": "q", "/p": "", "/p/x/y": ""} {
		r, ok := table.Lookup(path)
		if ok != (want != "") || r.Name != want || (ok && !r.Page()) {
			t.Errorf("%s: %q %v, want %q", path, r.Name, ok, want)
		}
	}
}
