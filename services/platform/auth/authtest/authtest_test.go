package authtest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/auth/authtest"
)

func TestTokens(t *testing.T) {
	for _, c := range []struct {
		raw, uid, email string
		verified        bool
	}{
		{"token-alice", "alice", "alice@example.com", false},
		{"token-alice~verified", "alice", "alice@example.com", true},
		{"token-frank~frank@example.org", "frank", "frank@example.org", false},
		{"token-frank~frank@example.org~verified", "frank", "frank@example.org", true},
	} {
		cl, err := authtest.Tokens.VerifyIDToken(context.Background(), c.raw)
		if err != nil || cl.UID != c.uid || cl.Email != c.email || cl.EmailVerified != c.verified || time.Until(cl.ExpiresAt) < 59*time.Minute {
			t.Errorf("%s: %+v, %v", c.raw, cl, err)
		}
	}
	if _, err := authtest.Tokens.VerifyIDToken(context.Background(), "alice"); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("a token without the prefix: %v, want ErrInvalidToken", err)
	}
}

// The claims must outlive a CachingVerifier's expiry check.
func TestVerifiersSurviveTheCache(t *testing.T) {
	for name, v := range map[string]auth.Verifier{"Tokens": authtest.Tokens, "TokenIsUID": authtest.TokenIsUID} {
		if _, err := auth.NewCachingVerifier(v).VerifyIDToken(context.Background(), "token-bob"); err != nil {
			t.Errorf("%s through a CachingVerifier: %v", name, err)
		}
	}
	if _, err := authtest.Refuse.VerifyIDToken(context.Background(), "token-bob"); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("Refuse: %v", err)
	}
}
