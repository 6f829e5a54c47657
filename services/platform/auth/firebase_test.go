package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// unsignedToken builds an emulator-style ID token (alg "none", empty signature).
func unsignedToken(t *testing.T, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]any{"alg": "none", "typ": "JWT"}) + "." + enc(claims) + "."
}

func emulatorClaims(project, uid string, now time.Time) map[string]any {
	return map[string]any{
		"iss":            "https://securetoken.google.com/" + project,
		"aud":            project,
		"sub":            uid,
		"user_id":        uid,
		"iat":            now.Add(-time.Minute).Unix(),
		"auth_time":      now.Add(-time.Minute).Unix(),
		"exp":            now.Add(time.Hour).Unix(),
		"email":          "ada@example.com",
		"email_verified": true,
		"name":           "Ada Lovelace",
		"picture":        "https://example.com/ada.png",
		"firebase":       map[string]any{"sign_in_provider": "password", "identities": map[string]any{}},
	}
}

// fakeEmulator answers the accounts:lookup call the Admin SDK makes in
// emulator mode to check that the user exists and is not disabled.
func fakeEmulator(t *testing.T, users map[string]bool) (host string, lookups *atomic.Int32) {
	t.Helper()
	lookups = new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/identitytoolkit.googleapis.com/v1/projects/demo-agentic/accounts:lookup" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		lookups.Add(1)
		body, _ := io.ReadAll(r.Body)
		var req struct {
			LocalID []string `json:"localId"`
		}
		_ = json.Unmarshal(body, &req)
		var out []map[string]any
		for _, id := range req.LocalID {
			if disabled, ok := users[id]; ok {
				out = append(out, map[string]any{"localId": id, "email": "ada@example.com", "disabled": disabled})
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"kind": "identitytoolkit#GetAccountInfoResponse", "users": out})
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), lookups
}

func TestFirebaseVerifierAcceptsEmulatorToken(t *testing.T) {
	host, lookups := fakeEmulator(t, map[string]bool{"uid-ada": false, "uid-off": true})
	t.Setenv("APP_ENV", "development")
	t.Setenv("FIREBASE_AUTH_EMULATOR_HOST", host)
	// No Google credentials may be needed: point ADC at a missing file.
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/credentials.json")

	ctx := context.Background()
	v, err := NewFirebaseVerifier(ctx, "demo-agentic")
	if err != nil {
		t.Fatalf("NewFirebaseVerifier: %v", err)
	}
	now := time.Now()

	c, err := v.VerifyIDToken(ctx, unsignedToken(t, emulatorClaims("demo-agentic", "uid-ada", now)))
	if err != nil {
		t.Fatalf("verify emulator token: %v", err)
	}
	if c.UID != "uid-ada" || c.Email != "ada@example.com" || !c.EmailVerified || c.Name != "Ada Lovelace" || c.Picture != "https://example.com/ada.png" {
		t.Fatalf("claims = %+v", c)
	}
	if d := c.ExpiresAt.Sub(now.Add(time.Hour)); d > time.Second || d < -time.Second {
		t.Fatalf("ExpiresAt = %v", c.ExpiresAt)
	}
	if lookups.Load() != 1 {
		t.Fatalf("emulator lookups = %d, want 1", lookups.Load())
	}

	bad := map[string]map[string]any{
		"wrong audience": func() map[string]any {
			m := emulatorClaims("demo-agentic", "uid-ada", now)
			m["aud"] = "other-project"
			return m
		}(),
		"wrong issuer": func() map[string]any {
			m := emulatorClaims("demo-agentic", "uid-ada", now)
			m["iss"] = "https://securetoken.google.com/other-project"
			return m
		}(),
		"expired": func() map[string]any {
			m := emulatorClaims("demo-agentic", "uid-ada", now)
			m["iat"] = now.Add(-3 * time.Hour).Unix()
			m["exp"] = now.Add(-2 * time.Hour).Unix()
			return m
		}(),
		"unknown user":  emulatorClaims("demo-agentic", "uid-ghost", now),
		"disabled user": emulatorClaims("demo-agentic", "uid-off", now),
	}
	for name, claims := range bad {
		t.Run(name, func(t *testing.T) {
			_, err := v.VerifyIDToken(ctx, unsignedToken(t, claims))
			if !errors.Is(err, ErrInvalidToken) {
				t.Fatalf("err = %v, want ErrInvalidToken", err)
			}
		})
	}
	if _, err := v.VerifyIDToken(ctx, "not-a-jwt"); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("garbage token: err = %v", err)
	}
}

func TestFirebaseVerifierEmulatorDownIsNotInvalidToken(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	host := strings.TrimPrefix(srv.URL, "http://")
	srv.Close() // nothing listens there any more
	t.Setenv("APP_ENV", "development")
	t.Setenv("FIREBASE_AUTH_EMULATOR_HOST", host)
	v, err := NewFirebaseVerifier(context.Background(), "demo-agentic")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = v.VerifyIDToken(ctx, unsignedToken(t, emulatorClaims("demo-agentic", "uid-ada", time.Now())))
	if err == nil || errors.Is(err, ErrInvalidToken) {
		t.Fatalf("err = %v, want a non-token error", err)
	}
}

func TestFirebaseVerifierProductionModeRejectsUnsignedToken(t *testing.T) {
	t.Setenv("FIREBASE_AUTH_EMULATOR_HOST", "")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/credentials.json")
	v, err := NewFirebaseVerifier(context.Background(), "demo-agentic")
	if err != nil {
		t.Fatalf("app creation must not need credentials: %v", err)
	}
	_, err = v.VerifyIDToken(context.Background(), unsignedToken(t, emulatorClaims("demo-agentic", "uid-ada", time.Now())))
	if !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("err = %v, want ErrInvalidToken (no kid / alg none)", err)
	}
}

func TestFirebaseVerifierRefusesEmulatorInProduction(t *testing.T) {
	host, _ := fakeEmulator(t, map[string]bool{"uid-ada": false})
	t.Setenv("FIREBASE_AUTH_EMULATOR_HOST", host)
	for _, env := range []string{"", "production", "staging"} {
		t.Setenv("APP_ENV", env)
		v, err := NewFirebaseVerifier(context.Background(), "demo-agentic")
		if err == nil || v != nil || !strings.Contains(err.Error(), "APP_ENV") {
			t.Fatalf("APP_ENV=%q: verifier %v, err %v; want a refusal", env, v, err)
		}
	}
}
