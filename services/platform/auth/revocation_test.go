package auth

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// revocableEmulator answers accounts:lookup like the Auth emulator, with
// per-user "disabled" and "validSince" (set by RevokeRefreshTokens) that the
// test changes while the verifier runs.
type revocableEmulator struct {
	mu    sync.Mutex
	users map[string]*emuUser
}

type emuUser struct {
	disabled   bool
	validSince int64 // seconds; tokens issued before are revoked
}

func (e *revocableEmulator) set(uid string, fn func(u *emuUser)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fn(e.users[uid])
}

func (e *revocableEmulator) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/accounts:lookup") {
			http.Error(w, "unexpected "+r.URL.Path, http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			LocalID []string `json:"localId"`
		}
		_ = json.Unmarshal(body, &req)
		e.mu.Lock()
		var out []map[string]any
		for _, id := range req.LocalID {
			if u, ok := e.users[id]; ok {
				m := map[string]any{"localId": id, "email": "ada@example.com", "disabled": u.disabled}
				if u.validSince > 0 {
					m["validSince"] = strconv.FormatInt(u.validSince, 10)
				}
				out = append(out, m)
			}
		}
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"users": out})
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// TestRevokedTokenRefusedOnSensitiveRoutesOnly: after the user's refresh
// tokens are revoked (or the user is disabled), a still-unexpired ID token is
// refused by RequireFresh routes (once the short revocation cache lapses)
// while plain routes keep accepting it from the token cache until it expires
// — the documented trade-off (docs/identity.md).
func TestRevokedTokenRefusedOnSensitiveRoutesOnly(t *testing.T) {
	emu := &revocableEmulator{users: map[string]*emuUser{"uid-ada": {}, "uid-bob": {}}}
	t.Setenv("APP_ENV", "development")
	t.Setenv("FIREBASE_AUTH_EMULATOR_HOST", emu.start(t))
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/credentials.json")

	fv, err := NewFirebaseVerifier(context.Background(), "demo-agentic")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	v := NewCachingVerifier(fv, WithClock(clock))

	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	plain := Middleware(v, nil)(ok)
	sensitive := RequireFresh(v, nil)(ok)
	call := func(h http.Handler, tok string) int {
		req := httptest.NewRequest(http.MethodPost, "/api/x", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	issued := time.Now()
	ada := unsignedToken(t, emulatorClaims("demo-agentic", "uid-ada", issued))
	bob := unsignedToken(t, emulatorClaims("demo-agentic", "uid-bob", issued))
	for _, tok := range []string{ada, bob} {
		if c := call(plain, tok); c != 204 {
			t.Fatalf("plain before revocation: %d", c)
		}
		if c := call(sensitive, tok); c != 204 {
			t.Fatalf("sensitive before revocation: %d", c)
		}
	}

	// Ada's refresh tokens are revoked (validSince after the token's iat);
	// Bob is disabled.
	emu.set("uid-ada", func(u *emuUser) { u.validSince = issued.Unix() + 1 })
	emu.set("uid-bob", func(u *emuUser) { u.disabled = true })

	// Within the revocation TTL the passed check is reused.
	if c := call(sensitive, ada); c != 204 {
		t.Fatalf("sensitive within the revocation TTL: %d", c)
	}
	advance(DefaultRevocationTTL + time.Second)
	for name, tok := range map[string]string{"revoked": ada, "disabled": bob} {
		if c := call(sensitive, tok); c != http.StatusUnauthorized {
			t.Fatalf("%s token on a sensitive route: %d, want 401", name, c)
		}
		if c := call(plain, tok); c != 204 {
			t.Fatalf("%s token on a plain route (cached until expiry): %d, want 204", name, c)
		}
	}

	// A token issued after the revocation (the user signed in again) passes.
	fresh := unsignedToken(t, emulatorClaims("demo-agentic", "uid-ada", issued.Add(2*time.Minute)))
	if c := call(sensitive, fresh); c != 204 {
		t.Fatalf("new token after revocation: %d", c)
	}
}

func TestCachingVerifierFreshWithoutRevocationSupport(t *testing.T) {
	// A plain Verifier (test double) cannot check revocation: it is trusted as is.
	calls := 0
	v := NewCachingVerifier(VerifierFunc(func(context.Context, string) (Claims, error) {
		calls++
		return Claims{UID: "u1", ExpiresAt: time.Now().Add(time.Hour)}, nil
	}), WithRevocationTTL(0))
	for i := 0; i < 2; i++ {
		if c, err := v.VerifyIDTokenAndCheckRevoked(context.Background(), "t"); err != nil || c.UID != "u1" {
			t.Fatalf("%+v %v", c, err)
		}
	}
	if calls != 2 {
		t.Fatalf("calls = %d, want 2 (no revocation cache with TTL 0)", calls)
	}
}
