// Package authtest stands in for Firebase in the services' tests: verifiers
// that accept made-up ID tokens, and a check of which HTTP routes check
// token revocation (auth.RequireFresh).
package authtest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/kit/endpoint"

	"github.com/agentic-app/agentic/services/platform/auth"
)

// Tokens accepts "token-<uid>" as uid's ID token with the unverified e-mail
// <uid>@example.com, and "token-<uid>~<email>[~verified]" with that e-mail,
// verified when so marked (Firebase email_verified); it refuses any other
// token. The claims expire in an hour so that an auth.CachingVerifier (the
// services' Config.Verifier is wrapped in one) keeps them.
var Tokens = auth.VerifierFunc(func(_ context.Context, raw string) (auth.Claims, error) {
	rest, ok := strings.CutPrefix(raw, "token-")
	if !ok {
		return auth.Claims{}, auth.ErrInvalidToken
	}
	parts := strings.Split(rest, "~")
	c := auth.Claims{UID: parts[0], Email: parts[0] + "@example.com", ExpiresAt: time.Now().Add(time.Hour)}
	for _, p := range parts[1:] {
		if p == "verified" {
			c.EmailVerified = true
		} else {
			c.Email = p
		}
	}
	return c, nil
})

// TokenIsUID accepts every token as the ID token of the uid it spells, for
// tests of handlers and middleware that only need a caller.
var TokenIsUID = auth.VerifierFunc(func(_ context.Context, raw string) (auth.Claims, error) {
	return auth.Claims{UID: raw, ExpiresAt: time.Now().Add(time.Hour)}, nil
})

// Refuse refuses every token, for tests that register routes without
// calling them as a user.
var Refuse = auth.VerifierFunc(func(context.Context, string) (auth.Claims, error) {
	return auth.Claims{}, auth.ErrInvalidToken
})

// RevokedVerifier accepts every token as uid's (plain check, as a token
// cache would) but refuses it when asked to check revocation: the token of a
// user whose refresh tokens were revoked, or who was disabled.
type RevokedVerifier struct{ UID, Email string }

// VerifyIDToken implements auth.Verifier.
func (v RevokedVerifier) VerifyIDToken(context.Context, string) (auth.Claims, error) {
	return auth.Claims{UID: v.UID, Email: v.Email, EmailVerified: true, ExpiresAt: time.Now().Add(time.Hour)}, nil
}

// VerifyIDTokenAndCheckRevoked implements auth.RevocationVerifier.
func (v RevokedVerifier) VerifyIDTokenAndCheckRevoked(context.Context, string) (auth.Claims, error) {
	return auth.Claims{}, fmt.Errorf("%w: id token has been revoked", auth.ErrInvalidToken)
}

// errStub is what StubEndpoints' endpoints return.
var errStub = errors.New("authtest: stub endpoint")

// StubEndpoints sets every nil endpoint.Endpoint field of the struct set
// points to (a service's endpoints.Set) to a stub that fails, so routes can
// be registered and called without a service behind them.
func StubEndpoints(set any) {
	v := reflect.ValueOf(set).Elem()
	stub := reflect.ValueOf(endpoint.Endpoint(func(context.Context, any) (any, error) { return nil, errStub }))
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Type() == stub.Type() && f.IsNil() && f.CanSet() {
			f.Set(stub)
		}
	}
}

// Route is one method and concrete path; Fresh says whether it must check
// revocation.
type Route struct {
	Method, Path string
	Fresh        bool
}

func (r Route) String() string { return r.Method + " " + r.Path }

// CheckRoutes calls every route on h with a bearer token that RevokedVerifier
// would accept only without the revocation check: Fresh routes must answer
// 401 invalid_token, the others anything but 401.
func CheckRoutes(t *testing.T, h http.Handler, routes []Route) {
	t.Helper()
	for _, r := range routes {
		req := httptest.NewRequest(r.Method, r.Path, strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer revoked-token")
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch {
		case r.Fresh && (rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), `"invalid_token"`)):
			t.Errorf("%s with a revoked token: %d %s, want 401 invalid_token", r, rec.Code, rec.Body)
		case !r.Fresh && rec.Code == http.StatusUnauthorized:
			t.Errorf("%s with a revoked (unexpired) token: 401, want it accepted until expiry (not a sensitive route)", r)
		}
	}
}
