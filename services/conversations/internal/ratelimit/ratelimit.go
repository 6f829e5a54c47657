// Package ratelimit is the per-user message rate limit, a fixed window in
// Redis shared by every replica (INCR + PEXPIRE on
// conversations:{uid}:rl:<name>:<window start>).
//
// Redis is a guard, not a dependency: when it fails the message is allowed
// (fail open, counted and logged) rather than refusing every user. The
// wallet still bounds what anyone can spend.
package ratelimit

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/agentic-app/agentic/services/platform/observability"
)

// Timeouts of Redis calls, and the pool.
const (
	DialTimeout = 200 * time.Millisecond
	IOTimeout   = 100 * time.Millisecond
	// PoolTimeout bounds the wait for a free connection. Under a burst
	// (bench/conversations' money phase: 200 messages at once, each with
	// its rate limit and quota checks) every connection is busy for a
	// moment: that is not Redis being down, which the dial and I/O
	// timeouts detect, so the wait may be longer than one command. With
	// the I/O timeout as the bound, 18 of 200 such messages were refused
	// with 503.
	PoolTimeout = 500 * time.Millisecond
	// PoolSize is the connections per replica (go-redis's default is 10
	// per CPU: 20 on two cores, too few for that burst).
	PoolSize = 64
)

// NewClient returns a go-redis client for url (redis://[:pass@]host:port/db)
// with short timeouts and no retries. Its commands are traced
// (observability.TraceRedis).
func NewClient(url string) (*redis.Client, error) {
	return observability.NewRedis(url, observability.RedisBounds{Dial: DialTimeout, IO: IOTimeout, Pool: PoolTimeout, PoolSize: PoolSize})
}

// Limiter allows Limit calls per Window per user.
type Limiter struct {
	rdb    redis.UniversalClient
	name   string
	limit  int64
	window time.Duration
	log    *slog.Logger
	now    func() time.Time

	denied prometheus.Counter
	errs   prometheus.Counter
}

// Config configures a Limiter.
type Config struct {
	// Name distinguishes limits in keys and metrics (e.g. "chat").
	Name string
	// Limit per Window (default 20 per minute). A limit <= 0 disables the limiter.
	Limit  int
	Window time.Duration
	Logger *slog.Logger
	// Registerer receives the limiter's metrics (optional).
	Registerer prometheus.Registerer
	// Now is the clock (tests).
	Now func() time.Time
}

// New returns a Limiter on rdb.
func New(rdb redis.UniversalClient, cfg Config) *Limiter {
	if cfg.Name == "" {
		cfg.Name = "chat"
	}
	if cfg.Window <= 0 {
		cfg.Window = time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	l := &Limiter{
		rdb: rdb, name: cfg.Name, limit: int64(cfg.Limit), window: cfg.Window, log: cfg.Logger, now: cfg.Now,
		denied: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "conversations_rate_limited_total", Help: "Messages refused by the per-user rate limit.",
			ConstLabels: prometheus.Labels{"limit": cfg.Name},
		}),
		errs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "conversations_rate_limit_errors_total", Help: "Rate-limit checks that failed open (Redis unavailable).",
			ConstLabels: prometheus.Labels{"limit": cfg.Name},
		}),
	}
	if cfg.Registerer != nil {
		l.denied = observability.Register(cfg.Registerer, l.denied)
		l.errs = observability.Register(cfg.Registerer, l.errs)
	}
	return l
}

// Allow counts one call of uid; when the window's count is over the limit
// it returns false and how long until the window ends (at least 1 s, so a
// Retry-After header is never 0).
func (l *Limiter) Allow(ctx context.Context, uid string) (bool, time.Duration) {
	if l.limit <= 0 {
		return true, 0
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*IOTimeout)
	defer cancel()
	now := l.now()
	start := now.UnixNano() / int64(l.window) * int64(l.window)
	key := "conversations:{" + uid + "}:rl:" + l.name + ":" + strconv.FormatInt(start/int64(time.Millisecond), 10)
	pipe := l.rdb.TxPipeline()
	incr := pipe.Incr(ctx, key)
	pipe.PExpire(ctx, key, l.window+time.Second)
	if _, err := pipe.Exec(ctx); err != nil {
		l.errs.Inc()
		l.log.WarnContext(ctx, "redis unavailable, rate limit not applied", "limit", l.name, "error", err)
		return true, 0
	}
	if incr.Val() <= l.limit {
		return true, 0
	}
	l.denied.Inc()
	retry := time.Duration(start + int64(l.window) - now.UnixNano())
	if retry < time.Second {
		retry = time.Second
	}
	return false, retry
}

// APILimits is the agent API's rate limit: one window per key and one per
// owner (all of an owner's keys together), both in Redis so every replica
// shares them. A request must pass both; Retry-After is the refusing
// window's end.
type APILimits struct {
	Key, Owner *Limiter
}

// AllowAPI implements conversations.APILimiter. The key's window is
// counted first: a key over its own limit does not use up its owner's.
func (a APILimits) AllowAPI(ctx context.Context, keyID, ownerUID string) (bool, time.Duration) {
	if a.Key != nil {
		if ok, retry := a.Key.Allow(ctx, keyID); !ok {
			return false, retry
		}
	}
	if a.Owner != nil {
		return a.Owner.Allow(ctx, ownerUID)
	}
	return true, 0
}
