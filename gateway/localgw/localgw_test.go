package localgw_test

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentic-app/agentic/gateway"
	"github.com/agentic-app/agentic/gateway/localgw"
	"github.com/agentic-app/agentic/gateway/routes"
)

// newGateway starts the gateway with identity pointing at upstream and every
// other service at a closed port.
func newGateway(t *testing.T, upstream string) *httptest.Server {
	t.Helper()
	return newGatewayWith(t, map[string]string{"identity": upstream})
}

// newGatewayWith starts the gateway with the given services pointing at their
// upstreams and every other service at a closed port.
func newGatewayWith(t *testing.T, upstreams map[string]string) *httptest.Server {
	t.Helper()
	return newGatewayLogged(t, upstreams, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// newGatewayLogged is newGatewayWith with the gateway's logger.
func newGatewayLogged(t *testing.T, upstreams map[string]string, logger *slog.Logger) *httptest.Server {
	t.Helper()
	table, err := routes.Parse(gateway.RoutesYAML)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "index.html"), []byte("<html>spa</html>"), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "assets"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "assets", "app-1234.js"), []byte("console.log(1)"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "assets", "big-5678.js"), []byte(strings.Repeat("console.log('agentic');\n", 1000)), 0o644))
	// web/public's static sitemap, which the catalog's page route replaces.
	must(t, os.WriteFile(filepath.Join(dir, "sitemap.xml"), []byte("<urlset>static</urlset>"), 0o644))

	closed := closedAddr(t)
	ups := map[string]string{}
	for name := range table.Services {
		ups[name] = closed
	}
	for name, addr := range upstreams {
		ups[name] = addr
	}
	h, err := localgw.New(localgw.Config{Table: table, Upstreams: ups, StaticDir: dir, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func closedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestProxiesAPIToOwningServiceWithHeadersAndBody(t *testing.T) {
	var gotPath, gotAuth, gotBody, gotFwd string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotAuth, gotFwd = r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("X-Forwarded-Host")
		b, _ := io.ReadAll(r.Body)
		gotBody = string(b)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		_, _ = w.Write([]byte(`{"success":true}`))
	}))
	defer up.Close()
	gw := newGateway(t, strings.TrimPrefix(up.URL, "http://"))

	req, _ := http.NewRequest(http.MethodPost, gw.URL+"/api/user/onboarding", strings.NewReader(`{"displayName":"Ada"}`))
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != 201 || gotPath != "/api/user/onboarding" || gotAuth != "Bearer tok" || gotBody != `{"displayName":"Ada"}` || gotFwd == "" {
		t.Fatalf("status=%d path=%q auth=%q body=%q fwd=%q", resp.StatusCode, gotPath, gotAuth, gotBody, gotFwd)
	}
}

// Every /api answer carries X-Request-Id, the trace id the service sees in
// traceparent (so its logs carry it as trace_id): started here when the
// caller sent none, the caller's otherwise, and on the gateway's own 404
// and 502 too. A service's own header is not doubled.
func TestRequestIDIsTheTraceIDTheServiceSees(t *testing.T) {
	var seen string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.Header.Get("Traceparent")
		if r.URL.Path == "/api/user/onboarding" { // a service that answers its own id
			id, _ := localgw.TraceID(seen)
			w.Header().Set("X-Request-Id", id)
		}
		w.WriteHeader(200)
	}))
	defer up.Close()
	addr := strings.TrimPrefix(up.URL, "http://")
	gw := newGatewayWith(t, map[string]string{"identity": addr, "catalog": addr})
	for _, path := range []string{"/api/agents", "/api/user/onboarding"} {
		resp, _ := get(t, gw.URL+path)
		id, ok := localgw.TraceID(seen)
		if !ok || resp.Header.Values("X-Request-Id") == nil || len(resp.Header.Values("X-Request-Id")) != 1 || resp.Header.Get("X-Request-Id") != id {
			t.Fatalf("%s: traceparent %q, X-Request-Id %v", path, seen, resp.Header.Values("X-Request-Id"))
		}
	}
	first := seen
	req, _ := http.NewRequest("GET", gw.URL+"/api/agents", nil)
	req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.Header.Get("X-Request-Id") != "4bf92f3577b34da6a3ce929d0e0e4736" || seen == first {
		t.Fatalf("caller's trace: %q (service saw %q)", resp.Header.Get("X-Request-Id"), seen)
	}
	for _, c := range []struct{ addr, path string }{{addr, "/api/nope"}, {closedAddr(t), "/api/agents"}} {
		resp, _ := get(t, newGateway(t, c.addr).URL+c.path)
		if _, ok := localgw.TraceID("00-" + resp.Header.Get("X-Request-Id") + "-00f067aa0ba902b7-01"); !ok || resp.StatusCode < 400 {
			t.Fatalf("gateway's own %d for %s: X-Request-Id %q", resp.StatusCode, c.path, resp.Header.Get("X-Request-Id"))
		}
	}
}

// Every response — the SPA's page and files, a proxied /api answer, the
// gateway's own 404 and 502 — carries the security headers once, the CSP
// with this environment's extra origins in connect-src and frame-src.
func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff") // as the services' JSON does
		w.WriteHeader(200)
	}))
	defer up.Close()
	table, err := routes.Parse(gateway.RoutesYAML)
	must(t, err)
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "index.html"), []byte("<html>spa</html>"), 0o644))
	ups := map[string]string{}
	for name := range table.Services {
		ups[name] = closedAddr(t)
	}
	ups["identity"] = strings.TrimPrefix(up.URL, "http://")
	h, err := localgw.New(localgw.Config{Table: table, Upstreams: ups, StaticDir: dir,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), CSPExtraOrigins: []string{"http://127.0.0.1:9099"}})
	must(t, err)
	gw := httptest.NewServer(h)
	defer gw.Close()
	for _, path := range []string{"/", "/dashboard/wallet", "/api/user/onboarding", "/api/nope", "/api/agents"} {
		resp, _ := get(t, gw.URL+path)
		csp := resp.Header.Values("Content-Security-Policy")
		if len(csp) != 1 || !strings.Contains(csp[0], "frame-ancestors 'none'") || !strings.Contains(csp[0], "object-src 'none'") ||
			!strings.Contains(csp[0], "base-uri 'self'") || !strings.Contains(csp[0], "img-src 'self' data: blob:;") ||
			!regexp.MustCompile(`connect-src [^;]*https://identitytoolkit.googleapis.com[^;]* http://127.0.0.1:9099(;|$)`).MatchString(csp[0]) ||
			!regexp.MustCompile(`frame-src [^;]* http://127.0.0.1:9099(;|$)`).MatchString(csp[0]) {
			t.Fatalf("%s: CSP %q", path, csp)
		}
		if v := resp.Header.Values("X-Content-Type-Options"); len(v) != 1 || v[0] != "nosniff" ||
			resp.Header.Get("Referrer-Policy") != "strict-origin-when-cross-origin" || !strings.Contains(resp.Header.Get("Permissions-Policy"), "camera=()") {
			t.Fatalf("%s (%d): headers %v", path, resp.StatusCode, resp.Header)
		}
	}
}

func TestUnknownAPIPathIsJSON404(t *testing.T) {
	gw := newGateway(t, closedAddr(t))
	resp, body := get(t, gw.URL+"/api/nope")
	var e map[string]string
	if resp.StatusCode != 404 || json.Unmarshal([]byte(body), &e) != nil || e["error"] != "not_found" || e["message"] == "" {
		t.Fatalf("got %d %s", resp.StatusCode, body)
	}
}

// The services log the requests they answer; the gateway adds a line only
// where it knows more: its own refusals and failures.
func TestAccessLogLeavesAnsweredRequestsToTheServices(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer up.Close()
	out, logger := captureLogs()
	gw := newGatewayLogged(t, map[string]string{"identity": strings.TrimPrefix(up.URL, "http://")}, logger)

	logged := func() string {
		var levels []string
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) == nil {
				levels = append(levels, rec["level"].(string)+" "+rec["msg"].(string))
			}
		}
		return strings.Join(levels, "; ")
	}
	// levelOf sends one request and returns what it logged. The access
	// line is written once the response is sent, so it may come a moment
	// after the client has read it: wait for it (and, for nothing, a while).
	levelOf := func(method, path, want string) string {
		t.Helper()
		out.Reset()
		req, _ := http.NewRequest(method, gw.URL+path, nil)
		resp, err := http.DefaultClient.Do(req)
		must(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		deadline := time.Now().Add(2 * time.Second)
		if want == "" {
			deadline = time.Now().Add(100 * time.Millisecond)
		}
		for time.Now().Before(deadline) && (want == "" || logged() != want) {
			time.Sleep(5 * time.Millisecond)
		}
		return logged()
	}
	for _, c := range []struct{ method, path, want string }{
		{"GET", "/api/user/public-agent-interest", "DEBUG request"},   // answered: the service's log has it
		{"POST", "/api/user/onboarding", "DEBUG request"},             // writes too
		{"DELETE", "/api/user/public-agent-interest", "WARN request"}, // a service's failure
		{"GET", "/api/agents", "WARN upstream unavailable; WARN request"},
		{"GET", "/api/nope", "INFO no API route; DEBUG request"},
		{"GET", "/dashboard", ""}, // the SPA
		{"POST", "/dashboard", "INFO request"},
		// A page the table gives a service (the catalog, down here) is logged as /api is.
		{"GET", "/marketplace/math-tutor", "WARN upstream unavailable; WARN request"},
	} {
		if got := levelOf(c.method, c.path, c.want); got != c.want {
			t.Errorf("%s %s logged %q, want %q", c.method, c.path, got, c.want)
		}
	}
}

// A browser that leaves while a service is still working (a navigation, a
// Stop) is not the service failing: the gateway records a 499 at DEBUG, not
// "upstream unavailable" and a 502 at WARN.
func TestClientThatLeavesIsA499NotAnUpstreamFailure(t *testing.T) {
	arrived := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done() // still working when the client leaves
	}))
	defer up.Close()
	out, logger := captureLogs()
	gw := newGatewayLogged(t, map[string]string{"identity": strings.TrimPrefix(up.URL, "http://")}, logger)

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, gw.URL+"/api/user/public-agent-interest", nil)
	go func() { <-arrived; cancel() }()
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.Canceled) {
		t.Fatalf("request: %v, want it cancelled", err)
	}
	var got map[string]any
	for deadline := time.Now().Add(2 * time.Second); got == nil && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		logs := out.String()
		for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "request" {
				got = rec
			}
		}
		if strings.Contains(logs, "upstream unavailable") {
			t.Fatalf("logged as an upstream failure: %s", logs)
		}
	}
	if got == nil || got["level"] != "DEBUG" || got["status"] != float64(499) {
		t.Fatalf("access log %v, want DEBUG with status 499", got)
	}
}

// logCapture is what a test's logger wrote, safe to read while the gateway
// writes.
type logCapture struct {
	mu  sync.Mutex
	out strings.Builder
}

func (c *logCapture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.Write(p)
}

func (c *logCapture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

func (c *logCapture) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out.Reset()
}

// captureLogs returns a JSON logger at DEBUG and what it writes.
func captureLogs() (*logCapture, *slog.Logger) {
	c := &logCapture{}
	return c, slog.New(slog.NewJSONHandler(c, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func TestDownUpstreamIsJSON502(t *testing.T) {
	gw := newGateway(t, closedAddr(t))
	resp, body := get(t, gw.URL+"/api/agents")
	var e map[string]string
	if resp.StatusCode != 502 || json.Unmarshal([]byte(body), &e) != nil || !strings.Contains(e["message"], "catalog") {
		t.Fatalf("got %d %s", resp.StatusCode, body)
	}
}

func TestSPAFallbackAndAssets(t *testing.T) {
	gw := newGateway(t, closedAddr(t))
	for _, p := range []string{"/", "/auth", "/dashboard/agentic-users", "/no/such/page"} {
		resp, body := get(t, gw.URL+p)
		if resp.StatusCode != 200 || body != "<html>spa</html>" || resp.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("%s: %d %q cache=%q", p, resp.StatusCode, body, resp.Header.Get("Cache-Control"))
		}
	}
	resp, body := get(t, gw.URL+"/assets/app-1234.js")
	if resp.StatusCode != 200 || body != "console.log(1)" || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("asset: %d %q %q", resp.StatusCode, body, resp.Header.Get("Cache-Control"))
	}
	// Traversal outside the static dir falls back to the SPA, never a file.
	resp, body = get(t, gw.URL+"/../../etc/passwd")
	if resp.StatusCode != 200 || body != "<html>spa</html>" {
		t.Errorf("traversal: %d %q", resp.StatusCode, body)
	}
}

func TestStaticFilesAreCompressedForClientsThatAcceptGzip(t *testing.T) {
	gw := newGateway(t, closedAddr(t))
	req, _ := http.NewRequest(http.MethodGet, gw.URL+"/assets/big-5678.js", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	// RoundTrip: the default client would decompress transparently.
	resp, err := http.DefaultTransport.RoundTrip(req)
	must(t, err)
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("asset: %d encoding=%q", resp.StatusCode, resp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(resp.Body)
	must(t, err)
	body, err := io.ReadAll(zr)
	must(t, err)
	if string(body) != strings.Repeat("console.log('agentic');\n", 1000) {
		t.Fatalf("decompressed body differs (%d bytes)", len(body))
	}
	// Clients that do not accept gzip get the plain file.
	req, _ = http.NewRequest(http.MethodGet, gw.URL+"/assets/big-5678.js", nil)
	req.Header.Set("Accept-Encoding", "identity") // else the transport asks for gzip itself
	plain, err := http.DefaultTransport.RoundTrip(req)
	must(t, err)
	plain.Body.Close()
	if plain.Header.Get("Content-Encoding") != "" {
		t.Fatalf("plain client got %q", plain.Header.Get("Content-Encoding"))
	}
}

func TestNonGetOutsideAPIIs405(t *testing.T) {
	gw := newGateway(t, closedAddr(t))
	resp, err := http.Post(gw.URL+"/dashboard", "text/plain", strings.NewReader("x"))
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Fatalf("got %d", resp.StatusCode)
	}
}

// A streamed answer must reach the browser event by event: the gateway may
// not hold the first event back until the upstream finishes.
func TestEventStreamIsNotBuffered(t *testing.T) {
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		_, _ = io.WriteString(w, "event: delta\ndata: {\"text\":\"Hello\"}\n\n")
		w.(http.Flusher).Flush()
		<-release // the rest of the answer comes only after the client saw the first event
		_, _ = io.WriteString(w, "event: done\ndata: {}\n\n")
	}))
	defer up.Close()
	defer close(release)
	gw := newGatewayWith(t, map[string]string{"conversations": strings.TrimPrefix(up.URL, "http://")})

	req, _ := http.NewRequest(http.MethodPost, gw.URL+"/api/conversations/c1/messages", strings.NewReader(`{}`))
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	first := make(chan string, 1)
	go func() {
		buf := make([]byte, 256)
		n, _ := resp.Body.Read(buf)
		first <- string(buf[:n])
	}()
	select {
	case got := <-first:
		if !strings.Contains(got, "Hello") {
			t.Fatalf("first read = %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the first event was buffered by the gateway")
	}
}

// The gateway keeps its upstream connections alive for reuse: a second
// round of concurrent requests is served on the connections of the first
// (net/http's default pool of 2 idle connections per host had dialled a new
// one for nearly every request).
func TestUpstreamConnectionsAreReused(t *testing.T) {
	const concurrent = 20
	var mu sync.Mutex
	dialled := 0
	arrived := make(chan struct{}, concurrent)
	release := make(chan struct{})
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"success":true}`))
	}))
	up.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			dialled++
			mu.Unlock()
		}
	}
	up.Start()
	t.Cleanup(up.Close)
	gw := newGateway(t, strings.TrimPrefix(up.URL, "http://"))

	round := func() {
		var wg sync.WaitGroup
		for range concurrent {
			wg.Go(func() {
				res, err := http.Get(gw.URL + "/api/user/onboarding")
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
			})
		}
		// All requests in flight at once, so the first round needs one
		// connection each.
		for range concurrent {
			select {
			case <-arrived:
			case <-time.After(10 * time.Second):
				t.Fatal("requests did not reach the upstream")
			}
		}
		release <- struct{}{}
		for range concurrent - 1 {
			release <- struct{}{}
		}
		wg.Wait()
	}
	round()
	mu.Lock()
	first := dialled
	mu.Unlock()
	if first != concurrent {
		t.Fatalf("first round dialled %d connections, want %d", first, concurrent)
	}
	round()
	mu.Lock()
	defer mu.Unlock()
	if extra := dialled - first; extra != 0 {
		t.Fatalf("second round dialled %d new connections, want 0 (the first round's were kept alive)", extra)
	}
}

// The pages the route table gives a service (the catalog's agent pages and
// sitemap.xml) reach it before the SPA's files, whatever the method (the
// service answers 405 itself), with the security headers and a request id;
// the SPA keeps /marketplace, an agent's chat and every other path.
func TestPagesReachTheirServiceBeforeTheSPA(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("<html>catalog</html>"))
	}))
	defer up.Close()
	gw := newGatewayWith(t, map[string]string{"catalog": strings.TrimPrefix(up.URL, "http://")})
	for _, p := range []string{"/marketplace/math-tutor", "/sitemap.xml"} {
		resp, body := get(t, gw.URL+p)
		if resp.StatusCode != 404 || body != "<html>catalog</html>" || resp.Header.Get("X-Request-Id") == "" ||
			!strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'self'") || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d %q %v", p, resp.StatusCode, body, resp.Header)
		}
	}
	resp, err := http.Post(gw.URL+"/marketplace/math-tutor", "text/plain", strings.NewReader("x"))
	must(t, err)
	resp.Body.Close()
	for _, p := range []string{"/marketplace", "/marketplace/", "/marketplace/math-tutor/chat", "/dashboard/marketplace"} {
		resp, body := get(t, gw.URL+p)
		if resp.StatusCode != 200 || body != "<html>spa</html>" {
			t.Errorf("%s: %d %q, want the SPA", p, resp.StatusCode, body)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(seen, ",") != "GET /marketplace/math-tutor,GET /sitemap.xml,POST /marketplace/math-tutor" {
		t.Errorf("the catalog saw %v", seen)
	}
}

// /index.html is the SPA's shell as a file (200, not http.ServeFile's
// redirect to /): the catalog reads it there (WEB_INDEX_URL) to render the
// agent pages, and it never goes to a service.
func TestIndexHTMLIsTheShellItself(t *testing.T) {
	gw := newGateway(t, closedAddr(t))
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(gw.URL + "/index.html")
	must(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != "<html>spa</html>" || resp.Header.Get("Cache-Control") != "no-cache" ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("/index.html: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	// Conditional requests work on it as on any file.
	req, _ := http.NewRequest(http.MethodGet, gw.URL+"/index.html", nil)
	req.Header.Set("If-Modified-Since", resp.Header.Get("Last-Modified"))
	again, err := client.Do(req)
	must(t, err)
	again.Body.Close()
	if again.StatusCode != http.StatusNotModified {
		t.Fatalf("conditional /index.html: %d", again.StatusCode)
	}
}
