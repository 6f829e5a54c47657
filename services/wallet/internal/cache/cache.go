// Package cache implements the wallet's per-user read cache in Redis
// (wallet.Cache).
//
// Redis is an optimisation, never a dependency: every operation has short
// timeouts, errors are logged and counted, a failed read is a miss, and after
// an error reads and writes skip Redis for a short cool-down so that an
// outage costs at most one timeout per cool-down. Invalidations are always
// attempted, in the background, and retried while Redis does not answer;
// until one gets through, that user's values are neither read from nor
// written to Redis, so a Redis hiccup never shows a balance or a history
// older than the last write (it had: a single 100 ms timeout under load left
// a stale history cached for its whole 60 s TTL).
package cache

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/agentic-app/agentic/services/platform/observability"
)

// Timeouts of every Redis call.
const (
	DialTimeout = 200 * time.Millisecond
	IOTimeout   = 100 * time.Millisecond
	CoolDown    = time.Second
	// GenerationTTL keeps a user's generation counter well beyond any cached value's lifetime.
	GenerationTTL = 7 * 24 * time.Hour
	// A failed invalidation is retried after RetryFirst, doubling up to
	// RetryMax, for RetryFor: longer than any value lives (the wallet's
	// longest TTL is 60 s), after which everything cached before the write
	// has expired and the retry is moot.
	RetryFirst = 50 * time.Millisecond
	RetryMax   = time.Second
	RetryFor   = 2 * time.Minute
)

// NewClient returns a go-redis client for url (redis://[:pass@]host:port/db)
// with short timeouts and no retries. Its commands are traced
// (observability.TraceRedis).
func NewClient(url string) (*redis.Client, error) {
	return observability.NewRedis(url, observability.RedisBounds{Dial: DialTimeout, IO: IOTimeout, Pool: IOTimeout})
}

type metrics struct {
	ops    *prometheus.CounterVec
	errors *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) metrics {
	m := metrics{
		ops: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wallet_cache_operations_total", Help: "Wallet cache operations by op and result (hit, miss, stored, invalidated, retried, expired, skipped, error).",
		}, []string{"op", "result"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wallet_redis_errors_total", Help: "Redis errors by operation (the wallet falls back to PostgreSQL).",
		}, []string{"op"}),
	}
	if reg != nil {
		m.ops = observability.Register(reg, m.ops)
		m.errors = observability.Register(reg, m.errors)
	}
	return m
}

// breaker skips Redis for CoolDown after an error.
type breaker struct{ openUntil atomic.Int64 }

func (b *breaker) open() bool { return time.Now().UnixNano() < b.openUntil.Load() }
func (b *breaker) trip()      { b.openUntil.Store(time.Now().Add(CoolDown).UnixNano()) }

// Cache is the Redis wallet.Cache. Values live under
// wallet:{uid}:<generation>:<key>; Invalidate increments the user's
// generation (wallet:{uid}:gen) after the ledger write has committed, so
// every value cached before it becomes unreachable at once (it expires by
// TTL), and a reader that computed a value from PostgreSQL before the write
// stores it under the old generation, where nobody looks any more.
//
// The increment is sent in the background, off the write's path (a Reserve
// is on the way to an answer's first token): from the moment Invalidate is
// called until the increment is stored, this replica bypasses the user's
// values, so its readers never see what was cached before the write. The
// increments of one user are coalesced: one in flight at a time, covering
// every write invalidated before it was sent.
type Cache struct {
	rdb redis.UniversalClient
	log *slog.Logger
	m   metrics
	b   breaker

	mu      sync.Mutex
	pending map[string]*pendingGen
	flushes sync.WaitGroup
}

// pendingGen is a user's invalidations not yet stored in Redis.
type pendingGen struct {
	requested uint64    // Invalidate calls so far
	giveUp    time.Time // retrying longer is moot: what was cached has expired
}

// New returns a Cache on rdb. reg may be nil.
func New(rdb redis.UniversalClient, logger *slog.Logger, reg prometheus.Registerer) *Cache {
	if logger == nil {
		logger = slog.Default()
	}
	return &Cache{rdb: rdb, log: logger, m: newMetrics(reg), pending: map[string]*pendingGen{}}
}

func genKey(uid string) string { return "wallet:{" + uid + "}:gen" }
func valueKey(uid, gen, key string) string {
	return "wallet:{" + uid + "}:" + gen + ":" + key
}

func (c *Cache) fail(ctx context.Context, op string, err error) {
	c.b.trip()
	c.m.errors.WithLabelValues(op).Inc()
	c.m.ops.WithLabelValues(op, "error").Inc()
	c.log.WarnContext(ctx, "redis unavailable, using PostgreSQL", "op", op, "error", err)
}

func timeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 2*IOTimeout)
}

// bypassed reports whether uid's values must not be read or written: an
// invalidation of it has not reached Redis yet.
func (c *Cache) bypassed(uid string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[uid]
	return ok
}

// Lookup implements wallet.Cache.
func (c *Cache) Lookup(ctx context.Context, uid, key string) ([]byte, string, bool) {
	if c.b.open() || c.bypassed(uid) {
		c.m.ops.WithLabelValues("lookup", "skipped").Inc()
		return nil, "", false
	}
	ctx, cancel := timeout(ctx)
	defer cancel()
	gen, err := c.rdb.Get(ctx, genKey(uid)).Result()
	switch {
	case errors.Is(err, redis.Nil):
		gen = "0"
	case err != nil:
		c.fail(ctx, "lookup", err)
		return nil, "", false
	}
	v, err := c.rdb.Get(ctx, valueKey(uid, gen, key)).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		c.m.ops.WithLabelValues("lookup", "miss").Inc()
		return nil, gen, false
	case err != nil:
		c.fail(ctx, "lookup", err)
		return nil, "", false
	}
	c.m.ops.WithLabelValues("lookup", "hit").Inc()
	return v, gen, true
}

// Put implements wallet.Cache.
func (c *Cache) Put(ctx context.Context, uid, gen, key string, value []byte, ttl time.Duration) {
	if gen == "" {
		return
	}
	if c.b.open() || c.bypassed(uid) {
		c.m.ops.WithLabelValues("put", "skipped").Inc()
		return
	}
	ctx, cancel := timeout(ctx)
	defer cancel()
	if err := c.rdb.Set(ctx, valueKey(uid, gen, key), value, ttl).Err(); err != nil {
		c.fail(ctx, "put", err)
		return
	}
	c.m.ops.WithLabelValues("put", "stored").Inc()
}

// Invalidate implements wallet.Cache; call it after the write committed.
// It returns at once: the user's values are bypassed here until the new
// generation is stored, which is retried in the background while Redis does
// not answer (RetryFirst doubling to RetryMax, for RetryFor).
func (c *Cache) Invalidate(ctx context.Context, uid string) {
	c.mu.Lock()
	p, running := c.pending[uid]
	if !running {
		p = &pendingGen{}
		c.pending[uid] = p
	}
	p.requested++
	p.giveUp = time.Now().Add(RetryFor)
	if !running {
		c.flushes.Add(1)
	}
	c.mu.Unlock()
	if !running {
		go c.flush(context.WithoutCancel(ctx), uid)
	}
}

// flush stores uid's new generation until every invalidation requested so
// far is covered, then ends the bypass.
func (c *Cache) flush(ctx context.Context, uid string) {
	defer c.flushes.Done()
	delay := RetryFirst
	failed := false
	for {
		c.mu.Lock()
		target := c.pending[uid].requested
		c.mu.Unlock()
		// The increment is sent after target was read, so it follows every
		// write whose Invalidate counted in target.
		err := c.bumpGeneration(ctx, uid)
		c.mu.Lock()
		p := c.pending[uid]
		switch {
		case err == nil:
			if target == p.requested {
				delete(c.pending, uid)
				c.mu.Unlock()
				c.m.ops.WithLabelValues("invalidate", "invalidated").Inc()
				if failed {
					c.m.ops.WithLabelValues("invalidate", "retried").Inc()
					c.log.InfoContext(ctx, "redis invalidation retried and stored")
				}
				return
			}
			c.mu.Unlock() // written meanwhile: one more increment
			continue
		case time.Now().After(p.giveUp):
			delete(c.pending, uid)
			c.mu.Unlock()
			c.m.ops.WithLabelValues("invalidate", "expired").Inc()
			c.log.WarnContext(ctx, "redis invalidation abandoned, cached values have expired", "error", err)
			return
		}
		c.mu.Unlock()
		if !failed {
			c.fail(ctx, "invalidate", err)
			failed = true
		} else {
			c.m.errors.WithLabelValues("invalidate").Inc()
		}
		time.Sleep(delay)
		delay = min(2*delay, RetryMax)
	}
}

func (c *Cache) bumpGeneration(ctx context.Context, uid string) error {
	ctx, cancel := timeout(ctx)
	defer cancel()
	pipe := c.rdb.TxPipeline()
	pipe.Incr(ctx, genKey(uid))
	pipe.Expire(ctx, genKey(uid), GenerationTTL)
	_, err := pipe.Exec(ctx)
	return err
}

// RedisErrors is the wallet_redis_errors_total counter of op: the
// wallet's other Redis clients (the checkout limit, op "ratelimit") count
// their failures with the cache's.
func (c *Cache) RedisErrors(op string) prometheus.Counter { return c.m.errors.WithLabelValues(op) }

// Drain waits, at most until ctx ends, for the invalidations in flight
// (shutdown: another replica must not keep serving what this one changed).
func (c *Cache) Drain(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		c.flushes.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
