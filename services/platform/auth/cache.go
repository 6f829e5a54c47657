package auth

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"
)

// CachingVerifier remembers successfully verified tokens until they expire so
// that repeated requests with the same token skip verification. Entries are
// keyed by the SHA-256 of the token (the raw token is never stored), the cache
// holds at most MaxEntries tokens, and expired entries are evicted. Failed
// verifications are not cached.
//
// VerifyIDTokenAndCheckRevoked (sensitive routes) bypasses that cache: it asks
// next for a revocation check and remembers a passed check only for
// RevocationTTL (default 5 s), so a double submit costs one lookup while a
// revocation takes effect on sensitive routes within seconds.
type CachingVerifier struct {
	next          Verifier
	maxEntries    int
	revocationTTL time.Duration
	now           func() time.Time

	mu      sync.Mutex
	entries map[[32]byte]Claims
	fresh   map[[32]byte]freshEntry

	accounts accountCache // AccountDisabled answers (accounts.go)
}

type freshEntry struct {
	claims  Claims
	checked time.Time
}

// DefaultRevocationTTL is how long a passed revocation check is reused.
const DefaultRevocationTTL = 5 * time.Second

// CacheOption configures a CachingVerifier.
type CacheOption func(*CachingVerifier)

// WithMaxEntries bounds the number of cached tokens (default 10000).
func WithMaxEntries(n int) CacheOption { return func(c *CachingVerifier) { c.maxEntries = n } }

// WithRevocationTTL sets how long a passed revocation check is reused
// (0: never, every sensitive request checks).
func WithRevocationTTL(d time.Duration) CacheOption {
	return func(c *CachingVerifier) { c.revocationTTL = d }
}

// WithClock replaces time.Now (tests).
func WithClock(now func() time.Time) CacheOption { return func(c *CachingVerifier) { c.now = now } }

// NewCachingVerifier wraps next.
func NewCachingVerifier(next Verifier, opts ...CacheOption) *CachingVerifier {
	c := &CachingVerifier{next: next, maxEntries: 10000, revocationTTL: DefaultRevocationTTL, now: time.Now,
		entries: map[[32]byte]Claims{}, fresh: map[[32]byte]freshEntry{}}
	for _, o := range opts {
		o(c)
	}
	if c.maxEntries < 1 {
		c.maxEntries = 1
	}
	return c
}

// VerifyIDToken implements Verifier.
func (c *CachingVerifier) VerifyIDToken(ctx context.Context, raw string) (Claims, error) {
	key := sha256.Sum256([]byte(raw))
	now := c.now()

	c.mu.Lock()
	if cl, ok := c.entries[key]; ok {
		if now.Before(cl.ExpiresAt) {
			c.mu.Unlock()
			return cl, nil
		}
		delete(c.entries, key)
	}
	c.mu.Unlock()

	cl, err := c.next.VerifyIDToken(ctx, raw)
	if err != nil {
		return Claims{}, err
	}
	if !now.Before(cl.ExpiresAt) {
		// Never hand out (or cache) a token that is already past its expiry.
		return Claims{}, ErrInvalidToken
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.maxEntries {
		c.evictLocked(now)
	}
	c.entries[key] = cl
	return cl, nil
}

// VerifyIDTokenAndCheckRevoked implements RevocationVerifier: a revocation
// check by next (see VerifyFresh), reused for the revocation TTL. A refused
// token is not removed from the plain cache: other routes accept it until it
// expires (at most an hour), by design (docs/identity.md).
func (c *CachingVerifier) VerifyIDTokenAndCheckRevoked(ctx context.Context, raw string) (Claims, error) {
	key := sha256.Sum256([]byte(raw))
	now := c.now()

	c.mu.Lock()
	if e, ok := c.fresh[key]; ok {
		if now.Sub(e.checked) < c.revocationTTL && now.Before(e.claims.ExpiresAt) {
			c.mu.Unlock()
			return e.claims, nil
		}
		delete(c.fresh, key)
	}
	c.mu.Unlock()

	cl, err := VerifyFresh(ctx, c.next, raw)
	if err != nil {
		return Claims{}, err
	}
	if !now.Before(cl.ExpiresAt) {
		return Claims{}, ErrInvalidToken
	}
	if c.revocationTTL <= 0 {
		return cl, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.fresh) >= c.maxEntries {
		for k, e := range c.fresh { // drop stale checks
			if now.Sub(e.checked) >= c.revocationTTL {
				delete(c.fresh, k)
			}
		}
		for k := range c.fresh { // still full: drop any one
			if len(c.fresh) < c.maxEntries {
				break
			}
			delete(c.fresh, k)
		}
	}
	c.fresh[key] = freshEntry{claims: cl, checked: now}
	return cl, nil
}

// evictLocked drops expired entries; if the cache is still full it drops the
// entry that expires soonest.
func (c *CachingVerifier) evictLocked(now time.Time) {
	var (
		soonestKey [32]byte
		soonest    time.Time
		found      bool
	)
	for k, v := range c.entries {
		if !now.Before(v.ExpiresAt) {
			delete(c.entries, k)
			continue
		}
		if !found || v.ExpiresAt.Before(soonest) {
			soonestKey, soonest, found = k, v.ExpiresAt, true
		}
	}
	if len(c.entries) >= c.maxEntries && found {
		delete(c.entries, soonestKey)
	}
}

// Len returns the number of cached tokens.
func (c *CachingVerifier) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
