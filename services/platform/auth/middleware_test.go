package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func fakeVerifier(valid map[string]Claims) Verifier {
	return VerifierFunc(func(_ context.Context, raw string) (Claims, error) {
		if raw == "broken-backend" {
			return Claims{}, errors.New("dial tcp: connection refused")
		}
		c, ok := valid[raw]
		if !ok {
			return Claims{}, ErrInvalidToken
		}
		return c, nil
	})
}

func TestMiddleware(t *testing.T) {
	v := fakeVerifier(map[string]Claims{"good": {UID: "u1", Email: "a@example.com", ExpiresAt: time.Now().Add(time.Hour)}})
	var seen Claims
	h := Middleware(v, nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := FromContext(r.Context())
		if !ok {
			t.Error("claims missing from context")
		}
		seen = c
		w.WriteHeader(http.StatusNoContent)
	}))

	cases := []struct {
		name       string
		header     string
		wantStatus int
		wantError  string
		wantMsg    string
	}{
		{"missing header", "", 401, "unauthenticated", MessageUnauthenticated},
		{"basic scheme", "Basic dXNlcjpwYXNz", 401, "unauthenticated", MessageUnauthenticated},
		{"bearer without token", "Bearer ", 401, "unauthenticated", MessageUnauthenticated},
		{"bare token", "good", 401, "unauthenticated", MessageUnauthenticated},
		{"invalid token", "Bearer nope", 401, "invalid_token", MessageInvalidToken},
		{"verifier down", "Bearer broken-backend", 503, "auth_unavailable", "Authentication service unavailable"},
		{"valid token", "Bearer good", 204, "", ""},
		{"lowercase scheme", "bearer good", 204, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seen = Claims{}
			req := httptest.NewRequest(http.MethodPost, "/api/x", nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.wantStatus {
				t.Fatalf("status = %d, want %d (body %s)", rec.Code, tc.wantStatus, rec.Body)
			}
			if tc.wantError == "" {
				if seen.UID != "u1" || seen.Email != "a@example.com" {
					t.Fatalf("claims = %+v", seen)
				}
				return
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Fatalf("content-type = %q", ct)
			}
			var body map[string]string
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if body["error"] != tc.wantError || body["message"] != tc.wantMsg {
				t.Fatalf("body = %v", body)
			}
			if seen.UID != "" {
				t.Fatal("handler ran for a rejected request")
			}
		})
	}
}

func TestFromContextEmpty(t *testing.T) {
	if _, ok := FromContext(context.Background()); ok {
		t.Fatal("expected no claims")
	}
}

// A client that leaves while its token is checked gets a 499 and no ERROR
// line; a verifier that fails while the client waits is still a logged 503.
func TestMiddlewareClientGoneWhileVerifying(t *testing.T) {
	v := VerifierFunc(func(ctx context.Context, _ string) (Claims, error) {
		<-ctx.Done()
		return Claims{}, fmt.Errorf("verify id token: %w", ctx.Err())
	})
	for _, c := range []struct {
		name   string
		leave  bool
		status int
		logged bool
	}{
		{"client left", true, 499, false},
		{"verifier timed out", false, 503, true},
	} {
		var logs strings.Builder
		h := Middleware(v, slog.New(slog.NewTextHandler(&logs, nil)))(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			t.Error("handler ran")
		}))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		if c.leave {
			ctx, cancel = context.WithCancel(context.Background())
			cancel()
		}
		req := httptest.NewRequest(http.MethodGet, "/api/x", nil).WithContext(ctx)
		req.Header.Set("Authorization", "Bearer t")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		cancel()
		if rec.Code != c.status || strings.Contains(logs.String(), "level=ERROR") != c.logged {
			t.Errorf("%s: status %d, logged %q; want %d, logged %v", c.name, rec.Code, logs.String(), c.status, c.logged)
		}
	}
}
