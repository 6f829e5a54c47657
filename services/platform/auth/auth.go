// Package auth verifies Firebase ID tokens and protects HTTP handlers.
//
// A Verifier turns a raw bearer token into Claims. NewFirebaseVerifier uses the
// Firebase Admin SDK (emulator tokens are accepted when
// FIREBASE_AUTH_EMULATOR_HOST is set); NewCachingVerifier wraps any Verifier and
// remembers verified tokens until they expire; Middleware rejects requests
// without a valid token and stores the Claims in the request context.
package auth

import (
	"context"
	"errors"
	"time"
)

// Claims are the verified facts about the caller taken from the ID token.
type Claims struct {
	UID           string
	Email         string
	EmailVerified bool
	Name          string
	Picture       string
	ExpiresAt     time.Time
}

// Verifier verifies a raw ID token.
//
// Implementations return an error wrapping ErrInvalidToken when the token
// itself is bad (malformed, wrong audience/issuer, expired, revoked, unknown
// user); any other error means verification could not be performed.
type Verifier interface {
	VerifyIDToken(ctx context.Context, raw string) (Claims, error)
}

// RevocationVerifier is a Verifier that can also check, at the token's
// source, that the user's refresh tokens were not revoked after the token was
// issued and that the user is not disabled (Firebase Admin
// VerifyIDTokenAndCheckRevoked). Sensitive routes use it (see CheckRevoked).
type RevocationVerifier interface {
	Verifier
	VerifyIDTokenAndCheckRevoked(ctx context.Context, raw string) (Claims, error)
}

// VerifyFresh verifies raw with the revocation check when v supports it;
// a Verifier without it (a test double) is trusted as is.
func VerifyFresh(ctx context.Context, v Verifier, raw string) (Claims, error) {
	if rv, ok := v.(RevocationVerifier); ok {
		return rv.VerifyIDTokenAndCheckRevoked(ctx, raw)
	}
	return v.VerifyIDToken(ctx, raw)
}

// VerifierFunc adapts a function to a Verifier.
type VerifierFunc func(ctx context.Context, raw string) (Claims, error)

// VerifyIDToken calls f.
func (f VerifierFunc) VerifyIDToken(ctx context.Context, raw string) (Claims, error) {
	return f(ctx, raw)
}

// ErrInvalidToken marks a token that is malformed, expired or otherwise not acceptable.
var ErrInvalidToken = errors.New("invalid or expired token")

type ctxKey struct{}

// NewContext returns ctx carrying c.
func NewContext(ctx context.Context, c Claims) context.Context {
	return context.WithValue(ctx, ctxKey{}, c)
}

// FromContext returns the Claims stored by Middleware, if any.
func FromContext(ctx context.Context) (Claims, bool) {
	c, ok := ctx.Value(ctxKey{}).(Claims)
	return c, ok
}
