package database_test

import (
	"context"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
)

func TestOpenTracesQueries(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() { _ = tp.Shutdown(context.Background()) }()

	pool, err := database.Open(ctx, database.OpenConfig{
		URL:            dbtest.NewURL(t, "trace"),
		TracerProvider: tp,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	// Without a recording parent span nothing is traced (background work
	// such as the outbox relay's polling does not flood the tracer).
	if _, err := pool.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Ended()); n != 0 {
		t.Fatalf("%d spans without a parent", n)
	}

	reqCtx, parent := tp.Tracer("test").Start(ctx, "GET /api/agents/{agentId}")
	var n int
	if err := pool.QueryRow(reqCtx, "SELECT count(*) FROM pg_database WHERE datname = $1", "secret_argument").Scan(&n); err != nil {
		t.Fatal(err)
	}
	parent.End()

	var query sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "SELECT" {
			query = s
		}
	}
	if query == nil {
		var names []string
		for _, s := range rec.Ended() {
			names = append(names, s.Name())
		}
		t.Fatalf("no SELECT span; spans: %v", names)
	}
	if query.Parent().SpanID() != parent.SpanContext().SpanID() || query.SpanKind() != trace.SpanKindClient {
		t.Errorf("query span parent %v kind %v", query.Parent(), query.SpanKind())
	}
	attrs := map[string]string{}
	for _, a := range query.Attributes() {
		attrs[string(a.Key)] = a.Value.String()
	}
	if attrs["db.query.text"] != "SELECT count(*) FROM pg_database WHERE datname = $1" || attrs["db.system.name"] != "postgresql" {
		t.Errorf("query span attributes %v", attrs)
	}
	for k, v := range attrs {
		if strings.Contains(v, "secret_argument") {
			t.Errorf("query argument leaked into attribute %s", k)
		}
	}
}
