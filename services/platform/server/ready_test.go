package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// An optional check (the broker) that fails leaves the service ready
// ("degraded", 200); a required one (the database) still makes it unready;
// /healthz never runs a check.
func TestReadyzOptionalCheckDegradesInsteadOfFailing(t *testing.T) {
	var dbUp, brokerUp atomic.Bool
	var calls atomic.Int32
	check := func(up *atomic.Bool, msg string) func(context.Context) error {
		return func(context.Context) error {
			calls.Add(1)
			if up.Load() {
				return nil
			}
			return errors.New(msg)
		}
	}
	mux := NewMux(nil,
		Check{Name: "database", Fn: check(&dbUp, "db down")},
		Check{Name: "kafka", Fn: check(&brokerUp, "broker down"), Optional: true},
	)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	get := func(path string) (int, map[string]any) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp.StatusCode, decode(t, resp.Body)
	}

	// Everything down: liveness is unaffected and runs no check.
	if code, body := get("/healthz"); code != 200 || body["status"] != "ok" || calls.Load() != 0 {
		t.Fatalf("healthz: %d %v (checks run: %d)", code, body, calls.Load())
	}
	if code, body := get("/readyz"); code != 503 || body["status"] != "unavailable" {
		t.Fatalf("db and broker down: %d %v", code, body)
	}

	// Database up, broker down: ready, degraded, the broker's error reported.
	dbUp.Store(true)
	code, body := get("/readyz")
	checks, _ := body["checks"].(map[string]any)
	deg, _ := body["degraded"].([]any)
	if code != 200 || body["status"] != "degraded" || checks["database"] != "ok" || checks["kafka"] != "broker down" ||
		len(deg) != 1 || deg[0] != "kafka" {
		t.Fatalf("broker down: %d %v", code, body)
	}

	brokerUp.Store(true)
	if code, body := get("/readyz"); code != 200 || body["status"] != "ready" || body["degraded"] != nil {
		t.Fatalf("all up: %d %v", code, body)
	}

	// Database down, broker up: unready.
	dbUp.Store(false)
	if code, body := get("/readyz"); code != 503 || body["status"] != "unavailable" {
		t.Fatalf("db down: %d %v", code, body)
	}
}
