package observability

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

func lines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func TestLoggerAddsTraceAndSpanIDsFromContext(t *testing.T) {
	var buf bytes.Buffer
	logger := NewLoggerTo(&buf, "svc", "info").With("component", "test")

	tp := sdktrace.NewTracerProvider()
	defer func() { _ = tp.Shutdown(context.Background()) }()
	ctx, span := tp.Tracer("test").Start(context.Background(), "op")
	sc := span.SpanContext()

	logger.InfoContext(ctx, "inside span", "k", "v")
	logger.Log(ctx, 8, "via Log") // error level, as unaryLog logs failures
	logger.Info("no context")
	logger.InfoContext(context.Background(), "context without span")
	span.End()

	got := lines(t, &buf)
	if len(got) != 4 {
		t.Fatalf("want 4 records, got %d: %s", len(got), buf.String())
	}
	for _, m := range got[:2] {
		if m[TraceIDKey] != sc.TraceID().String() || m[SpanIDKey] != sc.SpanID().String() {
			t.Errorf("record %v: want trace_id %s span_id %s", m, sc.TraceID(), sc.SpanID())
		}
		if m["service"] != "svc" || m["component"] != "test" {
			t.Errorf("record %v lost the logger's attributes", m)
		}
	}
	if got[0]["k"] != "v" {
		t.Errorf("record %v lost its own attributes", got[0])
	}
	for _, m := range got[2:] {
		if _, ok := m[TraceIDKey]; ok {
			t.Errorf("record without span got a trace_id: %v", m)
		}
		if _, ok := m[SpanIDKey]; ok {
			t.Errorf("record without span got a span_id: %v", m)
		}
	}
}

func TestLoggerAddsRemoteParentIDsWhileTracingIsOff(t *testing.T) {
	// With the no-op provider (OTEL_EXPORTER_OTLP_ENDPOINT unset) a request's
	// incoming traceparent is still in the context: logs carry it.
	var buf bytes.Buffer
	logger := NewLoggerTo(&buf, "svc", "debug")
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, Remote: true,
	}))
	logger.DebugContext(ctx, "remote")
	m := lines(t, &buf)[0]
	if m[TraceIDKey] != "4bf92f3577b34da6a3ce929d0e0e4736" || m[SpanIDKey] != "00f067aa0ba902b7" {
		t.Fatalf("record %v", m)
	}
}

func TestLoggerHonoursLevel(t *testing.T) {
	var buf bytes.Buffer
	logger := NewLoggerTo(&buf, "svc", "warn")
	if logger.Enabled(context.Background(), 0) {
		t.Fatal("info enabled at warn level")
	}
	logger.Info("dropped")
	if buf.Len() != 0 {
		t.Fatalf("logged %q", buf.String())
	}
}
