package pages_test

import (
	"bytes"
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

	"golang.org/x/net/html"

	"github.com/agentic-app/agentic/services/catalog/internal/pages"
)

// shell is web/index.html as Vite builds it (abridged): the landing page's
// tags, the SPA's module script, and a script whose text looks like tags.
const shell = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <title>Agentic: Turn Your Expertise into an AI Agent</title>
    <meta
      name="description"
      content="Agentic turns your expertise into an AI agent."
    />
    <meta name="robots" content="index, follow" />
    <link rel="canonical" href="https://agentic.app/" />
    <link rel="icon" type="image/svg+xml" href="/favicon.svg" />
    <meta property="og:type" content="website" />
    <meta property="og:site_name" content="Agentic" />
    <meta property="og:url" content="https://agentic.app/" />
    <meta property="og:title" content="Agentic: Turn Your Expertise into an AI Agent" />
    <meta property="og:description" content="Create an AI agent from your knowledge." />
    <meta property="og:image" content="https://agentic.app/og-image.png" />
    <meta name="twitter:card" content="summary_large_image" />
    <meta name="twitter:title" content="Agentic: Turn Your Expertise into an AI Agent" />
    <meta name="twitter:description" content="Create an AI agent." />
    <script type="application/ld+json">{"@type": "Organization", "note": "<title>not a tag</title>"}</script>
    <script type="module" crossorigin src="/assets/index-abc123.js"></script>
    <link rel="stylesheet" crossorigin href="/assets/index-def456.css">
  </head>
  <body>
    <div id="root"></div>
    <noscript>Agentic needs JavaScript to run.</noscript>
  </body>
</html>
`

// headTags is what a parser makes of the rendered <head>: the title text,
// meta name/property → contents, link rel → hrefs.
type headTags struct {
	titles []string
	meta   map[string][]string
	links  map[string][]string
}

func parseHead(t *testing.T, page []byte) headTags {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	out := headTags{meta: map[string][]string{}, links: map[string][]string{}}
	var walk func(n *html.Node, inHead bool)
	walk = func(n *html.Node, inHead bool) {
		if n.Type == html.ElementNode {
			if n.Data == "head" {
				inHead = true
			}
			attr := map[string]string{}
			for _, a := range n.Attr {
				attr[a.Key] = a.Val
			}
			switch {
			case n.Data == "title" && inHead:
				text := ""
				if n.FirstChild != nil {
					text = n.FirstChild.Data
				}
				out.titles = append(out.titles, text)
			case n.Data == "meta" && attr["name"]+attr["property"] != "":
				k := attr["name"] + attr["property"]
				out.meta[k] = append(out.meta[k], attr["content"])
			case n.Data == "link":
				out.links[attr["rel"]] = append(out.links[attr["rel"]], attr["href"])
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inHead)
		}
	}
	walk(doc, false)
	return out
}

func (h headTags) one(t *testing.T, key string) string {
	t.Helper()
	if len(h.meta[key]) != 1 {
		t.Fatalf("meta %s: %q, want exactly one", key, h.meta[key])
	}
	return h.meta[key][0]
}

// The agent's tags replace the landing page's (with the white space before
// them); everything else of the shell
// (the icons, og:image, the SPA's scripts and stylesheet, JSON-LD, the
// body) stays as it was.
func TestRenderReplacesTheShellsTags(t *testing.T) {
	page := pages.Render([]byte(shell), pages.Meta{
		Title: "Math Tutor | Agentic", OGTitle: "Math Tutor", Description: "Helps with algebra homework",
		URL: "https://agentic.app/marketplace/math-tutor", Type: "website",
	})
	h := parseHead(t, page)
	if len(h.titles) != 1 || h.titles[0] != "Math Tutor | Agentic" {
		t.Errorf("titles %q", h.titles)
	}
	for k, want := range map[string]string{
		"description": "Helps with algebra homework", "robots": "index, follow",
		"og:type": "website", "og:url": "https://agentic.app/marketplace/math-tutor", "og:title": "Math Tutor",
		"og:description": "Helps with algebra homework", "twitter:title": "Math Tutor", "twitter:description": "Helps with algebra homework",
		"og:site_name": "Agentic", "og:image": "https://agentic.app/og-image.png", "twitter:card": "summary_large_image",
	} {
		if got := h.one(t, k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if c := h.links["canonical"]; len(c) != 1 || c[0] != "https://agentic.app/marketplace/math-tutor" {
		t.Errorf("canonical %q", c)
	}
	for _, keep := range []string{
		`<script type="module" crossorigin src="/assets/index-abc123.js"></script>`,
		`<link rel="stylesheet" crossorigin href="/assets/index-def456.css">`,
		`{"@type": "Organization", "note": "<title>not a tag</title>"}`,
		`<link rel="icon" type="image/svg+xml" href="/favicon.svg" />`,
		"<body>\n    <div id=\"root\"></div>\n    <noscript>Agentic needs JavaScript to run.</noscript>\n  </body>\n</html>\n",
		// The charset stays first; the agent's tags end the <head>.
		"<!doctype html>\n<html lang=\"en\">\n  <head>\n    <meta charset=\"UTF-8\" />",
		"    <meta name=\"twitter:description\" content=\"Helps with algebra homework\" />\n  </head>\n  <body>",
	} {
		if !bytes.Contains(page, []byte(keep)) {
			t.Errorf("the page lost %q:\n%s", keep, page)
		}
	}
	if bytes.Contains(page, []byte("Turn Your Expertise")) {
		t.Errorf("the landing page's title is left:\n%s", page)
	}
}

// Every text is escaped: a name or description cannot close the title or
// an attribute, or add an element.
func TestRenderEscapes(t *testing.T) {
	name := `</title><script>alert("x")</script>`
	desc := `" onmouseover="alert(1)" x="<img src=x onerror=alert(2)>` + "\n\n & more"
	page := pages.Render([]byte(shell), pages.Meta{Title: name + " | Agentic", OGTitle: name, Description: desc,
		URL: `https://agentic.app/marketplace/a"b`, Type: "website"})
	if bytes.Contains(page, []byte("<script>alert")) || bytes.Contains(page, []byte("<img")) || bytes.Contains(page, []byte(`" onmouseover`)) {
		t.Fatalf("unescaped text in:\n%s", page)
	}
	if !bytes.Contains(page, []byte(`<title>&lt;/title&gt;&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; | Agentic</title>`)) {
		t.Errorf("title not escaped as text:\n%s", page)
	}
	h := parseHead(t, page)
	if len(h.titles) != 1 || h.titles[0] != name+" | Agentic" {
		t.Errorf("title parses as %q", h.titles)
	}
	if got := h.one(t, "og:title"); got != name {
		t.Errorf("og:title %q", got)
	}
	if got := h.one(t, "og:description"); got != `" onmouseover="alert(1)" x="<img src=x onerror=alert(2)> & more` {
		t.Errorf("og:description %q", got)
	}
	// The only scripts are the shell's two.
	if n := bytes.Count(page, []byte("<script")); n != 2 {
		t.Errorf("%d <script> in:\n%s", n, page)
	}
}

// The 404 page says noindex and has no canonical link or og:url.
func TestRenderNotFound(t *testing.T) {
	h := parseHead(t, pages.Render([]byte(shell), pages.Meta{Title: "Agent not found | Agentic", Description: "Gone.", NoIndex: true}))
	if h.one(t, "robots") != "noindex" || len(h.links["canonical"]) != 0 || len(h.meta["og:url"]) != 0 || h.one(t, "og:title") != "Agent not found | Agentic" {
		t.Errorf("%+v", h)
	}
}

// A shell without a <head> element still gets the tags (before <body>).
func TestRenderWithoutHead(t *testing.T) {
	page := pages.Render([]byte(`<!doctype html><html><body><div id="root"></div></body></html>`), pages.Meta{Title: "T", URL: "https://a.test/x"})
	if !bytes.Contains(page, []byte("<title>T</title>")) || bytes.Index(page, []byte("<title>")) > bytes.Index(page, []byte("<body>")) {
		t.Errorf("%s", page)
	}
}

func TestClip(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"  Helps   with\n\talgebra\x00 ", 20, "Helps with algebra"},
		{"", 20, ""},
		{"one two three four five", 14, "one two three…"},
		{"one two three four five", 16, "one two three…"},
		{"abcdefghijklmnopqrstuvwxyz", 14, "abcdefghijklm…"},
	} {
		if got := pages.Clip(c.in, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
	if got := pages.Clip(strings.Repeat("é", 400), pages.MaxDescription); len([]rune(got)) != pages.MaxDescription {
		t.Errorf("%d characters", len([]rune(got)))
	}
}

// shellServer serves body (changeable) and counts the reads.
type shellServer struct {
	*httptest.Server
	mu     sync.Mutex
	body   string
	status int
	hits   atomic.Int64
}

func newShellServer(t *testing.T, body string) *shellServer {
	s := &shellServer{body: body, status: 200}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		defer s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(s.status)
		_, _ = io.WriteString(w, s.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *shellServer) set(status int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status, s.body = status, body
}

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// The shell is read once per TTL: within it the copy is served, after it
// the web app is read again (a new build shows).
func TestShellIsReadAgainAfterItsTTL(t *testing.T) {
	srv := newShellServer(t, "<html><head></head>v1</html>")
	clk := &clock{now: time.Unix(1_700_000_000, 0)}
	sh := pages.NewShell(srv.URL+"/index.html", quiet, pages.WithTTL(time.Minute), pages.WithClock(clk.Now))
	ctx := context.Background()
	for range 3 {
		if b, err := sh.Get(ctx); err != nil || string(b) != "<html><head></head>v1</html>" {
			t.Fatalf("%q %v", b, err)
		}
	}
	if n := srv.hits.Load(); n != 1 {
		t.Fatalf("%d reads within the TTL, want 1", n)
	}
	srv.set(200, "<html><head></head>v2</html>")
	clk.add(59 * time.Second)
	if b, _ := sh.Get(ctx); string(b) != "<html><head></head>v1</html>" {
		t.Fatalf("before the TTL: %q", b)
	}
	clk.add(time.Second)
	if b, _ := sh.Get(ctx); string(b) != "<html><head></head>v2</html>" || srv.hits.Load() != 2 {
		t.Fatalf("after the TTL: %q, %d reads", b, srv.hits.Load())
	}
}

// A failed read (the web app down or answering an error page) serves the
// last shell and is retried after ShellRetry; without any shell it is
// ErrNoShell, also not retried before ShellRetry.
func TestShellFailures(t *testing.T) {
	srv := newShellServer(t, "<html><head></head>v1</html>")
	clk := &clock{now: time.Unix(1_700_000_000, 0)}
	sh := pages.NewShell(srv.URL, quiet, pages.WithTTL(time.Minute), pages.WithClock(clk.Now))
	ctx := context.Background()
	if _, err := sh.Get(ctx); err != nil {
		t.Fatal(err)
	}
	srv.set(502, "<html><head></head>bad gateway</html>")
	clk.add(time.Minute)
	for range 3 {
		if b, err := sh.Get(ctx); err != nil || string(b) != "<html><head></head>v1</html>" {
			t.Fatalf("while failing: %q %v", b, err)
		}
	}
	if n := srv.hits.Load(); n != 2 {
		t.Fatalf("%d reads, want 2 (one retry within ShellRetry)", n)
	}
	srv.set(200, "<html><head></head>v2</html>")
	clk.add(pages.ShellRetry)
	if b, _ := sh.Get(ctx); string(b) != "<html><head></head>v2</html>" {
		t.Fatalf("after the retry: %q", b)
	}

	for name, set := range map[string]func(){
		"error status": func() { srv.set(404, "<html><head></head>not found</html>") },
		"not a page":   func() { srv.set(200, `{"error":"not_found"}`) },
		"too big":      func() { srv.set(200, "<html><head></head>"+strings.Repeat("x", pages.MaxShellBytes)+"</html>") },
	} {
		t.Run(name, func(t *testing.T) {
			set()
			fresh := pages.NewShell(srv.URL, quiet, pages.WithClock(clk.Now))
			before := srv.hits.Load()
			for range 2 {
				if b, err := fresh.Get(ctx); !errors.Is(err, pages.ErrNoShell) || b != nil {
					t.Fatalf("%q %v", b, err)
				}
			}
			if n := srv.hits.Load() - before; n != 1 {
				t.Errorf("%d reads, want 1 within ShellRetry", n)
			}
		})
	}
	down := pages.NewShell("http://127.0.0.1:1/index.html", quiet)
	if _, err := down.Get(ctx); !errors.Is(err, pages.ErrNoShell) {
		t.Fatalf("unreachable: %v", err)
	}
}

// Concurrent callers while the shell expires: one read, nobody waits for
// it once a shell is known.
func TestShellIsReadOnceUnderLoad(t *testing.T) {
	srv := newShellServer(t, "<html><head></head>v1</html>")
	sh := pages.NewShell(srv.URL, quiet)
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if b, err := sh.Get(context.Background()); err != nil || len(b) == 0 {
				t.Errorf("%q %v", b, err)
			}
		}()
	}
	wg.Wait()
	if n := srv.hits.Load(); n != 1 {
		t.Errorf("%d reads, want 1", n)
	}
}

func TestSitemap(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 3600))
	body, err := pages.Sitemap([]pages.URL{
		{Loc: "https://agentic.app/", ChangeFreq: "weekly", Priority: "1.0"},
		{Loc: "https://agentic.app/marketplace/a&b", LastMod: at},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url>
    <loc>https://agentic.app/</loc>
    <changefreq>weekly</changefreq>
    <priority>1.0</priority>
  </url>
  <url>
    <loc>https://agentic.app/marketplace/a&amp;b</loc>
    <lastmod>2026-03-04T04:06:07Z</lastmod>
  </url>
</urlset>
`
	if string(body) != want {
		t.Errorf("got\n%s\nwant\n%s", body, want)
	}
	many := make([]pages.URL, pages.MaxSitemapURLs+10)
	for i := range many {
		many[i] = pages.URL{Loc: "https://a.test/x"}
	}
	body, err = pages.Sitemap(many)
	if err != nil || bytes.Count(body, []byte("<url>")) != pages.MaxSitemapURLs {
		t.Errorf("bound: %d URLs, %v", bytes.Count(body, []byte("<url>")), err)
	}
}
