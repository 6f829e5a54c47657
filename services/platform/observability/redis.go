package observability

import (
	"fmt"
	"time"

	"github.com/redis/go-redis/extra/redisotel/v9"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/trace"
)

// TraceRedis makes every command and pipeline of rdb a client span (redisotel):
// the span is named after the command ("get", "evalsha", "pipeline ...") and
// carries db.system=redis and the server address. The command line itself
// (db.statement) is left out, because it holds cached values and user ids,
// and so is the calling function (it costs a stack walk per command). Dials
// are traced too. tp nil means the global provider (observability.StartTracing),
// under which the spans cost next to nothing while tracing is off.
//
// Every service's Redis client constructor calls it; there is no Prometheus
// side to it (each service counts its own Redis operations and errors).
func TraceRedis(rdb redis.UniversalClient, tp trace.TracerProvider) error {
	opts := []redisotel.TracingOption{
		redisotel.WithDBStatement(false),
		redisotel.WithCallerEnabled(false),
	}
	if tp != nil {
		opts = append(opts, redisotel.WithTracerProvider(tp))
	}
	return redisotel.InstrumentTracing(rdb, opts...)
}

// RedisBounds are a client's timeouts and pool: every service's Redis use
// (quotas, the wallet's cache) is a short command whose slowness is treated
// as a failure, so calls are bounded and never retried.
type RedisBounds struct {
	Dial, IO, Pool time.Duration
	// PoolSize raises go-redis's default pool (10 per CPU) when larger; 0
	// keeps the default.
	PoolSize int
}

// NewRedis returns a go-redis client for url (redis://[:pass@]host:port/db)
// with bounds b, no retries and context deadlines honoured, its commands
// traced (TraceRedis). It connects lazily: Redis being down at start-up
// does not stop a service.
func NewRedis(url string, b RedisBounds) (*redis.Client, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	opt.DialTimeout = b.Dial
	opt.ReadTimeout = b.IO
	opt.WriteTimeout = b.IO
	opt.PoolTimeout = b.Pool
	opt.PoolSize = max(opt.PoolSize, b.PoolSize)
	opt.MaxRetries = -1
	opt.ContextTimeoutEnabled = true
	rdb := redis.NewClient(opt)
	if err := TraceRedis(rdb, nil); err != nil {
		_ = rdb.Close()
		return nil, err
	}
	return rdb, nil
}
