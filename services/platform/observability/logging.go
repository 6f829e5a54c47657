// Package observability sets up structured logging (log/slog), Prometheus
// metrics and OpenTelemetry tracing for a service.
package observability

import (
	"io"
	"log/slog"
	"os"
	"strings"
)

// NewLogger returns a JSON slog logger writing to stdout at the level named by
// LOG_LEVEL (debug, info, warn, error; default info). Every record carries the
// service name.
func NewLogger(service string) *slog.Logger {
	return NewLoggerTo(os.Stdout, service, os.Getenv("LOG_LEVEL"))
}

// NewLoggerTo is NewLogger with an explicit writer and level name.
func NewLoggerTo(w io.Writer, service, level string) *slog.Logger {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: ParseLevel(level)})
	return slog.New(h).With("service", service)
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
