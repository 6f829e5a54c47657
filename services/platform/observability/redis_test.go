package observability

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

func TestTraceRedisRecordsCommandSpans(t *testing.T) {
	addr := os.Getenv("TEST_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	rdb := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: time.Second, MaxRetries: -1})
	defer rdb.Close()
	if err := TraceRedis(rdb, tp); err != nil {
		t.Fatal(err)
	}

	b := make([]byte, 6)
	_, _ = rand.Read(b)
	key := "agentic:observability-test:" + hex.EncodeToString(b)
	ctx, parent := tp.Tracer("test").Start(context.Background(), "GET /api/user/balance")
	// A miss or an unreachable Redis is an error, but the command is traced either way.
	err := rdb.Get(ctx, key).Err()
	parent.End()
	if err != nil && err != redis.Nil {
		t.Logf("redis at %s: %v (the span is still expected)", addr, err)
	}

	var get sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "get" {
			get = s
		}
	}
	if get == nil {
		t.Fatalf("no span named get among %d", len(rec.Ended()))
	}
	if get.Parent().SpanID() != parent.SpanContext().SpanID() || get.SpanKind() != trace.SpanKindClient {
		t.Errorf("get span parent %v kind %v", get.Parent(), get.SpanKind())
	}
	attrs := map[string]string{}
	for _, a := range get.Attributes() {
		attrs[string(a.Key)] = a.Value.String()
	}
	if attrs["db.system"] != "redis" {
		t.Errorf("attributes %v", attrs)
	}
	for k, v := range attrs {
		if v == "get "+key || k == "db.statement" || k == "code.function" {
			t.Errorf("attribute %s=%q should be left out", k, v)
		}
	}
}
