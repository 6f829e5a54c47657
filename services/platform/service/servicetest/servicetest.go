// Package servicetest runs a service's app.Run inside a test: in the
// background until the test ends, with its addresses once it listens. Every
// service's integration tests start their app this way instead of each
// writing the same ready/done/cleanup select.
package servicetest

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/platform/auth/authtest"
	"github.com/agentic-app/agentic/services/platform/service"
)

// StartTimeout and StopTimeout bound how long a service may take to listen
// and to shut down; generous, as the migrations and a shared machine's load
// are part of a start.
const (
	StartTimeout = 60 * time.Second
	StopTimeout  = 20 * time.Second
)

// Ready is what run must call once its servers listen (a service's
// Config.Ready).
type Ready func(httpAddr, grpcAddr net.Addr)

// Running is a started service.
type Running struct {
	// HTTP is the HTTP server's base URL ("http://127.0.0.1:port"), GRPC the
	// gRPC server's address ("127.0.0.1:port"); either is empty when run's
	// Ready named no such address.
	HTTP, GRPC string
}

// Start calls run in the background with a context cancelled when the test
// ends, waits for run to call ready, and at the end waits for run to return
// (an error then fails the test). run returning early fails the test at once.
func Start(t testing.TB, run func(ctx context.Context, ready Ready) error) Running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan [2]net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, func(h, g net.Addr) {
			select {
			case addrs <- [2]net.Addr{h, g}:
			default: // a second call (a restart inside run) changes nothing
			}
		})
	}()
	var got [2]net.Addr
	select {
	case got = <-addrs:
	case err := <-done:
		cancel()
		t.Fatalf("service exited before it listened: %v", err)
	case <-time.After(StartTimeout):
		cancel()
		t.Fatal("service did not start")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("service: %v", err)
			}
		case <-time.After(StopTimeout):
			t.Error("service did not shut down")
		}
	})
	var r Running
	if got[0] != nil {
		r.HTTP = "http://" + got[0].String()
	}
	if got[1] != nil {
		r.GRPC = got[1].String()
	}
	return r
}

// Settings are the settings a service under test runs with: any free
// ports, the given database and brokers, the test verifier (authtest.Tokens:
// "token-<uid>" is uid), a 5 s drain and fast relay and consumer polls;
// ready may be nil (set it later, or Start's).
func Settings(dbURL string, brokers []string, ready Ready) service.Settings {
	return service.Settings{
		HTTPAddr: "127.0.0.1:0", GRPCAddr: "127.0.0.1:0",
		DatabaseURL: dbURL, KafkaBrokers: brokers,
		FirebaseProjectID: "demo-agentic", Verifier: authtest.Tokens,
		ShutdownTimeout:   5 * time.Second,
		RelayPollInterval: 20 * time.Millisecond, ConsumerMaxWait: 100 * time.Millisecond,
		Ready: ready,
	}
}
