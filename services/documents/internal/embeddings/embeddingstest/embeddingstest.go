// Package embeddingstest is an in-process OpenAI-compatible /v1/embeddings
// server for the documents service's tests, computing the same vectors as
// the LLM simulator (platform/simembed, which llmsim serves): feature
// hashing of the words, not semantic. It
// counts requests and inputs and fails on demand.
package embeddingstest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/agentic-app/agentic/services/platform/simembed"
)

// Model is the simulator's embeddings model id.
const Model = simembed.Model

// Dims is the vectors' length.
const Dims = simembed.Dims

// Server is the fake provider.
type Server struct {
	URL string // base URL, ending in /v1

	mu       sync.Mutex
	requests int
	inputs   int
	failNext int // the next n requests answer failStatus
	failAll  bool
	status   int
	retry    string
	apiKey   string
}

// New starts a server for the test; apiKey, when set, is required.
func New(t testing.TB, apiKey string) *Server {
	s := &Server{apiKey: apiKey}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/v1"
	return s
}

// Fail makes the next n requests answer status (with Retry-After when
// retryAfter is not ""); n < 0: every request until Fail(0, …).
func (s *Server) Fail(n, status int, retryAfter string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failNext, s.failAll, s.status, s.retry = n, n < 0, status, retryAfter
}

// Requests and Inputs received so far (failed ones included).
func (s *Server) Requests() int { s.mu.Lock(); defer s.mu.Unlock(); return s.requests }
func (s *Server) Inputs() int   { s.mu.Lock(); defer s.mu.Unlock(); return s.inputs }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	var in []string
	if err := json.Unmarshal(req.Input, &in); err != nil {
		var one string
		if json.Unmarshal(req.Input, &one) != nil {
			http.Error(w, `{"error":{"message":"bad input"}}`, http.StatusBadRequest)
			return
		}
		in = []string{one}
	}
	s.mu.Lock()
	s.requests++
	s.inputs += len(in)
	fail := s.failAll || s.failNext > 0
	if s.failNext > 0 {
		s.failNext--
	}
	status, retry := s.status, s.retry
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if s.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+s.apiKey {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error"}}`))
		return
	}
	if fail {
		if retry != "" {
			w.Header().Set("Retry-After", retry)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"error":{"message":"simulated failure","type":"server_error"}}`))
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]item, len(in))
	for i, t := range in {
		data[i] = item{Object: "embedding", Index: i, Embedding: Embed(t)}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": len(in), "total_tokens": len(in)}})
}

// Embed is the simulator's vector of text (platform/simembed, as llmsim's).
func Embed(text string) []float32 { return simembed.Embed(text) }
