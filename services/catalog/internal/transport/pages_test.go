package transport

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/catalog/internal/endpoints"
	"github.com/agentic-app/agentic/services/catalog/internal/pages"
	"github.com/agentic-app/agentic/services/platform/auth/authtest"
	"github.com/agentic-app/agentic/services/platform/openapi"
	"github.com/agentic-app/agentic/services/platform/server"
)

// testShell stands in for the web app's index.html (the SPA's shell).
const testShell = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <title>Agentic: Turn Your Expertise into an AI Agent</title>
    <meta name="description" content="Agentic turns your expertise into an AI agent." />
    <meta name="robots" content="index, follow" />
    <link rel="canonical" href="https://agentic.app/" />
    <meta property="og:type" content="website" />
    <meta property="og:url" content="https://agentic.app/" />
    <meta property="og:title" content="Agentic" />
    <meta property="og:description" content="Create an AI agent." />
    <meta property="og:image" content="https://agentic.app/og-image.png" />
    <script type="module" crossorigin src="/assets/index-abc123.js"></script>
  </head>
  <body><div id="root"></div></body>
</html>
`

// pagesFixture is the catalog's mux with the pages over fake endpoints: the
// listed agents by slug, a lookup failure for "broken", and a shell server
// that counts its reads.
type pagesFixture struct {
	mux        *http.ServeMux
	shellHits  *atomic.Int64
	shellDown  *atomic.Bool
	sitemapErr *atomic.Bool
	sitemaps   *atomic.Int64
}

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

func newPagesFixture(t *testing.T, enabled bool, listed ...agents.Listing) pagesFixture {
	t.Helper()
	f := pagesFixture{mux: http.NewServeMux(), shellHits: &atomic.Int64{}, shellDown: &atomic.Bool{}, sitemapErr: &atomic.Bool{}, sitemaps: &atomic.Int64{}}
	shell := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.shellHits.Add(1)
		if f.shellDown.Load() || r.URL.Path != "/index.html" {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, testShell)
	}))
	t.Cleanup(shell.Close)
	bySlug := map[string]agents.Listing{}
	for _, l := range listed {
		bySlug[l.Slug] = l
	}
	var set endpoints.Set
	set.ListedPreview = func(_ context.Context, req any) (any, error) {
		slug := req.(endpoints.GetListedRequest).Slug
		if slug == "broken" {
			return nil, errors.New("database unreachable")
		}
		l, ok := bySlug[slug]
		if !ok {
			return nil, agents.ErrNotFound
		}
		return endpoints.ListingResponse{Listing: l}, nil
	}
	set.Sitemap = func(_ context.Context, req any) (any, error) {
		f.sitemaps.Add(1)
		if f.sitemapErr.Load() {
			return nil, errors.New("database unreachable")
		}
		if req.(endpoints.SitemapRequest).Limit != agents.MaxSitemapAgents {
			t.Errorf("sitemap limit %d", req.(endpoints.SitemapRequest).Limit)
		}
		var out []agents.SitemapEntry
		for _, l := range listed {
			out = append(out, agents.SitemapEntry{Slug: l.Slug, LastMod: l.PublishedAt})
		}
		return endpoints.SitemapResponse{Entries: out}, nil
	}
	RegisterHTTP(f.mux, set, authtest.Refuse, quietLog, WithMarketplace(enabled), WithPages(PagesConfig{
		Shell:   pages.NewShell(shell.URL+"/index.html", quietLog),
		BaseURL: "https://agentic.test/",
	}))
	return f
}

func (f pagesFixture) get(t *testing.T, method, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	f.mux.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec.Result(), rec.Body.String()
}

var mathTutor = agents.Listing{ID: "a1", Slug: "math-tutor", Name: "Math Tutor", Description: "Helps with algebra homework.",
	CreatorName: "Ada", PublishedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}

// A listed agent's page: the shell with its title, description, Open Graph
// tags and canonical link on APP_BASE_URL, cacheable for a minute; the
// SPA's script stays so it boots on the same page.
func TestAgentPageHasTheAgentsTags(t *testing.T) {
	f := newPagesFixture(t, true, mathTutor)
	res, body := f.get(t, http.MethodGet, "/marketplace/math-tutor")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" || res.Header.Get("Cache-Control") != "public, max-age=60" ||
		res.Header.Get("X-Robots-Tag") != "" {
		t.Fatalf("%d %v\n%s", res.StatusCode, res.Header, body)
	}
	for _, want := range []string{
		"<title>Math Tutor | Agentic</title>",
		`<meta name="description" content="Helps with algebra homework." />`,
		`<link rel="canonical" href="https://agentic.test/marketplace/math-tutor" />`,
		`<meta property="og:url" content="https://agentic.test/marketplace/math-tutor" />`,
		`<meta property="og:title" content="Math Tutor" />`,
		`<meta property="og:description" content="Helps with algebra homework." />`,
		`<meta property="og:type" content="website" />`,
		`<meta name="robots" content="index, follow" />`,
		`<meta property="og:image" content="https://agentic.app/og-image.png" />`,
		`<script type="module" crossorigin src="/assets/index-abc123.js"></script>`,
		`<div id="root"></div>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %s in\n%s", want, body)
		}
	}
	for _, gone := range []string{"Turn Your Expertise", `href="https://agentic.app/"`, `content="https://agentic.app/"`} {
		if strings.Contains(body, gone) {
			t.Errorf("the shell's %s is left in\n%s", gone, body)
		}
	}
	if n := strings.Count(body, "<title>"); n != 1 {
		t.Errorf("%d titles", n)
	}
	// HEAD: the same headers, no body.
	if res, body := f.get(t, http.MethodHead, "/marketplace/math-tutor"); res.StatusCode != 200 || body != "" || res.Header.Get("Cache-Control") != "public, max-age=60" {
		t.Errorf("HEAD: %d %q %v", res.StatusCode, body, res.Header)
	}
	// An agent without a description is described by name and creator.
	f = newPagesFixture(t, true, agents.Listing{Slug: "quiet", Name: "Quiet One", CreatorName: "Bob"})
	if _, body := f.get(t, http.MethodGet, "/marketplace/quiet"); !strings.Contains(body,
		`<meta property="og:description" content="Quiet One, an AI agent by Bob on the Agentic marketplace." />`) {
		t.Errorf("no description:\n%s", body)
	}
}

// A name or description with markup is text in the page, never markup.
func TestAgentPageEscapesTheAgentsTexts(t *testing.T) {
	evil := agents.Listing{Slug: "evil", Name: `<script>alert("name")</script>`, Description: `"><script>alert('desc')</script>`, CreatorName: "Eve"}
	f := newPagesFixture(t, true, evil)
	res, body := f.get(t, http.MethodGet, "/marketplace/evil")
	if res.StatusCode != 200 {
		t.Fatalf("%d", res.StatusCode)
	}
	if strings.Contains(body, "<script>alert") || strings.Contains(body, `"><script`) {
		t.Fatalf("unescaped:\n%s", body)
	}
	for _, want := range []string{
		`<title>&lt;script&gt;alert(&#34;name&#34;)&lt;/script&gt; | Agentic</title>`,
		`<meta property="og:title" content="&lt;script&gt;alert(&#34;name&#34;)&lt;/script&gt;" />`,
		`<meta property="og:description" content="&#34;&gt;&lt;script&gt;alert(&#39;desc&#39;)&lt;/script&gt;" />`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %s in\n%s", want, body)
		}
	}
}

// Unknown, unlisted (the fake has no such slug) or a slug that cannot be
// one, and any slug while the marketplace is off: the shell as the 404
// page, noindex, not cached; the SPA still boots and shows its not-found
// screen.
func TestUnknownAgentPageIs404(t *testing.T) {
	on := newPagesFixture(t, true, mathTutor)
	off := newPagesFixture(t, false, mathTutor)
	for _, c := range []struct {
		f    pagesFixture
		path string
	}{{on, "/marketplace/no-such-agent"}, {on, "/marketplace/Not%20A%20Slug"}, {off, "/marketplace/math-tutor"}} {
		res, body := c.f.get(t, http.MethodGet, c.path)
		if res.StatusCode != 404 || res.Header.Get("X-Robots-Tag") != "noindex" || res.Header.Get("Cache-Control") != "no-cache" ||
			!strings.Contains(body, "<title>Agent not found | Agentic</title>") || !strings.Contains(body, `<meta name="robots" content="noindex" />`) ||
			strings.Contains(body, `rel="canonical"`) || !strings.Contains(body, `src="/assets/index-abc123.js"`) {
			t.Errorf("%s: %d %v\n%s", c.path, res.StatusCode, res.Header, body)
		}
	}
	// Exactly two segments: /marketplace, a chat and deeper paths are not
	// this route (the gateway sends them to the SPA).
	for _, p := range []string{"/marketplace", "/marketplace/", "/marketplace/math-tutor/chat"} {
		if _, pattern := on.mux.Handler(httptest.NewRequest(http.MethodGet, p, nil)); strings.Contains(pattern, "/marketplace") {
			t.Errorf("%s is routed to %q", p, pattern)
		}
	}
	// Other methods: 405.
	if res, _ := on.get(t, http.MethodPost, "/marketplace/math-tutor"); res.StatusCode != 405 || res.Header.Get("Allow") != "GET" {
		t.Errorf("POST: %d %v", res.StatusCode, res.Header)
	}
}

// The listing cannot be read: the plain shell (the SPA boots and shows its
// own error) with 503. The shell cannot be read: a minimal page still
// carries the agent's tags, with 503 (404 for an unknown agent), never
// cached.
func TestAgentPageFailures(t *testing.T) {
	f := newPagesFixture(t, true, mathTutor)
	res, body := f.get(t, http.MethodGet, "/marketplace/broken")
	if res.StatusCode != 503 || res.Header.Get("Retry-After") == "" || res.Header.Get("Cache-Control") != "no-store" || body != testShell {
		t.Errorf("lookup failure: %d %v\n%s", res.StatusCode, res.Header, body)
	}
	f = newPagesFixture(t, true, mathTutor)
	f.shellDown.Store(true)
	res, body = f.get(t, http.MethodGet, "/marketplace/math-tutor")
	if res.StatusCode != 503 || res.Header.Get("Cache-Control") != "no-store" || !strings.Contains(body, "<title>Math Tutor | Agentic</title>") ||
		!strings.Contains(body, PageFallbackText) {
		t.Errorf("shell down: %d %v\n%s", res.StatusCode, res.Header, body)
	}
	res, body = f.get(t, http.MethodGet, "/marketplace/nobody")
	if res.StatusCode != 404 || res.Header.Get("Cache-Control") != "no-store" || !strings.Contains(body, "noindex") {
		t.Errorf("shell down, unknown agent: %d %v\n%s", res.StatusCode, res.Header, body)
	}
}

// The shell is read once for many pages (kept DefaultShellTTL).
func TestAgentPagesReuseTheShell(t *testing.T) {
	f := newPagesFixture(t, true, mathTutor)
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := httptest.NewRecorder()
			f.mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/marketplace/math-tutor", nil))
			if rec.Code != 200 {
				t.Errorf("%d", rec.Code)
			}
		}()
	}
	wg.Wait()
	if n := f.shellHits.Load(); n != 1 {
		t.Errorf("%d reads of the shell", n)
	}
}

// sitemap.xml: the landing page, /marketplace and every listed agent with
// its last change; off, the landing page only. Built once per minute; the
// last one is served while the agents cannot be read.
func TestSitemapListsTheListedAgents(t *testing.T) {
	other := agents.Listing{Slug: "essay-coach", Name: "Essay Coach", PublishedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}
	f := newPagesFixture(t, true, mathTutor, other)
	res, body := f.get(t, http.MethodGet, "/sitemap.xml")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/xml; charset=utf-8" || res.Header.Get("Cache-Control") != "public, max-age=60" {
		t.Fatalf("%d %v\n%s", res.StatusCode, res.Header, body)
	}
	for _, want := range []string{
		`<?xml version="1.0" encoding="UTF-8"?>`,
		`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`,
		"<loc>https://agentic.test/</loc>",
		"<loc>https://agentic.test/marketplace</loc>",
		"<loc>https://agentic.test/marketplace/math-tutor</loc>\n    <lastmod>2026-01-02T03:04:05Z</lastmod>",
		"<loc>https://agentic.test/marketplace/essay-coach</loc>\n    <lastmod>2026-02-01T00:00:00Z</lastmod>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %s in\n%s", want, body)
		}
	}
	if n := strings.Count(body, "<url>"); n != 4 {
		t.Errorf("%d URLs", n)
	}
	f.sitemapErr.Store(true)
	if _, again := f.get(t, http.MethodGet, "/sitemap.xml"); again != body || f.sitemaps.Load() != 1 {
		t.Errorf("not reused: %d builds", f.sitemaps.Load())
	}

	broken := newPagesFixture(t, true, mathTutor)
	broken.sitemapErr.Store(true)
	if res, _ := broken.get(t, http.MethodGet, "/sitemap.xml"); res.StatusCode != 503 || res.Header.Get("Retry-After") == "" {
		t.Errorf("without a sitemap: %d", res.StatusCode)
	}

	off := newPagesFixture(t, false, mathTutor)
	_, body = off.get(t, http.MethodGet, "/sitemap.xml")
	if strings.Count(body, "<url>") != 1 || !strings.Contains(body, "<loc>https://agentic.test/</loc>") || off.sitemaps.Load() != 0 {
		t.Errorf("off:\n%s", body)
	}
}

// The pages are outside /api: the OpenAPI check (which documents /api only)
// still passes with them registered, and without WithPages (or without a
// shell) they are not registered.
func TestPagesAreOutsideTheOpenAPIDocument(t *testing.T) {
	f := newPagesFixture(t, true)
	if _, pattern := f.mux.Handler(httptest.NewRequest(http.MethodGet, "/sitemap.xml", nil)); pattern != "GET "+PathSitemap {
		t.Fatalf("sitemap.xml is routed to %q", pattern)
	}
	for _, p := range openapi.Check("catalog", f.mux) {
		t.Error(p)
	}
	mux := server.NewMux(nil)
	RegisterHTTP(mux, endpoints.Set{}, authtest.Refuse, nil, WithPages(PagesConfig{}))
	for _, p := range []string{"/marketplace/math-tutor", "/sitemap.xml"} {
		if _, pattern := mux.Handler(httptest.NewRequest(http.MethodGet, p, nil)); pattern == "GET "+PathAgentPage || pattern == "GET "+PathSitemap {
			t.Errorf("%s registered without a shell: %q", p, pattern)
		}
	}
}
