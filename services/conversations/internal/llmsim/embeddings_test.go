package llmsim_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agentic-app/agentic/services/conversations/internal/llmsim"
)

func cosine(a, b []float64) float64 {
	var d float64
	for i := range a {
		d += a[i] * b[i]
	}
	return d // both are unit vectors
}

func TestEmbeddingsWithTheOfficialClient(t *testing.T) {
	sim, srv := newSim(t, llmsim.Config{APIKey: "sk-test"})
	c := client(srv)
	inputs := []string{"Homework is due every Friday.", "When is the homework due?", "Always wear goggles in the lab."}
	res, err := c.Embeddings.New(context.Background(), openai.EmbeddingNewParams{
		Model: llmsim.EmbeddingModel, Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: inputs},
		EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Data) != 3 || res.Model != llmsim.EmbeddingModel || res.Usage.PromptTokens <= 0 || res.Usage.TotalTokens != res.Usage.PromptTokens {
		t.Fatalf("response %+v", res)
	}
	for i, d := range res.Data {
		if d.Index != int64(i) || len(d.Embedding) != llmsim.EmbeddingDims {
			t.Fatalf("item %d: index %d, %d dims", i, d.Index, len(d.Embedding))
		}
		var n float64
		for _, x := range d.Embedding {
			n += x * x
		}
		if math.Abs(n-1) > 1e-4 {
			t.Fatalf("item %d not unit length: %v", i, n)
		}
	}
	// Shared words make texts close; deterministic across calls.
	if near, far := cosine(res.Data[0].Embedding, res.Data[1].Embedding), cosine(res.Data[1].Embedding, res.Data[2].Embedding); near <= far {
		t.Fatalf("cosine(homework, homework) %v <= cosine(homework, goggles) %v", near, far)
	}
	again, err := c.Embeddings.New(context.Background(), openai.EmbeddingNewParams{
		Model: "any-model", Input: openai.EmbeddingNewParamsInputUnion{OfString: openai.String(inputs[1])},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range again.Data[0].Embedding {
		if math.Abs(again.Data[0].Embedding[i]-res.Data[1].Embedding[i]) > 1e-6 {
			t.Fatal("embeddings are not deterministic")
		}
	}
	if again.Model != "any-model" || sim.Stats().Embeddings != 2 || sim.Stats().Requests != 0 {
		t.Fatalf("model %q, stats %+v", again.Model, sim.Stats())
	}
	m, err := c.Models.Get(context.Background(), llmsim.EmbeddingModel)
	if err != nil || m.ID != llmsim.EmbeddingModel {
		t.Fatalf("get = %+v, %v", m, err)
	}
}

func TestEmbeddingsAuthAndFaults(t *testing.T) {
	_, srv := newSim(t, llmsim.Config{APIKey: "sk-test"})
	var apiErr *openai.Error
	bad, retrying, plain := client(srv, option.WithAPIKey("wrong")), client(srv, option.WithMaxRetries(2)), client(srv)
	_, err := bad.Embeddings.New(context.Background(), openai.EmbeddingNewParams{
		Model: llmsim.EmbeddingModel, Input: openai.EmbeddingNewParamsInputUnion{OfString: openai.String("x")}})
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong key: %v", err)
	}
	// Fails twice, then the SDK's third try succeeds.
	res, err := retrying.Embeddings.New(context.Background(), openai.EmbeddingNewParams{
		Model: llmsim.EmbeddingModel + "+fail429x2+retryafter10ms", Input: openai.EmbeddingNewParamsInputUnion{OfString: openai.String("x")}})
	if err != nil || len(res.Data) != 1 {
		t.Fatalf("after retries: %+v, %v", res, err)
	}
	_, err = plain.Embeddings.New(context.Background(), openai.EmbeddingNewParams{
		Model: llmsim.EmbeddingModel, Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{}}})
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest {
		t.Fatalf("empty input: %v", err)
	}
}

func TestEmbedIsUnitOrZero(t *testing.T) {
	for _, z := range llmsim.Embed("  ... ") {
		if z != 0 {
			t.Fatal("no words must be the zero vector")
		}
	}
}
