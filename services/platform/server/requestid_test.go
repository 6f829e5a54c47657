package server

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/agentic-app/agentic/services/platform/observability"
)

var traceIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// With tracing off (the local default: a no-op provider), every answer —
// a route's, a 404, a 405 — still carries an X-Request-Id, distinct per
// request, and the request's log line carries it as trace_id; and every
// answer says nosniff.
func TestEveryAnswerCarriesItsRequestID(t *testing.T) {
	otel.SetTracerProvider(noop.NewTracerProvider())
	otel.SetTextMapPropagator(propagation.TraceContext{})
	var buf bytes.Buffer
	logger := observability.NewLoggerTo(&buf, "test", "info")
	mux := NewMux(nil)
	Route(mux, http.MethodPost, "/api/things", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		WriteJSON(w, 201, map[string]string{})
	}))
	h := Middleware(mux, "test", logger, nil)

	seen := map[string]bool{}
	for _, c := range []struct {
		method, path string
		status       int
	}{{"POST", "/api/things", 201}, {"GET", "/api/things", 405}, {"GET", "/api/nothing", 404}, {"POST", "/api/things", 201}} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
		id := rec.Header().Get(HeaderRequestID)
		if rec.Code != c.status || !traceIDPattern.MatchString(id) || seen[id] || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("%s %s: %d, request id %q (seen %v)", c.method, c.path, rec.Code, id, seen)
		}
		seen[id] = true
	}
	logs := requestLogs(parseLogs(t, &buf), "INFO")
	if len(logs) == 0 {
		t.Fatal("no request log")
	}
	for _, l := range logs {
		if id, _ := l["trace_id"].(string); !seen[id] {
			t.Fatalf("request log %v does not carry an answered request id", l)
		}
	}
}

// A request that continues a trace (the gateway's traceparent) answers that
// trace's id.
func TestRequestIDIsTheIncomingTraceID(t *testing.T) {
	otel.SetTracerProvider(noop.NewTracerProvider())
	otel.SetTextMapPropagator(propagation.TraceContext{})
	h := Middleware(NewMux(nil), "test", observability.NewLoggerTo(&bytes.Buffer{}, "test", "info"), nil)
	req := httptest.NewRequest("GET", "/healthz", nil)
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if got := rec.Header().Get(HeaderRequestID); got != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Fatalf("request id %q", got)
	}
}
