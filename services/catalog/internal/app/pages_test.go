package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// webShell stands in for the web app's index.html; version marks each
// build.
func webShell(version string) string {
	return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <title>Agentic: Turn Your Expertise into an AI Agent</title>
    <meta name="description" content="The landing page." />
    <link rel="canonical" href="https://agentic.app/" />
    <meta property="og:url" content="https://agentic.app/" />
    <meta property="og:title" content="Agentic" />
    <script type="module" crossorigin src="/assets/index-` + version + `.js"></script>
  </head>
  <body><div id="root"></div></body>
</html>
`
}

func getPage(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

// The agent pages and sitemap.xml over the database (issue 27, link
// previews): a listed agent's page carries its escaped tags and canonical
// link on APP_BASE_URL; an unpublished, never published or unknown agent
// is the 404 page; the sitemap lists the listed agents only; the shell is
// read from the web app once within its TTL.
func TestAgentPagesAndSitemap(t *testing.T) {
	var hits atomic.Int64
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/index.html" {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, webShell("v1"))
	}))
	defer web.Close()
	// An hour: every read below falls within it however slow the machine.
	// That a shell is read again after its TTL is TestShellIsReadAgainAfterItsTTL's
	// job (pages package, a fake clock), not a sleep's here.
	const ttl = time.Hour
	l := startListing(t, func(c *Config) {
		c.WebIndexURL = web.URL + "/index.html"
		c.AppBaseURL = "https://agentic.test"
		c.PagesTTL = ttl
	})
	tutor := l.publishNew(t, "alice", agentBody(`Math <script>alert("x")</script> Tutor`, `Algebra & "geometry" help`, "Education"))
	coach := l.publishNew(t, "bob", agentBody("Essay Coach", "Feedback on essays", "Writing"))
	gone := l.publishNew(t, "carol", agentBody("Former Agent", "Was listed once", "Other"))
	if r := l.patch(t, "token-carol", gone["id"].(string), `{"isPublic":false}`); r.Status != 200 {
		t.Fatalf("unpublish: %d %s", r.Status, r.Raw)
	}
	createAgent(t, l.http, "token-dave", agentBody("Private Agent", "Never listed", "Other"))
	tutorSlug, coachSlug, goneSlug := tutor["slug"].(string), coach["slug"].(string), gone["slug"].(string)

	status, h, body := getPage(t, l.http+"/marketplace/"+tutorSlug)
	if status != 200 || h.Get("Cache-Control") != "public, max-age=60" || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Fatalf("listed: %d %v\n%s", status, h, body)
	}
	for _, want := range []string{
		`<title>Math &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; Tutor | Agentic</title>`,
		`<meta property="og:title" content="Math &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; Tutor" />`,
		`<meta property="og:description" content="Algebra &amp; &#34;geometry&#34; help" />`,
		`<meta name="description" content="Algebra &amp; &#34;geometry&#34; help" />`,
		`<link rel="canonical" href="https://agentic.test/marketplace/` + tutorSlug + `" />`,
		`<meta property="og:url" content="https://agentic.test/marketplace/` + tutorSlug + `" />`,
		`src="/assets/index-v1.js"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %s in\n%s", want, body)
		}
	}
	if strings.Contains(body, "<script>alert") || strings.Contains(body, "SECRET-INSTRUCTIONS") || strings.Contains(body, "The landing page") {
		t.Errorf("the page shows what it must not:\n%s", body)
	}
	if _, _, body := getPage(t, l.http+"/marketplace/"+coachSlug); !strings.Contains(body, `<meta property="og:title" content="Essay Coach" />`) {
		t.Errorf("another agent:\n%s", body)
	}
	for _, p := range []string{"/marketplace/" + goneSlug, "/marketplace/private-agent", "/marketplace/no-such-agent", "/marketplace/NOT_A_SLUG"} {
		status, h, body := getPage(t, l.http+p)
		if status != 404 || h.Get("X-Robots-Tag") != "noindex" || !strings.Contains(body, "<title>Agent not found | Agentic</title>") ||
			!strings.Contains(body, `src="/assets/index-v1.js"`) {
			t.Errorf("%s: %d %v\n%s", p, status, h, body)
		}
	}
	// An agent's chat and /marketplace are the SPA's, never the catalog's.
	for _, p := range []string{"/marketplace/" + tutorSlug + "/chat", "/marketplace"} {
		if status, _, _ := getPage(t, l.http+p); status != 404 {
			t.Errorf("%s: %d from the catalog", p, status)
		}
	}

	status, h, body = getPage(t, l.http+"/sitemap.xml")
	if status != 200 || h.Get("Content-Type") != "application/xml; charset=utf-8" {
		t.Fatalf("sitemap: %d %v\n%s", status, h, body)
	}
	for _, want := range []string{"<loc>https://agentic.test/</loc>", "<loc>https://agentic.test/marketplace</loc>",
		"<loc>https://agentic.test/marketplace/" + tutorSlug + "</loc>\n    <lastmod>", "<loc>https://agentic.test/marketplace/" + coachSlug + "</loc>"} {
		if !strings.Contains(body, want) {
			t.Errorf("sitemap lacks %s:\n%s", want, body)
		}
	}
	if strings.Contains(body, goneSlug) || strings.Contains(body, "private-agent") || strings.Count(body, "<url>") != 4 {
		t.Errorf("sitemap lists more than the listed agents:\n%s", body)
	}

	// The shell: read once for all the pages above, within its TTL.
	if n := hits.Load(); n != 1 {
		t.Errorf("%d reads of the shell within its TTL", n)
	}
}

// WEB_INDEX_URL and APP_BASE_URL: the local defaults (the local gateway's
// index.html, its origin), and a value that is not an http(s) URL (an
// APP_BASE_URL with a path) stops the service at start, naming it.
func TestPagesSettings(t *testing.T) {
	t.Setenv("APP_ENV", "development")
	t.Setenv("WEB_INDEX_URL", "")
	t.Setenv("APP_BASE_URL", "")
	c, err := LoadConfig()
	if err != nil {
		t.Fatal(err)
	}
	if c.WebIndexURL != "http://127.0.0.1:8080/index.html" || c.AppBaseURL != "http://localhost:8080" {
		t.Errorf("defaults: %q %q", c.WebIndexURL, c.AppBaseURL)
	}
	t.Setenv("WEB_INDEX_URL", "http://agentic-web.agentic.svc.cluster.local:8080/index.html")
	t.Setenv("APP_BASE_URL", "https://agentic.app/")
	if _, err := LoadConfig(); err != nil {
		t.Errorf("chart values: %v", err)
	}
	for k, v := range map[string]string{"WEB_INDEX_URL": "index.html", "APP_BASE_URL": "https://agentic.app/app"} {
		t.Run(k, func(t *testing.T) {
			t.Setenv(k, v)
			if _, err := LoadConfig(); err == nil || !strings.Contains(err.Error(), k) {
				t.Errorf("%s=%q: %v", k, v, err)
			}
		})
	}
	t.Setenv("APP_BASE_URL", "ftp://agentic.app")
	if _, err := LoadConfig(); err == nil || !strings.Contains(err.Error(), "APP_BASE_URL") {
		t.Errorf("ftp: %v", err)
	}
}
