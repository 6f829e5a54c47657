package server

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestPprofIsOffUnlessAsked(t *testing.T) {
	t.Setenv(EnvPprofAddr, "")
	srv, err := servePprof(slog.Default())
	if srv != nil || err != nil {
		t.Fatalf("servePprof() = %v, %v; want nothing", srv, err)
	}
}

func TestPprofOnATakenPortDoesNotStopTheService(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	t.Setenv(EnvPprofAddr, taken.Addr().String())
	srv, err := servePprof(slog.Default())
	if srv != nil || err != nil {
		t.Fatalf("servePprof() on a taken port = %v, %v; want no server and no error", srv, err)
	}
}

func TestPprofServesOnLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "10.1.2.3:6060", "example.com:6060", "6060"} {
		t.Setenv(EnvPprofAddr, addr)
		if srv, err := servePprof(slog.Default()); err == nil {
			if srv != nil {
				_ = srv.Close()
			}
			t.Errorf("%s=%q: served (%v); want refused", EnvPprofAddr, addr, srv != nil)
		}
	}

	// A free loopback port, then Run with it: the profiles are served
	// while the service runs.
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	_ = probe.Close()
	t.Setenv(EnvPprofAddr, addr)
	_, stop := runUntilReady(t, RunConfig{HTTPAddr: "127.0.0.1:0", HTTPHandler: NewMux(nil)})
	res, err := http.Get("http://" + addr + "/debug/pprof/heap?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "heap profile") {
		t.Fatalf("heap profile: %d %.80q", res.StatusCode, body)
	}
	stop()
	if _, err := http.Get("http://" + addr + "/debug/pprof/"); err == nil {
		t.Fatal("profiling still served after shutdown")
	}
}
