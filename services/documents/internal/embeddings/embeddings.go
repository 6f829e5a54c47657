// Package embeddings is the documents service's embeddings provider: any
// OpenAI-compatible POST /v1/embeddings (OpenAI, Azure OpenAI, Ollama, vLLM,
// Text Embeddings Inference, the LLM simulator) through openai-go, in
// batches, with the SDK's retries (429 and 5xx, honouring Retry-After), and
// the storage of chunk embeddings in PostgreSQL (store.go): plain real[]
// arrays scored exactly, plus an HNSW index where pgvector is available.
//
// Configured by EMBEDDINGS_BASE_URL, EMBEDDINGS_MODEL and EMBEDDINGS_API_KEY;
// without a base URL there is no Client and retrieval is lexical only.
package embeddings

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/platform/observability"
)

// Defaults of Config.
const (
	DefaultBatchSize    = 64
	DefaultTimeout      = 60 * time.Second
	DefaultQueryTimeout = 3 * time.Second
	DefaultMaxRetries   = 4
)

// SimulatedMarker is in the name of the LLM simulator's embeddings model
// ("sim-embeddings-not-semantic"): its vectors hash words, they carry no
// meaning, and Test retrieval says so.
const SimulatedMarker = "not-semantic"

// Config configures a Client.
type Config struct {
	// BaseURL of the OpenAI-compatible API, e.g. https://api.openai.com/v1
	// or http://127.0.0.1:11434/v1 (EMBEDDINGS_BASE_URL; required).
	BaseURL string
	// Model, e.g. text-embedding-3-small (EMBEDDINGS_MODEL; required).
	Model string
	// APIKey (EMBEDDINGS_API_KEY; optional for local servers).
	APIKey string
	// BatchSize: inputs per request (default 64).
	BatchSize int
	// Timeout bounds one request, retries included (default 60 s);
	// QueryTimeout bounds the embedding of a search's query (default 3 s).
	Timeout      time.Duration
	QueryTimeout time.Duration
	// MaxRetries: the SDK's retries of 408/409/429/5xx and connection
	// errors, with back-off and the server's Retry-After (default 4).
	MaxRetries int
	HTTPClient *http.Client
	Registerer prometheus.Registerer
}

// Client embeds texts.
type Client struct {
	client openai.Client
	cfg    Config

	requests  *prometheus.CounterVec
	chunks    *prometheus.CounterVec
	fallbacks prometheus.Counter
}

// Chunk outcomes of CountChunks (metric label).
const (
	ChunksEmbedded = "embedded" // sent to the provider and stored
	ChunksReused   = "reused"   // unchanged: the stored embedding is kept
	ChunksFailed   = "failed"   // the provider failed: lexical only until the next sync
)

// New returns a Client; an error when BaseURL or Model is missing.
func New(cfg Config) (*Client, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" || strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("embeddings: EMBEDDINGS_BASE_URL and EMBEDDINGS_MODEL are required")
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.QueryTimeout <= 0 {
		cfg.QueryTimeout = DefaultQueryTimeout
	}
	if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	} else if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	opts := []option.RequestOption{
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithBaseURL(cfg.BaseURL),
		option.WithMaxRetries(cfg.MaxRetries),
		option.WithRequestTimeout(cfg.Timeout),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	c := &Client{client: openai.NewClient(opts...), cfg: cfg}
	c.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "documents_embeddings_requests_total",
		Help: "Requests to the embeddings provider by kind (chunks, query) and outcome (ok, error), retries included in one.",
	}, []string{"kind", "outcome"})
	c.chunks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "documents_embeddings_chunks_total",
		Help: "Chunks at sync time by outcome: embedded, reused (text unchanged), failed (lexical only until the next sync).",
	}, []string{"outcome"})
	c.fallbacks = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "documents_embeddings_query_fallbacks_total",
		Help: "Searches that fell back to lexical ranking because the query could not be embedded.",
	})
	if cfg.Registerer != nil {
		c.requests = observability.Register(cfg.Registerer, c.requests)
		c.chunks = observability.Register(cfg.Registerer, c.chunks)
		c.fallbacks = observability.Register(cfg.Registerer, c.fallbacks)
	}
	return c, nil
}

// Model is the embeddings model (stored with each embedding).
func (c *Client) Model() string { return c.cfg.Model }

// Simulated reports whether the model is the LLM simulator's (not semantic).
func (c *Client) Simulated() bool { return strings.Contains(c.cfg.Model, SimulatedMarker) }

// CountChunks adds n chunks of the outcome (ChunksEmbedded, …).
func (c *Client) CountChunks(outcome string, n int) {
	if n > 0 {
		c.chunks.WithLabelValues(outcome).Add(float64(n))
	}
}

// Embed returns the unit-length embeddings of texts, in order, in requests
// of at most BatchSize inputs. An empty text is sent as a single space
// (providers refuse empty inputs).
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return c.embed(ctx, "chunks", texts)
}

// EmbedQuery embeds a search's query within QueryTimeout; a failure is
// counted as a fallback to lexical ranking (the caller's).
func (c *Client) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.QueryTimeout)
	defer cancel()
	v, err := c.embed(ctx, "query", []string{text})
	if err != nil {
		c.fallbacks.Inc()
		return nil, err
	}
	return v[0], nil
}

func (c *Client) embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += c.cfg.BatchSize {
		batch := texts[start:min(start+c.cfg.BatchSize, len(texts))]
		in := make([]string, len(batch))
		for i, t := range batch {
			if strings.TrimSpace(t) == "" {
				t = " "
			}
			in[i] = t
		}
		res, err := c.client.Embeddings.New(ctx, openai.EmbeddingNewParams{
			Model:          c.cfg.Model,
			Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: in},
			EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
		})
		if err == nil && len(res.Data) != len(in) {
			err = fmt.Errorf("%d embeddings for %d inputs", len(res.Data), len(in))
		}
		if err != nil {
			c.requests.WithLabelValues(kind, "error").Inc()
			return nil, fmt.Errorf("embeddings: %w", err)
		}
		c.requests.WithLabelValues(kind, "ok").Inc()
		vecs := make([][]float32, len(in))
		for _, d := range res.Data {
			if d.Index < 0 || int(d.Index) >= len(in) || vecs[d.Index] != nil {
				return nil, fmt.Errorf("embeddings: bad index %d in the response", d.Index)
			}
			vecs[d.Index] = Normalize(d.Embedding)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// Normalize returns v as float32 at unit length (zero stays zero).
func Normalize(v []float64) []float32 {
	var n float64
	for _, x := range v {
		n += x * x
	}
	out := make([]float32, len(v))
	if n == 0 {
		return out
	}
	n = math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out
}

// TextHash identifies a chunk's embedded text: md5 (hex) of its heading path,
// a newline and its text — what the generated column
// document_chunks.text_hash holds (migration 00009).
func TextHash(headingPath, body string) string {
	sum := md5.Sum([]byte(headingPath + "\n" + body))
	return hex.EncodeToString(sum[:])
}

// Input is what is embedded for a chunk: its heading path (the section it
// is in) and its text.
func Input(headingPath, body string) string {
	if headingPath == "" {
		return body
	}
	return headingPath + "\n\n" + body
}
