package endpointmw_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/go-kit/kit/endpoint"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/endpointmw"
	"github.com/agentic-app/agentic/services/platform/server"
)

var (
	errNotFound    = errors.New("not found")
	errUnavailable = errors.New("dependency down")
)

// classify is a service-like classifier: its own not-found error is a client
// error, its own dependency error "unavailable".
var classify = endpointmw.Default(
	endpointmw.ClientErrors(func(err error) bool { return errors.Is(err, errNotFound) }),
	func(err error) string {
		if errors.Is(err, errUnavailable) {
			return endpointmw.OutcomeUnavailable
		}
		return ""
	},
)

func failing(err error) endpoint.Endpoint {
	return func(context.Context, any) (any, error) { return "resp", err }
}

func TestDefault(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, "success"},
		{fmt.Errorf("wrapped: %w", errNotFound), "client_error"},
		{errUnavailable, "unavailable"},
		{server.BadRequest("invalid_request", "bad"), "client_error"},
		{fmt.Errorf("wrapped: %w", &server.Error{Status: http.StatusNotFound}), "client_error"},
		{server.ErrInternal, "error"},
		{context.Canceled, "canceled"},
		{fmt.Errorf("query: %w", context.Canceled), "canceled"},
		{context.DeadlineExceeded, "error"},
		{errors.New("boom"), "error"},
	} {
		if got := classify(tc.err); got != tc.want {
			t.Errorf("classify(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	if got := endpointmw.Default()(errNotFound); got != "error" {
		t.Errorf("Default()(errNotFound) = %q, want error", got)
	}
}

// recorder is a slog.Handler keeping every record (with its context).
type recorder struct {
	mu      sync.Mutex
	records []slog.Record
	ctxs    []context.Context
	onLog   func(context.Context)
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *recorder) WithGroup(string) slog.Handler            { return r }
func (r *recorder) Handle(ctx context.Context, rec slog.Record) error {
	if r.onLog != nil {
		r.onLog(ctx)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, rec)
	r.ctxs = append(r.ctxs, ctx)
	return nil
}

func attrs(rec slog.Record) map[string]string {
	m := map[string]string{}
	rec.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	return m
}

func TestLoggingLevelByOutcome(t *testing.T) {
	for _, tc := range []struct {
		err     error
		level   slog.Level
		outcome string
	}{
		{nil, slog.LevelDebug, "success"},
		{errNotFound, slog.LevelDebug, "client_error"},
		{context.Canceled, slog.LevelDebug, "canceled"},
		{errUnavailable, slog.LevelWarn, "unavailable"},
		{errors.New("boom"), slog.LevelError, "error"},
	} {
		rec := &recorder{}
		e := endpointmw.Logging(slog.New(rec), classify)("GetThing")(failing(tc.err))
		ctx := auth.NewContext(context.Background(), auth.Claims{UID: "u1"})
		resp, err := e(ctx, nil)
		if resp != "resp" || !errors.Is(err, tc.err) {
			t.Fatalf("endpoint result changed: %v, %v", resp, err)
		}
		if len(rec.records) != 1 {
			t.Fatalf("%v: %d records, want 1", tc.err, len(rec.records))
		}
		r := rec.records[0]
		a := attrs(r)
		if r.Level != tc.level || r.Message != "endpoint call" || a["outcome"] != tc.outcome || a["method"] != "GetThing" || a["uid"] != "u1" {
			t.Errorf("%v: logged %s %q %v, want level %s outcome %s", tc.err, r.Level, r.Message, a, tc.level, tc.outcome)
		}
		if _, ok := a["duration_ms"]; !ok {
			t.Errorf("%v: no duration_ms in %v", tc.err, a)
		}
		if tc.err == nil {
			if _, ok := a["error"]; ok {
				t.Errorf("success logged an error attribute: %v", a)
			}
		} else if a["error"] != tc.err.Error() {
			t.Errorf("%v: error attribute %q", tc.err, a["error"])
		}
	}
}

func TestLoggingWithoutClaims(t *testing.T) {
	rec := &recorder{}
	_, _ = endpointmw.Logging(slog.New(rec), classify)("M")(failing(nil))(context.Background(), nil)
	if _, ok := attrs(rec.records[0])["uid"]; ok {
		t.Errorf("uid logged without claims: %v", attrs(rec.records[0]))
	}
}

func TestInstrumentingLabels(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	mw := endpointmw.Instrumenting("widgets", reg, classify)
	_, _ = mw("Get")(failing(nil))(context.Background(), nil)
	_, _ = mw("Get")(failing(nil))(context.Background(), nil)
	_, _ = mw("Get")(failing(errNotFound))(context.Background(), nil)
	_, _ = mw("Put")(failing(errors.New("boom")))(context.Background(), nil)

	want := `
# HELP widgets_requests_total Widgets service calls by method and outcome.
# TYPE widgets_requests_total counter
widgets_requests_total{method="Get",outcome="client_error"} 1
widgets_requests_total{method="Get",outcome="success"} 2
widgets_requests_total{method="Put",outcome="error"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "widgets_requests_total"); err != nil {
		t.Error(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, mf := range mfs {
		if mf.GetName() != "widgets_request_duration_seconds" {
			continue
		}
		found = true
		if mf.GetHelp() != "Widgets service call latency by method and outcome." {
			t.Errorf("histogram help %q", mf.GetHelp())
		}
		counts := map[string]uint64{}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			counts[labels["method"]+"/"+labels["outcome"]] = m.GetHistogram().GetSampleCount()
		}
		wantCounts := map[string]uint64{"Get/success": 2, "Get/client_error": 1, "Put/error": 1}
		if fmt.Sprint(counts) != fmt.Sprint(wantCounts) {
			t.Errorf("histogram samples %v, want %v", counts, wantCounts)
		}
	}
	if !found {
		t.Error("widgets_request_duration_seconds not registered")
	}

	// A second middleware for the same service on the same registry reuses
	// the collectors instead of panicking.
	_, _ = endpointmw.Instrumenting("widgets", reg, classify)("Get")(failing(nil))(context.Background(), nil)
	if got := counterValue(t, reg, "widgets_requests_total", "Get", "success"); got != 3 {
		t.Errorf("after re-registration Get/success = %v, want 3", got)
	}
	// reg may be nil.
	_, _ = endpointmw.Instrumenting("widgets", nil, classify)("Get")(failing(nil))(context.Background(), nil)
}

// counterValue returns the value of name{method,outcome} in reg (0 if absent).
func counterValue(t *testing.T, reg prometheus.Gatherer, name, method, outcome string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			var mth, out string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "method":
					mth = l.GetValue()
				case "outcome":
					out = l.GetValue()
				}
			}
			if mth == method && out == outcome {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// onEnd is a span processor calling f when a span ends.
type onEnd func(sdktrace.ReadOnlySpan)

func (f onEnd) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (f onEnd) OnEnd(s sdktrace.ReadOnlySpan)                   { f(s) }
func (f onEnd) Shutdown(context.Context) error                  { return nil }
func (f onEnd) ForceFlush(context.Context) error                { return nil }

func withSpans(t *testing.T, more ...sdktrace.SpanProcessor) *tracetest.SpanRecorder {
	t.Helper()
	sr := tracetest.NewSpanRecorder()
	opts := []sdktrace.TracerProviderOption{sdktrace.WithSpanProcessor(sr)}
	for _, p := range more {
		opts = append(opts, sdktrace.WithSpanProcessor(p))
	}
	tp := sdktrace.NewTracerProvider(opts...)
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() {
		otel.SetTracerProvider(prev)
		_ = tp.Shutdown(context.Background())
	})
	return sr
}

func TestTracingSpanStatus(t *testing.T) {
	sr := withSpans(t)
	mw := endpointmw.Tracing("widgets", classify)
	for _, tc := range []struct {
		err    error
		status codes.Code
		events int
	}{
		{nil, codes.Unset, 0},
		{errNotFound, codes.Unset, 0},
		{server.BadRequest("invalid_request", "bad"), codes.Unset, 0},
		{context.Canceled, codes.Unset, 0},
		{errUnavailable, codes.Error, 1},
		{errors.New("boom"), codes.Error, 1},
	} {
		before := len(sr.Ended())
		var inner trace.SpanContext
		e := mw("Get")(func(ctx context.Context, _ any) (any, error) {
			inner = trace.SpanContextFromContext(ctx)
			return nil, tc.err
		})
		if _, err := e(context.Background(), nil); !errors.Is(err, tc.err) {
			t.Fatalf("error changed: %v", err)
		}
		spans := sr.Ended()[before:]
		if len(spans) != 1 {
			t.Fatalf("%v: %d spans, want 1", tc.err, len(spans))
		}
		s := spans[0]
		if s.Name() != "widgets.Get" || s.SpanKind() != trace.SpanKindInternal {
			t.Errorf("span %q kind %v, want widgets.Get internal", s.Name(), s.SpanKind())
		}
		if s.InstrumentationScope().Name != "github.com/agentic-app/agentic/services/widgets" {
			t.Errorf("tracer %q", s.InstrumentationScope().Name)
		}
		if s.SpanContext().SpanID() != inner.SpanID() {
			t.Errorf("%v: endpoint did not run inside the span", tc.err)
		}
		if s.Status().Code != tc.status || len(s.Events()) != tc.events {
			t.Errorf("%v: status %v, %d events; want %v, %d", tc.err, s.Status().Code, len(s.Events()), tc.status, tc.events)
		}
		if tc.status == codes.Error && s.Status().Description != tc.err.Error() {
			t.Errorf("%v: status description %q", tc.err, s.Status().Description)
		}
	}
}

// TestChainOrder checks tracing is outermost, then instrumenting, then
// logging: the call is counted before the span ends, and the log record is
// written inside the span and before the call is counted.
func TestChainOrder(t *testing.T) {
	reg := prometheus.NewRegistry()
	countAtSpanEnd := -1.0
	sr := withSpans(t, onEnd(func(sdktrace.ReadOnlySpan) {
		countAtSpanEnd = counterValue(t, reg, "widgets_requests_total", "Get", "error")
	}))
	var (
		countAtLog  = -1.0
		spanAtLog   trace.SpanContext
		spanInEndpt trace.SpanContext
	)
	rec := &recorder{}
	rec.onLog = func(ctx context.Context) {
		spanAtLog = trace.SpanContextFromContext(ctx)
		countAtLog = counterValue(t, reg, "widgets_requests_total", "Get", "error")
	}
	wrap := endpointmw.Chain("widgets", slog.New(rec), reg, classify)
	e := wrap("Get", func(ctx context.Context, _ any) (any, error) {
		spanInEndpt = trace.SpanContextFromContext(ctx)
		return nil, errors.New("boom")
	})
	if _, err := e(context.Background(), nil); err == nil {
		t.Fatal("error lost")
	}
	spans := sr.Ended()
	if len(spans) != 1 || spans[0].Name() != "widgets.Get" {
		t.Fatalf("spans %v", spans)
	}
	if !spanAtLog.IsValid() || spanAtLog.SpanID() != spans[0].SpanContext().SpanID() || spanInEndpt.SpanID() != spanAtLog.SpanID() {
		t.Errorf("logging does not run inside the tracing span")
	}
	if countAtSpanEnd != 1 {
		t.Errorf("requests not counted when the span ended (%v): tracing is not outside instrumenting", countAtSpanEnd)
	}
	if countAtLog != 0 {
		t.Errorf("requests counted before logging (%v): instrumenting is not outside logging", countAtLog)
	}
	if got := counterValue(t, reg, "widgets_requests_total", "Get", "error"); got != 1 {
		t.Errorf("Get/error = %v, want 1", got)
	}
	if len(rec.records) != 1 || rec.records[0].Level != slog.LevelError {
		t.Errorf("records %v", rec.records)
	}

	// Middlewares lists the same order, outermost first; a nil logger is allowed.
	if n := len(endpointmw.Middlewares("widgets", nil, nil, classify)); n != 3 {
		t.Errorf("Middlewares: %d, want 3", n)
	}
	if _, err := endpointmw.Chain("widgets", nil, nil, classify)("Get", failing(nil))(context.Background(), nil); err != nil {
		t.Error(err)
	}
}
