package conversations

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/worker"
)

// KeyRevocationFeed lists recently revoked keys. A store that has one (the
// PostgreSQL store) lets RunKeyRevocationWatcher keep this replica's key
// cache in step with revocations, so that cached keys can be trusted for
// minutes instead of one second.
type KeyRevocationFeed interface {
	// RevokedAPIKeysSince returns the ids of keys whose revocation was
	// logged at or after since minus margin (by the database's clock; zero
	// since: its now), and the database's now to pass as the next since.
	RevokedAPIKeysSince(ctx context.Context, since time.Time, margin time.Duration) (ids []string, now time.Time, err error)
}

const (
	// watchedKeyTTL is how long a cached key is trusted while the
	// revocation watcher is in step (it is re-read after that anyway, so a
	// cache never holds a key for ever).
	watchedKeyTTL = 10 * time.Minute
	// revocationPollInterval is how often the watcher polls; with
	// MaxAPIKeyCacheTTL it bounds how late a replica learns of a revocation.
	revocationPollInterval = 250 * time.Millisecond
	// revocationMargin re-reads revocations logged this long before the last
	// poll's clock: a revocation whose transaction took its timestamp before
	// that poll but committed after it is still seen.
	revocationMargin = 10 * time.Second
)

// RunKeyRevocationWatcher polls the store for revoked keys until ctx ends
// and drops them from this replica's key cache. While its polls succeed,
// cached keys are trusted for watchedKeyTTL: a key's first request on a
// replica reads PostgreSQL, the following ones do not (the agent API's key
// check stays in the microseconds under load). When polls fail, cached keys
// fall back to the MaxAPIKeyCacheTTL bound, so a revocation never takes
// longer than a second to reach a replica. Without a feed it just waits.
func (s *Service) RunKeyRevocationWatcher(ctx context.Context) error {
	feed, ok := s.revocations, s.revocations != nil
	if !ok {
		feed, ok = s.store.(KeyRevocationFeed)
	}
	if !ok || s.keyCache.ttl <= 0 {
		<-ctx.Done()
		return nil
	}
	var since time.Time
	failing := false
	worker.Every(ctx, revocationPollInterval, func(ctx context.Context) {
		started := time.Now()
		ids, now, err := feed.RevokedAPIKeysSince(ctx, since, revocationMargin)
		switch {
		case err != nil && ctx.Err() != nil:
			// Shutting down: the loop ends without a warning.
		case err != nil:
			if !failing {
				s.log.WarnContext(ctx, "api key revocation poll failed; cached keys are trusted for at most 1s until it recovers", "error", err)
			}
			failing = true
		default:
			if failing {
				s.log.InfoContext(ctx, "api key revocation poll recovered")
			}
			failing = false
			for _, id := range ids {
				s.keyCache.revoked(strings.ToLower(id))
			}
			s.keyCache.inStep(started)
			since = now
		}
	})
	return nil
}

// keyCache remembers looked-up keys, keyed by hash. An entry is trusted for
// ttl (≤ MaxAPIKeyCacheTTL) after it was read, or for watchedKeyTTL while
// the revocation watcher is in step: its last successful poll started less
// than MaxAPIKeyCacheTTL ago, so any revocation committed more than that
// long ago has been applied. A revocation on this replica drops the key at
// once; keys the watcher reported revoked are not cached again for a while
// (a look-up that started before the revocation cannot bring them back).
type keyCache struct {
	ttl time.Duration
	max int
	now func() time.Time // entry ages (the service's clock)
	// mono is the wall clock of the watcher's bound (real time, never a
	// test's fake clock).
	mono func() time.Time

	mu        sync.Mutex
	m         map[[32]byte]cachedKey
	byID      map[string][32]byte
	tombs     map[string]time.Time // revoked key id → when the watcher reported it (mono)
	freshTill time.Time            // mono: entries may be trusted for watchedKeyTTL until then

	hits, misses prometheus.Counter
}

type cachedKey struct {
	key     APIKey
	fetched time.Time
}

func newKeyCache(ttl time.Duration, now func() time.Time, reg prometheus.Registerer) *keyCache {
	if ttl > MaxAPIKeyCacheTTL {
		ttl = MaxAPIKeyCacheTTL
	}
	c := &keyCache{ttl: ttl, max: 10000, now: now, mono: time.Now,
		m: map[[32]byte]cachedKey{}, byID: map[string][32]byte{}, tombs: map[string]time.Time{}}
	lookups := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "conversations_api_key_cache_total", Help: "Agent API key look-ups by result: hit (memory) or miss (PostgreSQL).",
	}, []string{"result"})
	if reg != nil {
		lookups = observability.Register(reg, lookups)
	}
	c.hits, c.misses = lookups.WithLabelValues("hit"), lookups.WithLabelValues("miss")
	return c
}

func (c *keyCache) get(hash []byte) (APIKey, bool) {
	if c.ttl <= 0 {
		c.misses.Inc()
		return APIKey{}, false
	}
	var h [32]byte
	copy(h[:], hash)
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[h]
	if ok {
		limit := c.ttl
		if c.mono().Before(c.freshTill) {
			limit = watchedKeyTTL
		}
		if age := c.now().Sub(e.fetched); age < 0 || age >= limit {
			c.drop(h)
			ok = false
		}
	}
	if !ok {
		c.misses.Inc()
		return APIKey{}, false
	}
	c.hits.Inc()
	return e.key, true
}

func (c *keyCache) put(hash []byte, k APIKey) {
	if c.ttl <= 0 {
		return
	}
	var h [32]byte
	copy(h[:], hash)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, gone := c.tombs[k.ID]; gone && k.RevokedAt == nil {
		return // read before a revocation the watcher has reported
	}
	now := c.now()
	if len(c.m) >= c.max {
		for ck, e := range c.m {
			if now.Sub(e.fetched) >= c.ttl && now.Sub(e.fetched) >= watchedKeyTTL {
				c.drop(ck)
			}
		}
		for ck := range c.m { // still full: drop arbitrary entries
			if len(c.m) < c.max {
				break
			}
			c.drop(ck)
		}
	}
	c.m[h] = cachedKey{key: k, fetched: now}
	c.byID[k.ID] = h
}

// drop removes one entry; c.mu is held.
func (c *keyCache) drop(h [32]byte) {
	if e, ok := c.m[h]; ok {
		delete(c.byID, e.key.ID)
		delete(c.m, h)
	}
}

func (c *keyCache) forget(keyID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h, ok := c.byID[keyID]; ok {
		c.drop(h)
	}
}

// revoked applies a revocation the watcher reported.
func (c *keyCache) revoked(keyID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h, ok := c.byID[keyID]; ok && c.m[h].key.RevokedAt == nil {
		c.drop(h)
	}
	c.tombs[keyID] = c.mono()
}

// inStep records a successful watcher poll that started at started: every
// revocation committed before then has been applied.
func (c *keyCache) inStep(started time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if till := started.Add(MaxAPIKeyCacheTTL); till.After(c.freshTill) {
		c.freshTill = till
	}
	for id, at := range c.tombs { // a poll re-reports revocations for revocationMargin
		if started.Sub(at) > 2*revocationMargin {
			delete(c.tombs, id)
		}
	}
}
