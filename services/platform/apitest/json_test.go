package apitest

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
)

// recorder is a testing.TB that records a failure instead of ending the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatal(...any)          { r.failed = true; runtime.Goexit() }
func (r *recorder) Fatalf(string, ...any) { r.failed = true; runtime.Goexit() }

// inGoroutine runs f where runtime.Goexit ends only f.
func inGoroutine(f func()) {
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	<-done
}

func TestDoDecodesJSONAndSendsTheToken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/obj":
			w.WriteHeader(201)
			_, _ = w.Write([]byte(`{"auth":"` + r.Header.Get("Authorization") + `"}`))
		case "/list":
			_, _ = w.Write([]byte(`[1,2]`))
		case "/none":
			w.WriteHeader(204)
		}
	}))
	defer srv.Close()
	r := Do(t, "POST", srv.URL+"/obj", "tok", `{}`)
	if r.Status != 201 || r.Obj()["auth"] != "Bearer tok" || r.List() != nil {
		t.Fatalf("obj: %+v", r)
	}
	if l := Do(t, "GET", srv.URL+"/list", "", "").List(); len(l) != 2 {
		t.Fatalf("list: %v", l)
	}
	if r := Do(t, "DELETE", srv.URL+"/none", "", ""); r.Status != 204 || r.Body != nil {
		t.Fatalf("204: %+v", r)
	}
}

func TestSendFailsOnWhatNoJSONRouteMaySend(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/text":
			_, _ = w.Write([]byte("oops"))
		case "/bad-json":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte("{"))
		case "/204-body":
			w.WriteHeader(204)
			_, _ = w.Write([]byte("x")) // dropped by net/http for a 204: checked below
		}
	}))
	defer srv.Close()
	for _, path := range []string{"/text", "/bad-json"} {
		rec := &recorder{TB: t}
		inGoroutine(func() { Do(rec, "GET", srv.URL+path, "", "") })
		if !rec.failed {
			t.Errorf("%s: not failed", path)
		}
	}
	rec := &recorder{TB: t}
	inGoroutine(func() { Do(rec, "GET", srv.URL+"/204-body", "", "") })
	if rec.failed {
		t.Error("a 204 (net/http sends no body) failed")
	}
}
