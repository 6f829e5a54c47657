// Package observability sets up structured logging (log/slog), Prometheus
// metrics and OpenTelemetry tracing for a service.
package observability

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"

	"go.opentelemetry.io/otel/trace"
)

// NewLogger returns a JSON slog logger writing to stdout at the level named by
// LOG_LEVEL (debug, info, warn, error; default info). Every record carries the
// service name, and every record logged with a context that holds a valid
// OpenTelemetry span (logger.InfoContext, logger.Log(ctx, ...)) carries its
// trace_id and span_id (see TraceHandler).
func NewLogger(service string) *slog.Logger {
	return NewLoggerTo(os.Stdout, service, os.Getenv("LOG_LEVEL"))
}

// NewLoggerTo is NewLogger with an explicit writer and level name.
func NewLoggerTo(w io.Writer, service, level string) *slog.Logger {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: ParseLevel(level)})
	return slog.New(NewTraceHandler(h)).With("service", service)
}

// ParseLevel maps a level name to a slog.Level; unknown names mean info.
func ParseLevel(s string) slog.Level {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug
	case "warn", "warning":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	default:
		return slog.LevelInfo
	}
}

// Log field names of the trace correlation attributes.
const (
	TraceIDKey = "trace_id"
	SpanIDKey  = "span_id"
)

// TraceHandler is a slog.Handler that adds trace_id and span_id (lower-case
// hex, as in a W3C traceparent) to every record whose context carries a valid
// span context: a span started by otelhttp/otelgrpc or any tracer, or a remote
// parent extracted from a request's traceparent header even while tracing is
// off. Records logged without a context (logger.Info) or outside a span are
// passed through unchanged.
type TraceHandler struct {
	next slog.Handler
}

// NewTraceHandler wraps next.
func NewTraceHandler(next slog.Handler) *TraceHandler { return &TraceHandler{next: next} }

// Enabled reports whether next handles records at level.
func (h *TraceHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle adds the trace attributes and hands the record to next.
func (h *TraceHandler) Handle(ctx context.Context, r slog.Record) error {
	if ctx != nil {
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			r.AddAttrs(
				slog.String(TraceIDKey, sc.TraceID().String()),
				slog.String(SpanIDKey, sc.SpanID().String()),
			)
		}
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs returns a TraceHandler around next.WithAttrs(attrs).
func (h *TraceHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &TraceHandler{next: h.next.WithAttrs(attrs)}
}

// WithGroup returns a TraceHandler around next.WithGroup(name).
func (h *TraceHandler) WithGroup(name string) slog.Handler {
	return &TraceHandler{next: h.next.WithGroup(name)}
}
