package embeddings_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/agentic-app/agentic/services/documents/internal/embeddings"
	"github.com/agentic-app/agentic/services/documents/internal/embeddings/embeddingstest"
)

func newClient(t *testing.T, srv *embeddingstest.Server, key string, reg prometheus.Registerer) *embeddings.Client {
	t.Helper()
	c, err := embeddings.New(embeddings.Config{BaseURL: srv.URL, Model: embeddingstest.Model, APIKey: key,
		MaxRetries: 2, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEmbedBatchesAndNormalises(t *testing.T) {
	srv := embeddingstest.New(t, "sk-test")
	reg := prometheus.NewRegistry()
	c := newClient(t, srv, "sk-test", reg)
	texts := make([]string, 150)
	for i := range texts {
		texts[i] = strings.Repeat("homework deadline ", i%5+1)
	}
	texts[3] = "" // sent as a space
	vecs, err := c.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 150 || srv.Requests() != 3 || srv.Inputs() != 150 {
		t.Fatalf("%d vectors in %d requests", len(vecs), srv.Requests())
	}
	for i, v := range vecs {
		if i == 3 {
			continue
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if math.Abs(n-1) > 1e-4 || len(v) != embeddingstest.Dims {
			t.Fatalf("vector %d: norm² %v, %d dims", i, n, len(v))
		}
	}
	if n, err := testutil.GatherAndCount(reg, "documents_embeddings_requests_total"); err != nil || n != 1 {
		t.Fatalf("request metric series: %d, %v", n, err)
	}
	if !c.Simulated() || c.Model() != embeddingstest.Model {
		t.Fatal("the simulator's model must read as simulated")
	}
}

func TestEmbedRetriesRateLimits(t *testing.T) {
	srv := embeddingstest.New(t, "")
	c := newClient(t, srv, "", nil)
	srv.Fail(2, 429, "0")
	start := time.Now()
	if _, err := c.Embed(context.Background(), []string{"a b c"}); err != nil {
		t.Fatalf("after two 429s: %v", err)
	}
	if srv.Requests() != 3 || time.Since(start) > 10*time.Second {
		t.Fatalf("%d requests", srv.Requests())
	}
	srv.Fail(-1, 503, "")
	if _, err := c.Embed(context.Background(), []string{"a"}); err == nil {
		t.Fatal("a provider that keeps failing must fail the call")
	}
	if srv.Requests() != 6 { // 1 + 2 retries
		t.Fatalf("%d requests", srv.Requests())
	}
}

func TestEmbedQueryCountsFallbacks(t *testing.T) {
	srv := embeddingstest.New(t, "sk-test")
	reg := prometheus.NewRegistry()
	c := newClient(t, srv, "wrong-key", reg)
	if _, err := c.EmbedQuery(context.Background(), "when is homework due"); err == nil {
		t.Fatal("a wrong key must fail")
	}
	n, err := testutil.GatherAndCount(reg, "documents_embeddings_query_fallbacks_total")
	if err != nil || n != 1 {
		t.Fatalf("fallback metric: %d, %v", n, err)
	}
	ok := newClient(t, srv, "sk-test", nil)
	v, err := ok.EmbedQuery(context.Background(), "when is homework due")
	if err != nil || len(v) != embeddingstest.Dims {
		t.Fatalf("query: %d dims, %v", len(v), err)
	}
}

func TestNewNeedsURLAndModel(t *testing.T) {
	if _, err := embeddings.New(embeddings.Config{Model: "m"}); err == nil {
		t.Fatal("no base URL must fail")
	}
	if _, err := embeddings.New(embeddings.Config{BaseURL: "http://x/v1"}); err == nil {
		t.Fatal("no model must fail")
	}
}

func TestTextHashMatchesPostgres(t *testing.T) {
	// md5(heading_path || E'\n' || body) in migration 00009.
	if got := embeddings.TextHash("", ""); got != "68b329da9893e34099c7d8ad5cb9c940" { // md5("\n")
		t.Fatalf("TextHash = %s", got)
	}
}
