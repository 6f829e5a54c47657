package service

import (
	"context"
	"log/slog"
	"os"

	"github.com/agentic-app/agentic/services/platform/observability"
)

// Main is a service command's whole main: the service's logger, its
// configuration from the environment (exit status 2 when it is invalid),
// then run until a signal ends it (exit status 1 when run fails).
func Main[C any](name string, load func() (C, error), run func(context.Context, C, *slog.Logger) error) {
	logger := observability.NewLogger(name)
	cfg, err := load()
	if err != nil {
		logger.Error("invalid configuration", "error", err)
		os.Exit(2)
	}
	if err := run(context.Background(), cfg, logger); err != nil {
		logger.Error(name+" service failed", "error", err)
		os.Exit(1)
	}
}
