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
