package server

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"time"
)

// EnvPprofAddr names the variable that turns on Go's profiling endpoints
// (net/http/pprof under /debug/pprof/) on a listener of their own, for
// profiling a running service (docs/conventions.md). Off when empty. Only
// a loopback address is accepted: profiles show a process's internals and
// the endpoints take no token, so they are never on a routed interface.
const EnvPprofAddr = "PPROF_ADDR"

// servePprof serves the profiling endpoints on PPROF_ADDR, or returns nil,
// nil when it is not set. A routed address is a configuration error; a
// port that is taken (an old process still draining) is logged and the
// service runs without them: profiling is a debugging aid, never a reason
// not to serve.
func servePprof(logger *slog.Logger) (*http.Server, error) {
	addr := os.Getenv(EnvPprofAddr)
	if addr == "" {
		return nil, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%s=%q: %w", EnvPprofAddr, addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("%s=%q: profiling is served on a loopback address only", EnvPprofAddr, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		logger.Error("profiling endpoints not served", "addr", addr, "error", err)
		return nil, nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	// No write timeout: a CPU profile or trace streams for as long as its
	// ?seconds= asks.
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	logger.Info("profiling endpoints listening", "addr", ln.Addr().String())
	go func() { _ = srv.Serve(ln) }()
	return srv, nil
}
