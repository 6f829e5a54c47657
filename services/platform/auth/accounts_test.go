package auth

import (
	"context"
	"errors"
	"testing"
	"time"
)

type accountsVerifier struct {
	Verifier
	disabled map[string]bool
	lookups  int
	fail     bool
}

func (a *accountsVerifier) AccountDisabled(_ context.Context, uid string) (bool, error) {
	a.lookups++
	if a.fail {
		return false, errors.New("lookup failed")
	}
	return a.disabled[uid], nil
}

// An account's state is looked up once per RevocationTTL: a disabled
// account is seen within that time, failed lookups are not remembered, and
// a verifier that cannot tell says "not disabled".
func TestAccountDisabledIsCachedForTheRevocationTTL(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	next := &accountsVerifier{disabled: map[string]bool{}}
	c := NewCachingVerifier(next, WithClock(func() time.Time { return now }))
	ctx := context.Background()
	if d, err := c.AccountDisabled(ctx, "u1"); d || err != nil || next.lookups != 1 {
		t.Fatalf("first: %v %v (%d lookups)", d, err, next.lookups)
	}
	next.disabled["u1"] = true
	now = now.Add(DefaultRevocationTTL - time.Millisecond)
	if d, _ := c.AccountDisabled(ctx, "u1"); d || next.lookups != 1 {
		t.Fatalf("within the TTL: %v (%d lookups)", d, next.lookups)
	}
	now = now.Add(2 * time.Millisecond)
	if d, _ := c.AccountDisabled(ctx, "u1"); !d || next.lookups != 2 {
		t.Fatalf("after the TTL: %v (%d lookups)", d, next.lookups)
	}
	next.fail = true
	now = now.Add(DefaultRevocationTTL)
	if _, err := c.AccountDisabled(ctx, "u1"); err == nil {
		t.Fatal("a failed lookup was answered")
	}
	next.fail = false
	if d, _ := c.AccountDisabled(ctx, "u1"); !d || next.lookups != 4 {
		t.Fatalf("a failed lookup was cached: %v (%d lookups)", d, next.lookups)
	}
	plain := NewCachingVerifier(RevokedOnly{})
	if d, err := plain.AccountDisabled(ctx, "u1"); d || err != nil {
		t.Fatalf("a verifier without accounts: %v %v", d, err)
	}
}

// RevokedOnly is a Verifier that cannot look accounts up.
type RevokedOnly struct{}

func (RevokedOnly) VerifyIDToken(context.Context, string) (Claims, error) { return Claims{}, nil }
func (RevokedOnly) VerifyIDTokenAndCheckRevoked(context.Context, string) (Claims, error) {
	return Claims{}, nil
}
