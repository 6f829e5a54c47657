package server

import (
	"fmt"
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

// listenPprof opens the profiling listener named by PPROF_ADDR, or returns
// nil, nil when it is not set.
func listenPprof() (*http.Server, net.Listener, error) {
	addr := os.Getenv(EnvPprofAddr)
	if addr == "" {
		return nil, nil, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, nil, fmt.Errorf("%s=%q: %w", EnvPprofAddr, addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, nil, fmt.Errorf("%s=%q: profiling is served on a loopback address only", EnvPprofAddr, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listen pprof %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	// A CPU profile or trace streams for as long as its ?seconds= asks.
	return &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, ln, nil
}
