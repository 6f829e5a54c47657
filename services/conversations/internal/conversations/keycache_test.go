package conversations

import (
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for the cache's two clocks.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func testCache() (*keyCache, *fakeClock) {
	clk := &fakeClock{t: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	c := newKeyCache(MaxAPIKeyCacheTTL, clk.now, nil)
	c.mono = clk.now
	return c, clk
}

// Without a watcher in step, a cached key is trusted for one second only.
func TestKeyCacheWithoutWatcherTrustsOneSecond(t *testing.T) {
	c, clk := testCache()
	hash := HashAPIKey("agk_one")
	c.put(hash, APIKey{ID: "k1"})
	clk.add(900 * time.Millisecond)
	if _, ok := c.get(hash); !ok {
		t.Fatal("entry younger than 1s should be trusted")
	}
	clk.add(200 * time.Millisecond)
	if _, ok := c.get(hash); ok {
		t.Fatal("entry older than 1s trusted without a revocation watcher")
	}
}

// While the watcher's polls succeed, entries are trusted for minutes; when
// they stop, the one-second bound is back.
func TestKeyCacheTrustsLongerWhileWatcherInStep(t *testing.T) {
	c, clk := testCache()
	hash := HashAPIKey("agk_two")
	c.put(hash, APIKey{ID: "k2"})
	for range 20 { // 5 s of polls every 250 ms
		clk.add(revocationPollInterval)
		c.inStep(clk.now())
		if _, ok := c.get(hash); !ok {
			t.Fatalf("entry dropped at %s although the watcher is in step", clk.now())
		}
	}
	clk.add(MaxAPIKeyCacheTTL) // the last poll started 1 s ago: no longer in step
	if _, ok := c.get(hash); ok {
		t.Fatal("entry trusted beyond 1s after the watcher's last successful poll")
	}
}

// A revocation the watcher reports drops the key, and a look-up that read
// the key before the revocation cannot put it back.
func TestKeyCacheRevocationFromWatcher(t *testing.T) {
	c, clk := testCache()
	hash := HashAPIKey("agk_three")
	c.put(hash, APIKey{ID: "k3"})
	c.inStep(clk.now())
	c.revoked("k3")
	if _, ok := c.get(hash); ok {
		t.Fatal("revoked key still cached")
	}
	c.put(hash, APIKey{ID: "k3"}) // a stale read finishing late
	if _, ok := c.get(hash); ok {
		t.Fatal("a read from before the revocation was cached again")
	}
	revokedAt := clk.now()
	c.put(hash, APIKey{ID: "k3", RevokedAt: &revokedAt}) // the fresh read
	if k, ok := c.get(hash); !ok || k.RevokedAt == nil {
		t.Fatalf("revoked row not cached as revoked: %+v %v", k, ok)
	}
	// Tombstones end once the poll stops re-reporting the key.
	clk.add(3 * revocationMargin)
	c.inStep(clk.now())
	if _, ok := c.tombs["k3"]; ok {
		t.Fatal("tombstone kept after the poll's margin")
	}
}

func TestKeyCacheForgetByID(t *testing.T) {
	c, _ := testCache()
	a, b := HashAPIKey("agk_a"), HashAPIKey("agk_b")
	c.put(a, APIKey{ID: "ka"})
	c.put(b, APIKey{ID: "kb"})
	c.forget("ka")
	if _, ok := c.get(a); ok {
		t.Fatal("forgotten key still cached")
	}
	if _, ok := c.get(b); !ok {
		t.Fatal("forget dropped another key")
	}
}
