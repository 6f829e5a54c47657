// Package cache implements the wallet's Redis adapters: the per-user read
// cache (wallet.Cache) and the checkout rate limiter (wallet.RateLimiter).
//
// Redis is an optimisation, never a dependency: every operation has short
// timeouts, errors are logged and counted, a failed read is a miss, and after
// an error reads and writes skip Redis for a short cool-down so that an
// outage costs at most one timeout per cool-down. Invalidations are always
// attempted, and one that fails is retried in the background; until it gets
// through, that user's values are neither read from nor written to Redis, so
// a Redis hiccup never shows a balance or a history older than the last
// write (it had: a single 100 ms timeout under load left a stale history
// cached for its whole 60 s TTL).
package cache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
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
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	opt.DialTimeout = DialTimeout
	opt.ReadTimeout = IOTimeout
	opt.WriteTimeout = IOTimeout
	opt.PoolTimeout = IOTimeout
	opt.MaxRetries = -1 // no retries: a miss is cheaper than waiting
	opt.ContextTimeoutEnabled = true
	rdb := redis.NewClient(opt)
	if err := observability.TraceRedis(rdb, nil); err != nil {
		_ = rdb.Close()
		return nil, err
	}
	return rdb, nil
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
type Cache struct {
	rdb redis.UniversalClient
	log *slog.Logger
	m   metrics
	b   breaker

	// pending holds the users whose last invalidation has not reached
	// Redis yet, with when its retry gives up.
	mu      sync.Mutex
	pending map[string]time.Time
}

// New returns a Cache on rdb. reg may be nil.
func New(rdb redis.UniversalClient, logger *slog.Logger, reg prometheus.Registerer) *Cache {
	if logger == nil {
		logger = slog.Default()
	}
	return &Cache{rdb: rdb, log: logger, m: newMetrics(reg), pending: map[string]time.Time{}}
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

// bypassed reports whether uid's values must not be read or written: its
// last invalidation has not reached Redis yet.
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
// When Redis does not answer, the user's values are bypassed and the
// invalidation retried in the background until it gets through.
func (c *Cache) Invalidate(ctx context.Context, uid string) {
	if err := c.bumpGeneration(ctx, uid); err != nil {
		c.fail(ctx, "invalidate", err)
		c.retryInvalidate(ctx, uid)
		return
	}
	// This increment also covers any earlier one still being retried.
	c.mu.Lock()
	delete(c.pending, uid)
	c.mu.Unlock()
	c.m.ops.WithLabelValues("invalidate", "invalidated").Inc()
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

// retryInvalidate marks uid bypassed and, unless a retry for it is already
// running, starts one.
func (c *Cache) retryInvalidate(ctx context.Context, uid string) {
	c.mu.Lock()
	_, running := c.pending[uid]
	c.pending[uid] = time.Now().Add(RetryFor)
	c.mu.Unlock()
	if running {
		return
	}
	go func() {
		ctx := context.WithoutCancel(ctx)
		for delay := RetryFirst; ; delay = min(2*delay, RetryMax) {
			time.Sleep(delay)
			c.mu.Lock()
			until, still := c.pending[uid]
			c.mu.Unlock()
			if !still {
				return // a later Invalidate got through
			}
			err := c.bumpGeneration(ctx, uid)
			if err != nil && time.Now().Before(until) {
				c.m.errors.WithLabelValues("invalidate").Inc()
				continue
			}
			c.mu.Lock()
			delete(c.pending, uid)
			c.mu.Unlock()
			if err != nil {
				c.m.ops.WithLabelValues("invalidate", "expired").Inc()
				c.log.WarnContext(ctx, "redis invalidation abandoned, cached values have expired", "error", err)
				return
			}
			c.m.ops.WithLabelValues("invalidate", "retried").Inc()
			c.log.InfoContext(ctx, "redis invalidation retried and stored")
			return
		}
	}()
}

// Limiter is a fixed-window per-user rate limiter (INCR + EXPIRE on
// wallet:{uid}:rl:<name>:<window start>). When Redis fails it allows the
// request (fails open: Envoy's coarse limit still applies) and counts it.
type Limiter struct {
	rdb    redis.UniversalClient
	log    *slog.Logger
	name   string
	limit  int64
	window time.Duration
	now    func() time.Time
	denied prometheus.Counter
	m      metrics
}

// NewLimiter allows limit calls per window per user. reg may be nil.
func NewLimiter(rdb redis.UniversalClient, name string, limit int, window time.Duration, logger *slog.Logger, reg prometheus.Registerer) *Limiter {
	if logger == nil {
		logger = slog.Default()
	}
	denied := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "wallet_rate_limited_total", Help: "Requests rejected by the per-user rate limit.", ConstLabels: prometheus.Labels{"limit": name},
	})
	if reg != nil {
		denied = observability.Register(reg, denied)
	}
	return &Limiter{rdb: rdb, log: logger, name: name, limit: int64(limit), window: window, now: time.Now, denied: denied, m: newMetrics(reg)}
}

// Allow implements wallet.RateLimiter.
func (l *Limiter) Allow(ctx context.Context, uid string) bool {
	ctx, cancel := timeout(ctx)
	defer cancel()
	start := l.now().UnixNano() / int64(l.window) * int64(l.window)
	key := "wallet:{" + uid + "}:rl:" + l.name + ":" + strconv.FormatInt(start/int64(time.Millisecond), 10)
	pipe := l.rdb.TxPipeline()
	incr := pipe.Incr(ctx, key)
	pipe.Expire(ctx, key, l.window+time.Second)
	if _, err := pipe.Exec(ctx); err != nil {
		l.m.errors.WithLabelValues("ratelimit").Inc()
		l.log.WarnContext(ctx, "redis unavailable, rate limit not applied", "limit", l.name, "error", err)
		return true
	}
	if incr.Val() > l.limit {
		l.denied.Inc()
		return false
	}
	return true
}
