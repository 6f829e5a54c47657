package auth

import (
	"context"
	"sync"
	"time"

	fbauth "firebase.google.com/go/v4/auth"
)

// AccountChecker tells whether a user's account may still act: a disabled
// (or deleted) account may not. Callers that act for a user without a token
// of theirs — an agent API key acting for its owner — ask it.
type AccountChecker interface {
	AccountDisabled(ctx context.Context, uid string) (bool, error)
}

// AccountDisabled implements AccountChecker with an Admin SDK user lookup
// (the emulator's accounts:lookup locally). A deleted user counts as disabled.
func (v *FirebaseVerifier) AccountDisabled(ctx context.Context, uid string) (bool, error) {
	u, err := v.client.GetUser(ctx, uid)
	if fbauth.IsUserNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return u.Disabled, nil
}

// accountCache remembers account states for the revocation TTL, so that an
// owner's many key requests cost one lookup per 5 s while a disabled
// account is refused within 5 s.
type accountCache struct {
	mu      sync.Mutex
	entries map[string]accountEntry
}

type accountEntry struct {
	disabled bool
	checked  time.Time
}

// AccountDisabled implements AccountChecker when the wrapped verifier does
// (false, nil otherwise: nothing to ask), caching each answer for
// RevocationTTL. Failed lookups are not cached.
func (c *CachingVerifier) AccountDisabled(ctx context.Context, uid string) (bool, error) {
	ac, ok := c.next.(AccountChecker)
	if !ok {
		return false, nil
	}
	now := c.now()
	c.accounts.mu.Lock()
	if e, ok := c.accounts.entries[uid]; ok && now.Sub(e.checked) < c.revocationTTL {
		c.accounts.mu.Unlock()
		return e.disabled, nil
	}
	c.accounts.mu.Unlock()
	disabled, err := ac.AccountDisabled(ctx, uid)
	if err != nil {
		return false, err
	}
	c.accounts.mu.Lock()
	defer c.accounts.mu.Unlock()
	if c.accounts.entries == nil || len(c.accounts.entries) >= c.maxEntries {
		c.accounts.entries = map[string]accountEntry{} // bounded: start over when full
	}
	c.accounts.entries[uid] = accountEntry{disabled: disabled, checked: now}
	return disabled, nil
}
