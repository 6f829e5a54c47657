package observability

import (
	"context"
	"testing"
)

func TestStartTracingNoopStops(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	stop, err := StartTracing(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	stop()
}
