// Command gateway is the local stand-in for Envoy: it serves the built SPA on
// one origin and routes /api/* by the route table in gateway/routes.yaml.
package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/agentic-app/agentic/gateway"
	"github.com/agentic-app/agentic/gateway/localgw"
	"github.com/agentic-app/agentic/gateway/routes"
)

func main() {
	// LOG_LEVEL as in the services (debug shows every /api/ request).
	level := slog.LevelInfo
	if err := level.UnmarshalText([]byte(env("LOG_LEVEL", "info"))); err != nil {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: level}))
	if err := run(logger); err != nil {
		logger.Error("gateway stopped", "err", err)
		os.Exit(1)
	}
}

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func run(logger *slog.Logger) error {
	table, err := routes.Parse(gateway.RoutesYAML)
	if err != nil {
		return err
	}
	// GATEWAY_UPSTREAM_<SERVICE> overrides a service's local address.
	ups := map[string]string{}
	for name, svc := range table.Services {
		ups[name] = env("GATEWAY_UPSTREAM_"+strings.ToUpper(name), svc.LocalHTTP)
	}
	handler, err := localgw.New(localgw.Config{
		Table:     table,
		Upstreams: ups,
		StaticDir: env("WEB_DIST", "web/dist"),
		Logger:    logger,
		// GATEWAY_CSP_EXTRA_ORIGINS (space-separated): origins the SPA reaches
		// in this environment besides production's (the Auth emulator).
		CSPExtraOrigins: strings.Fields(os.Getenv("GATEWAY_CSP_EXTRA_ORIGINS")),
	})
	if err != nil {
		return err
	}

	// Browsers may resolve localhost to either loopback address, so listen on
	// both; only the IPv4 one is required.
	port := env("GATEWAY_PORT", "8080")
	listeners := []net.Listener{}
	l4, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		return err
	}
	listeners = append(listeners, l4)
	if l6, err := net.Listen("tcp", "[::1]:"+port); err == nil {
		listeners = append(listeners, l6)
	}

	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	errs := make(chan error, len(listeners))
	for _, l := range listeners {
		go func(l net.Listener) { errs <- srv.Serve(l) }(l)
	}
	logger.Info("gateway listening", "url", "http://localhost:"+port, "upstreams", ups)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	select {
	case err := <-errs:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}
