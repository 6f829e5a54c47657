package observability

import (
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
