package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentic-app/agentic/services/platform/observability"
)

// useRecorder installs a recording tracer provider (and the W3C propagator)
// as the global one for the test.
func useRecorder(t *testing.T) *tracetest.SpanRecorder {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		otel.SetTracerProvider(prevTP)
		otel.SetTextMapPropagator(prevProp)
	})
	return rec
}

type logRecord map[string]any

func parseLogs(t *testing.T, buf *bytes.Buffer) []logRecord {
	t.Helper()
	var out []logRecord
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if l == "" {
			continue
		}
		var m logRecord
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// requestLogs returns the "http request" records, optionally only those at level.
func requestLogs(recs []logRecord, level string) []logRecord {
	var out []logRecord
	for _, r := range recs {
		if r["msg"] == "http request" && (level == "" || r["level"] == level) {
			out = append(out, r)
		}
	}
	return out
}

func serve(h http.Handler, method, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w
}

func TestMiddlewareNamesSpansAfterRouteTemplates(t *testing.T) {
	spans := useRecorder(t)
	t.Setenv(RequestLogSampleEnv, "1")
	var buf bytes.Buffer
	logger := observability.NewLoggerTo(&buf, "test", "info")
	reg := prometheus.NewRegistry()
	mux := NewMux(reg)
	Route(mux, http.MethodGet, "/api/agents/{agentId}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		logger.InfoContext(r.Context(), "handler log")
		WriteJSON(w, 200, map[string]string{"id": r.PathValue("agentId")})
	}))
	Route(mux, http.MethodGet, "/api/panic", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic("boom")
	}))
	h := Middleware(mux, "test", logger, reg)

	for _, id := range []string{"abc123", "def456"} {
		if w := serve(h, "GET", "/api/agents/"+id); w.Code != 200 {
			t.Fatalf("GET /api/agents/%s: %d", id, w.Code)
		}
	}
	if w := serve(h, "GET", "/no/such/thing"); w.Code != 404 {
		t.Fatalf("404 route: %d", w.Code)
	}
	if w := serve(h, "GET", "/api/panic"); w.Code != 500 {
		t.Fatalf("panic: %d", w.Code)
	}

	ended := spans.Ended()
	if len(ended) != 4 {
		t.Fatalf("want 4 server spans, got %d", len(ended))
	}
	wantNames := []string{"GET /api/agents/{agentId}", "GET /api/agents/{agentId}", "GET", "GET /api/panic"}
	for i, s := range ended {
		if s.Name() != wantNames[i] {
			t.Errorf("span %d named %q, want %q", i, s.Name(), wantNames[i])
		}
	}
	var route string
	for _, a := range ended[0].Attributes() {
		if a.Key == "http.route" {
			route = a.Value.AsString()
		}
	}
	if route != "/api/agents/{agentId}" {
		t.Errorf("http.route = %q", route)
	}

	// Metrics are labelled with the template too (no per-id series).
	if got := testutil.ToFloat64(mustCounter(t, reg, "GET", "GET /api/agents/{agentId}", "200")); got != 2 {
		t.Errorf("http_requests_total for the template = %v, want 2", got)
	}
	if got := testutil.ToFloat64(mustCounter(t, reg, "GET", "GET /api/panic", "500")); got != 1 {
		t.Errorf("a recovered panic counts as a 500: %v", got)
	}
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if strings.Contains(l.GetValue(), "abc123") {
					t.Errorf("%s has a raw-path label %q", mf.GetName(), l.GetValue())
				}
			}
		}
	}

	// The handler's log and the request log carry the span's ids; so does
	// the recovered panic's.
	logs := parseLogs(t, &buf)
	first := ended[0].SpanContext()
	var handlerLog, panicLog logRecord
	for _, r := range logs {
		switch r["msg"] {
		case "handler log":
			if handlerLog == nil {
				handlerLog = r
			}
		case "panic in http handler":
			panicLog = r
		}
	}
	if handlerLog == nil || handlerLog["trace_id"] != first.TraceID().String() || handlerLog["span_id"] != first.SpanID().String() {
		t.Errorf("handler log %v, want trace %s span %s", handlerLog, first.TraceID(), first.SpanID())
	}
	reqLogs := requestLogs(logs, "")
	if len(reqLogs) != 4 {
		t.Fatalf("want 4 request logs, got %v", reqLogs)
	}
	if reqLogs[0]["trace_id"] != first.TraceID().String() || reqLogs[0]["route"] != "GET /api/agents/{agentId}" || reqLogs[0]["path"] != "/api/agents/abc123" {
		t.Errorf("request log %v", reqLogs[0])
	}
	if panicLog == nil || panicLog["trace_id"] != ended[3].SpanContext().TraceID().String() {
		t.Errorf("panic log %v, want trace %s", panicLog, ended[3].SpanContext().TraceID())
	}
	if reqLogs[3]["level"] != "ERROR" || reqLogs[3]["status"] != float64(500) {
		t.Errorf("panic request log %v", reqLogs[3])
	}
}

func TestMiddlewareContinuesIncomingTrace(t *testing.T) {
	spans := useRecorder(t)
	var buf bytes.Buffer
	logger := observability.NewLoggerTo(&buf, "test", "info")
	mux := NewMux(nil)
	Route(mux, http.MethodPost, "/api/agents", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		WriteJSON(w, 201, map[string]string{})
	}))
	h := Middleware(mux, "test", logger, nil)
	req := httptest.NewRequest("POST", "/api/agents", nil)
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	h.ServeHTTP(httptest.NewRecorder(), req)
	s := spans.Ended()[0]
	if s.SpanContext().TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || s.Parent().SpanID().String() != "00f067aa0ba902b7" {
		t.Fatalf("span %v parent %v", s.SpanContext(), s.Parent())
	}
	logs := requestLogs(parseLogs(t, &buf), "INFO")
	if len(logs) != 1 || logs[0]["trace_id"] != "4bf92f3577b34da6a3ce929d0e0e4736" || logs[0]["span_id"] != s.SpanContext().SpanID().String() {
		t.Fatalf("write request log %v", logs)
	}
}

func mustCounter(t *testing.T, reg *prometheus.Registry, method, route, code string) prometheus.Collector {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "http_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["method"] == method && labels["route"] == route && labels["code"] == code {
				return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "x"}, func() float64 { return m.GetCounter().GetValue() })
			}
		}
	}
	t.Fatalf("no http_requests_total{method=%q,route=%q,code=%q}", method, route, code)
	return nil
}

// samplingMux serves a hot read, a write, a failing read, a 404-ing read, a
// slow read and a slow event stream.
func samplingMux() *http.ServeMux {
	mux := NewMux(nil)
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { WriteJSON(w, 200, map[string]string{}) })
	Route(mux, http.MethodGet, "/api/hot", ok)
	Route(mux, http.MethodHead, "/api/hot", ok)
	Route(mux, http.MethodPost, "/api/hot", ok)
	Route(mux, http.MethodGet, "/api/broken", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { WriteError(w, ErrInternal) }))
	Route(mux, http.MethodGet, "/api/slow", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(30 * time.Millisecond)
		WriteJSON(w, 200, map[string]string{})
	}))
	Route(mux, http.MethodGet, "/api/stream", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		time.Sleep(30 * time.Millisecond)
	}))
	return mux
}

func TestRequestLogSampling(t *testing.T) {
	cases := []struct {
		sample   string
		wantInfo int // of 200 successful GET/HEAD requests
	}{
		{"", 2}, // default 1/100
		{"1/10", 20},
		{"0.25", 50},
		{"5%", 10},
		{"1", 200},
		{"0", 0},
		{"nonsense", 2}, // ignored with a warning: the default
	}
	for _, c := range cases {
		t.Run("sample="+c.sample, func(t *testing.T) {
			t.Setenv(RequestLogSampleEnv, c.sample)
			t.Setenv(RequestLogSlowEnv, "20ms")
			var buf bytes.Buffer
			logger := observability.NewLoggerTo(&buf, "test", "info")
			h := Middleware(samplingMux(), "test", logger, nil)
			for i := range 200 {
				method := "GET"
				if i%2 == 1 {
					method = "HEAD"
				}
				serve(h, method, "/api/hot")
			}
			for range 7 {
				serve(h, "POST", "/api/hot")
			}
			for range 5 {
				serve(h, "GET", "/api/broken")
			}
			for range 3 {
				serve(h, "GET", "/api/missing")
			}
			serve(h, "GET", "/api/slow")
			serve(h, "GET", "/api/stream")
			serve(h, "GET", "/healthz")

			logs := parseLogs(t, &buf)
			count := func(level, method, path string) int {
				n := 0
				for _, r := range requestLogs(logs, level) {
					if r["method"] == method && r["path"] == path {
						n++
					}
				}
				return n
			}
			hot := count("INFO", "GET", "/api/hot") + count("INFO", "HEAD", "/api/hot")
			if hot != c.wantInfo {
				t.Errorf("successful reads logged at INFO: %d of 200, want %d", hot, c.wantInfo)
			}
			if c.wantInfo > 0 {
				for _, r := range requestLogs(logs, "INFO") {
					if r["path"] == "/api/hot" && r["method"] != "POST" && r["sample_rate"] == nil {
						t.Errorf("sampled record without sample_rate: %v", r)
					}
				}
			}
			if n := count("INFO", "POST", "/api/hot"); n != 7 {
				t.Errorf("writes logged: %d of 7", n)
			}
			if n := count("ERROR", "GET", "/api/broken"); n != 5 {
				t.Errorf("5xx logged at ERROR: %d of 5", n)
			}
			if n := count("INFO", "GET", "/api/missing"); n != 3 {
				t.Errorf("404s logged: %d of 3", n)
			}
			if n := count("WARN", "GET", "/api/slow"); n != 1 {
				t.Errorf("slow read logged at WARN: %d", n)
			}
			if n := count("WARN", "GET", "/api/stream"); n != 0 {
				t.Errorf("an event stream is not slow: %d WARN records", n)
			}
			if n := len(requestLogs(logs, "DEBUG")); n != 0 {
				t.Errorf("DEBUG records written at level info: %d", n)
			}
			if c.sample == "nonsense" && !strings.Contains(buf.String(), "ignoring "+RequestLogSampleEnv) {
				t.Error("an invalid REQUEST_LOG_SAMPLE is not reported")
			}
		})
	}
}

func TestRequestLogSamplingAtDebugLogsTheRest(t *testing.T) {
	t.Setenv(RequestLogSampleEnv, "1/4")
	var buf bytes.Buffer
	logger := observability.NewLoggerTo(&buf, "test", "debug")
	h := Middleware(samplingMux(), "test", logger, nil)
	for range 100 {
		serve(h, "GET", "/api/hot")
	}
	logs := parseLogs(t, &buf)
	if info, debug := len(requestLogs(logs, "INFO")), len(requestLogs(logs, "DEBUG")); info != 25 || debug != 75 {
		t.Fatalf("INFO %d DEBUG %d, want 25 and 75", info, debug)
	}
	// The first request is always among the sampled ones.
	if first := requestLogs(logs, "")[0]; first["level"] != "INFO" || first["sample_rate"] != 0.25 {
		t.Fatalf("first request log %v", first)
	}
}

func TestParseSampleRate(t *testing.T) {
	good := map[string]float64{"0": 0, "1": 1, "0.01": 0.01, "1/100": 0.01, " 1 / 4 ": 0.25, "50%": 0.5, "3/3": 1}
	for in, want := range good {
		if got, err := ParseSampleRate(in); err != nil || got != want {
			t.Errorf("ParseSampleRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "2", "-0.1", "1/0", "150%", "NaN", "1/x"} {
		if _, err := ParseSampleRate(in); err == nil {
			t.Errorf("ParseSampleRate(%q) accepted", in)
		}
	}
}

func TestMiddlewareRegistersBuildInfo(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := Middleware(NewMux(reg), "catalog", slog.New(slog.DiscardHandler), reg)
	w := serve(h, "GET", "/metrics")
	body := w.Body.String()
	if w.Code != 200 || !strings.Contains(body, `agentic_build_info{go_version="go`) || !strings.Contains(body, `service="catalog"`) {
		t.Fatalf("/metrics: %d\n%s", w.Code, body)
	}
	// A second Middleware on the same registry (a service with two HTTP
	// handlers) does not panic.
	Middleware(NewMux(nil), "catalog", nil, reg)
}

// BenchmarkRequestLog compares the middleware's cost per hot read when every
// request is logged and at the default sample (JSON to a discarding writer;
// under Tilt the log also crosses a pipe and Tilt's log store).
func BenchmarkRequestLog(b *testing.B) {
	for _, sample := range []string{"1", "1/100", "0"} {
		b.Run("sample="+sample, func(b *testing.B) {
			b.Setenv(RequestLogSampleEnv, sample)
			logger := observability.NewLoggerTo(io.Discard, "bench", "info")
			mux := NewMux(nil)
			Route(mux, http.MethodGet, "/api/agents/{agentId}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusNoContent)
			}))
			h := Middleware(mux, "bench", logger, nil)
			req := httptest.NewRequest("GET", "/api/agents/abc123", nil)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				h.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}
