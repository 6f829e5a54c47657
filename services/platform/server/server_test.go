package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

func decode(t *testing.T, body io.Reader) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.NewDecoder(body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMuxOperationalEndpointsAndErrors(t *testing.T) {
	reg := prometheus.NewRegistry()
	dbUp := atomic.Bool{}
	mux := NewMux(reg,
		Check{Name: "db", Fn: func(context.Context) error {
			if dbUp.Load() {
				return nil
			}
			return errors.New("connection refused")
		}},
		Check{Name: "kafka", Fn: func(context.Context) error { return nil }},
	)
	Route(mux, http.MethodPost, "/api/thing", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		WriteJSON(w, 200, map[string]any{"success": true})
	}))
	Route(mux, http.MethodGet, "/api/panic", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic("boom")
	}))
	h := Middleware(mux, "test", nil, reg)
	srv := httptest.NewServer(h)
	defer srv.Close()

	do := func(method, path string) (*http.Response, map[string]any) {
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			return resp, decode(t, resp.Body)
		}
		return resp, nil
	}

	if resp, body := do("GET", "/healthz"); resp.StatusCode != 200 || body["status"] != "ok" {
		t.Fatalf("healthz: %d %v", resp.StatusCode, body)
	}
	resp, body := do("GET", "/readyz")
	if resp.StatusCode != 503 || body["checks"].(map[string]any)["db"] != "connection refused" || body["checks"].(map[string]any)["kafka"] != "ok" {
		t.Fatalf("readyz (db down): %d %v", resp.StatusCode, body)
	}
	dbUp.Store(true)
	if resp, body := do("GET", "/readyz"); resp.StatusCode != 200 || body["status"] != "ready" {
		t.Fatalf("readyz: %d %v", resp.StatusCode, body)
	}
	if resp, body := do("POST", "/api/thing"); resp.StatusCode != 200 || body["success"] != true {
		t.Fatalf("route: %d %v", resp.StatusCode, body)
	}
	resp, body = do("GET", "/api/thing")
	if resp.StatusCode != 405 || body["error"] != "method_not_allowed" || resp.Header.Get("Allow") != "POST" {
		t.Fatalf("405: %d %v %v", resp.StatusCode, body, resp.Header)
	}
	if resp, body := do("GET", "/nope"); resp.StatusCode != 404 || body["error"] != "not_found" {
		t.Fatalf("404: %d %v", resp.StatusCode, body)
	}
	if resp, body := do("GET", "/api/panic"); resp.StatusCode != 500 || body["error"] != "internal" || body["message"] != "Internal server error" {
		t.Fatalf("panic: %d %v", resp.StatusCode, body)
	}
	resp, _ = do("GET", "/metrics")
	if resp.StatusCode != 200 {
		t.Fatalf("metrics: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/metrics", nil)
	mresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(mresp.Body)
	mresp.Body.Close()
	for _, want := range []string{
		`http_requests_total{code="200",method="POST",route="POST /api/thing"} 1`,
		`http_requests_total{code="404",method="GET",route="unmatched"} 1`,
		`http_requests_total{code="405",method="GET",route="/api/thing"} 1`,
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("metrics missing %q", want)
		}
	}
}

func TestRunServesAndShutsDownGracefully(t *testing.T) {
	gs, hs := NewGRPCServer(nil)
	var workerStopped atomic.Bool
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan [2]net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, RunConfig{
			HTTPAddr:    "127.0.0.1:0",
			HTTPHandler: NewMux(nil),
			GRPCAddr:    "127.0.0.1:0",
			GRPCServer:  gs,
			GRPCHealth:  hs,
			Workers: []Worker{{Name: "w", Run: func(ctx context.Context) error {
				<-ctx.Done()
				workerStopped.Store(true)
				return nil
			}}},
			ShutdownTimeout: 5 * time.Second,
			Ready:           func(h, g net.Addr) { ready <- [2]net.Addr{h, g} },
		})
	}()
	addrs := <-ready

	resp, err := http.Get("http://" + addrs[0].String() + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	resp.Body.Close()

	// Peers reach it the way services dial each other.
	conn, err := DialGRPC(addrs[1].String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hr, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
	if err != nil || hr.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("grpc health: %v %v", hr, err)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
	if !workerStopped.Load() {
		t.Fatal("worker not stopped")
	}
	if _, err := http.Get("http://" + addrs[0].String() + "/healthz"); err == nil {
		t.Fatal("http still serving after shutdown")
	}
}

func TestRunFailsOnBusyPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	start := time.Now()
	err = Run(context.Background(), RunConfig{HTTPAddr: ln.Addr().String(), HTTPHandler: NewMux(nil), ListenWait: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "listen http") {
		t.Fatalf("err = %v", err)
	}
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Fatalf("gave up after %s, before ListenWait", waited)
	}
}

// A restarted process starts while its predecessor still drains: it waits
// for the port instead of exiting.
func TestRunWaitsForAPortBeingReleased(t *testing.T) {
	old, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := old.Addr().String()
	time.AfterFunc(300*time.Millisecond, func() { _ = old.Close() })
	h, stop := runUntilReady(t, RunConfig{HTTPAddr: addr, HTTPHandler: NewMux(nil), ListenWait: 10 * time.Second})
	if h.String() != addr {
		t.Fatalf("listening on %s, want %s", h, addr)
	}
	res, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	stop()
}

// runUntilReady starts Run with cfg and returns its HTTP address once its
// listeners are open, and a stop that cancels it and expects a clean exit.
func runUntilReady(t *testing.T, cfg RunConfig) (net.Addr, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ready := make(chan net.Addr, 1)
	cfg.Ready = func(h, _ net.Addr) { ready <- h }
	go func() { done <- Run(ctx, cfg) }()
	select {
	case h := <-ready:
		return h, func() {
			t.Helper()
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("Run: %v", err)
			}
		}
	case err := <-done:
		cancel()
		t.Fatalf("Run gave up: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("Run not ready after 10 s")
	}
	return nil, nil
}
