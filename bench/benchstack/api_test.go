package benchstack

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRetryable(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&HTTPError{Status: http.StatusBadGateway}, true},
		{&HTTPError{Status: http.StatusServiceUnavailable}, true},
		{&HTTPError{Status: http.StatusGatewayTimeout}, true},
		{&HTTPError{Status: http.StatusConflict}, false},
		{context.Canceled, false},
		{context.DeadlineExceeded, false},
		{errors.New("connection refused"), true},
	} {
		if got := Retryable(c.err); got != c.want {
			t.Errorf("Retryable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestSignUpAndCreateAgent runs SignUp and CreateAgent against one server
// playing the Auth emulator and the gateway (one 503 first: retried).
func TestSignUpAndCreateAgent(t *testing.T) {
	var first atomic.Bool
	var onboarded, created map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := map[string]any{}
		_ = json.NewDecoder(r.Body).Decode(&body)
		switch {
		case !first.Swap(true):
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"error":"unavailable","message":"restarting"}`))
		case r.URL.Path == "/identitytoolkit.googleapis.com/v1/accounts:signUp":
			if r.URL.Query().Get("key") != "k" || body["password"] != Password {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			_ = json.NewEncoder(w).Encode(map[string]string{"idToken": "tok-" + body["email"].(string), "localId": "uid1"})
		case r.URL.Path == "/api/user/onboarding":
			if r.Header.Get("Authorization") != "Bearer tok-ownerabc1@bench.example.com" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			onboarded = body
			w.WriteHeader(http.StatusNoContent)
		case r.URL.Path == "/api/agents":
			created = body
			_ = json.NewEncoder(w).Encode(Agent{ID: "ag1", Name: body["name"].(string), Email: "tutor@agents.example", Status: "active"})
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":"not_found","message":"no route"}`))
		}
	}))
	defer srv.Close()
	a := &API{Base: srv.URL, Emulator: srv.URL, APIKey: "k", HC: srv.Client(), Wait: 5 * time.Second, Run: "abc"}
	ctx := context.Background()

	acc, err := a.SignUp(ctx, "Owner")
	if err != nil {
		t.Fatal(err)
	}
	if *acc != (Account{UID: "uid1", Email: "ownerabc1@bench.example.com", Token: "tok-ownerabc1@bench.example.com"}) {
		t.Errorf("account = %+v", *acc)
	}
	if onboarded["displayName"] != "Ownerabc1" {
		t.Errorf("onboarding body = %v", onboarded)
	}
	ag, err := a.CreateAgent(ctx, acc, "Tutor", "a bench agent", "be brief")
	if err != nil {
		t.Fatal(err)
	}
	if *ag != (Agent{ID: "ag1", Name: "Tutor", Email: "tutor@agents.example", Status: "active"}) {
		t.Errorf("agent = %+v", *ag)
	}
	if created["userId"] != "uid1" || created["description"] != "a bench agent" || created["instructions"] != "be brief" || created["isPublic"] != false {
		t.Errorf("create body = %v", created)
	}

	err = a.DoRetry(ctx, http.MethodGet, srv.URL+"/nowhere", acc.Token, nil, nil)
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != http.StatusNotFound || he.Code != "not_found" || !strings.HasPrefix(err.Error(), "GET /nowhere: ") {
		t.Errorf("404: %v", err)
	}
}

func TestWaitHealthy(t *testing.T) {
	var ready atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" && !ready.Swap(true) {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	var logged []string
	a := &API{Base: srv.URL, HC: srv.Client(), Wait: 5 * time.Second, Health: []string{srv.URL + "/readyz"},
		Logf: func(format string, args ...any) { logged = append(logged, format) }}
	if err := a.WaitHealthy(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(logged) != 1 {
		t.Errorf("logged %v, want one wait", logged)
	}
}

func TestSplitList(t *testing.T) {
	if got := SplitList(" a, ,b ,"); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("SplitList = %q", got)
	}
	if got := SplitList(""); got != nil {
		t.Errorf("SplitList(\"\") = %q", got)
	}
}

func TestWalletKey(t *testing.T) {
	w := &Wallet{Run: "r1", prefix: "bench-mail"}
	if k1, k2 := w.Key("credit"), w.Key("c"); k1 != "bench-mail:r1:credit:1" || k2 != "bench-mail:r1:c:2" {
		t.Errorf("keys %q %q", k1, k2)
	}
}
