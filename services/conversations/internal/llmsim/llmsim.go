// Package llmsim is the development LLM simulator: an OpenAI-compatible
// Chat Completions server (POST /v1/chat/completions, streaming and not;
// GET /v1/models; POST /v1/embeddings, deterministic and not semantic) that answers deterministically from the passages in the
// prompt it receives (Answer), reports exact usage by the platform's token
// rule (llm.PromptTokens / llm.CompletionTokens), and injects faults on
// request (latency per token, 429/5xx, cut streams) by model suffix, header
// or the admin endpoint POST /_sim/faults. It is the default provider of the
// local stack and of tests; never deploy it. See docs/llm.md.
package llmsim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentic-app/agentic/services/conversations/internal/llm"
	"github.com/agentic-app/agentic/services/platform/tokens"
)

// Model is the simulator's model id.
const Model = llm.SimModel

// DefaultAddr is where cmd/llmsim listens by default (LLM_SIM_ADDR).
const DefaultAddr = "127.0.0.1:8112"

// maxBody bounds a request body (a full context window is far smaller).
const maxBody = 8 << 20

// Config configures the simulator.
type Config struct {
	// APIKey, when set, is the only bearer token accepted.
	APIKey string
	Logger *slog.Logger
}

// Stats counts what the simulator did (for tests).
type Stats struct {
	Requests int64 // chat completion requests received
	// Embeddings: POST /v1/embeddings requests received (any outcome).
	Embeddings int64
	Completed  int64 // answered in full
	Failed     int64 // answered with an injected error status
	Cut        int64 // streams cut on purpose
	Cancelled  int64 // the client went away before the answer was complete
}

// Sim is the simulator (an http.Handler).
type Sim struct {
	cfg Config
	log *slog.Logger
	mux *http.ServeMux
	ids atomic.Int64

	requests, completed, failed, cut, cancelled atomic.Int64
	embeddingRequests                           atomic.Int64

	mu sync.Mutex
	// queued: "fail the next N requests" from POST /_sim/faults.
	queued []queuedFault
	// attempts counts failures already served per fail key, for "fail the
	// first N attempts of this request".
	attempts map[string]int
}

type queuedFault struct {
	status     int
	retryAfter time.Duration
}

// New returns a simulator.
func New(cfg Config) *Sim {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Sim{cfg: cfg, log: cfg.Logger, mux: http.NewServeMux(), attempts: map[string]int{}}
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	s.mux.HandleFunc("POST /v1/chat/completions", s.auth(s.chat))
	s.mux.HandleFunc("POST /v1/embeddings", s.auth(s.embeddings))
	s.mux.HandleFunc("GET /v1/models", s.auth(s.models))
	s.mux.HandleFunc("GET /v1/models/{model}", s.auth(s.model))
	s.mux.HandleFunc("POST /_sim/faults", s.postFaults)
	s.mux.HandleFunc("GET /_sim/faults", s.getFaults)
	s.mux.HandleFunc("DELETE /_sim/faults", s.deleteFaults)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		apiError(w, http.StatusNotFound, "invalid_request_error", "unknown_url", "Unrecognized request URL ("+r.Method+": "+r.URL.Path+").")
	})
	return s
}

// ServeHTTP implements http.Handler.
func (s *Sim) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Stats returns the counters.
func (s *Sim) Stats() Stats {
	return Stats{
		Requests:   s.requests.Load(),
		Completed:  s.completed.Load(),
		Failed:     s.failed.Load(),
		Cut:        s.cut.Load(),
		Cancelled:  s.cancelled.Load(),
		Embeddings: s.embeddingRequests.Load(),
	}
}

// QueueFaults makes the next count chat requests fail with status (what
// POST /_sim/faults does).
func (s *Sim) QueueFaults(status, count int, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 0; i < count; i++ {
		s.queued = append(s.queued, queuedFault{status: status, retryAfter: retryAfter})
	}
}

func (s *Sim) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.cfg.APIKey {
			apiError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.")
			return
		}
		h(w, r)
	}
}

// --- models -----------------------------------------------------------------

type modelObject struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// created is a fixed date (2025-01-01) so /v1/models is deterministic.
const created = 1735689600

func (s *Sim) models(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data": []modelObject{{ID: Model, Object: "model", Created: created, OwnedBy: "agentic"},
			{ID: EmbeddingModel, Object: "model", Created: created, OwnedBy: "agentic"}},
	})
}

func (s *Sim) model(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("model")
	if emb, ok := strings.CutPrefix(id, EmbeddingModel); ok {
		id = Model + emb // the same options
	}
	if base, _, err := ParseModel(id); err != nil || id == "" || base != Model {
		apiError(w, http.StatusNotFound, "invalid_request_error", "model_not_found", fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", id))
		return
	}
	writeJSON(w, http.StatusOK, modelObject{ID: r.PathValue("model"), Object: "model", Created: created, OwnedBy: "agentic"})
}

// --- chat completions ---------------------------------------------------------

type chatRequest struct {
	Model         string        `json:"model"`
	Messages      []chatMessage `json:"messages"`
	Stream        bool          `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	N                   *int            `json:"n"`
	ResponseFormat      *responseFormat `json:"response_format"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Name    string          `json:"name"`
}

// text reads a message's content: a string, or an array of text parts.
func (m chatMessage) text() (string, error) {
	if len(m.Content) == 0 || string(m.Content) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return "", errors.New("content must be a string or an array of content parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type != "text" {
			return "", fmt.Errorf("the simulator reads only text content parts, not %q", p.Type)
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

type usage struct {
	PromptTokens            int64 `json:"prompt_tokens"`
	CompletionTokens        int64 `json:"completion_tokens"`
	TotalTokens             int64 `json:"total_tokens"`
	PromptTokensDetails     any   `json:"prompt_tokens_details"`
	CompletionTokensDetails any   `json:"completion_tokens_details"`
}

func newUsage(prompt, completion int) *usage {
	return &usage{
		PromptTokens:            int64(prompt),
		CompletionTokens:        int64(completion),
		TotalTokens:             int64(prompt + completion),
		PromptTokensDetails:     map[string]int{"cached_tokens": 0, "audio_tokens": 0},
		CompletionTokensDetails: map[string]int{"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
	}
}

const fingerprint = "fp_agentic_sim"

func (s *Sim) chat(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		apiError(w, http.StatusRequestEntityTooLarge, "invalid_request_error", "", "Request body too large or unreadable.")
		return
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request: "+err.Error())
		return
	}
	base, faults, err := ParseModel(req.Model)
	if err != nil {
		apiError(w, http.StatusNotFound, "invalid_request_error", "model_not_found", fmt.Sprintf("The model `%s` does not exist or you do not have access to it (the simulator serves %s[+options]).", req.Model, Model))
		return
	}
	if err := faults.applyHeaders(r.Header); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", err.Error())
		return
	}
	if len(req.Messages) == 0 {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", "[] is too short - 'messages'")
		return
	}
	if req.N != nil && *req.N != 1 {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", "The simulator supports only n=1.")
		return
	}
	msgs := make([]llm.Message, 0, len(req.Messages))
	promptTokens := 0
	for i, m := range req.Messages {
		text, err := m.text()
		if err != nil {
			apiError(w, http.StatusBadRequest, "invalid_request_error", "", fmt.Sprintf("messages[%d]: %v", i, err))
			return
		}
		msgs = append(msgs, llm.Message{Role: m.Role, Content: text})
		if m.Name != "" {
			// OpenAI's rule: a name costs its tokens plus one.
			promptTokens += 1 + tokens.Count(m.Name)
		}
	}
	promptTokens += llm.PromptTokens(msgs)
	if d, ok := slowFirstToken(msgs); ok && faults.TimeToFirstToken < d {
		faults.TimeToFirstToken = d
	}

	if status, retryAfter, fail := s.shouldFail(faults, body); fail {
		s.failed.Add(1)
		failWith(w, status, retryAfter)
		return
	}

	maxTokens := -1
	for _, v := range []*int{req.MaxTokens, req.MaxCompletionTokens} {
		if v != nil && *v >= 0 && (maxTokens < 0 || *v < maxTokens) {
			maxTokens = *v
		}
	}
	if f := req.ResponseFormat; f != nil && f.Type != "" && f.Type != "text" && f.Type != "json_object" && f.Type != "json_schema" {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", fmt.Sprintf("Invalid value: '%s'. Supported values are: 'text', 'json_object' and 'json_schema'.", f.Type))
		return
	}
	answer, finish := limit(formatted(req.ResponseFormat, Answer(msgs)), maxTokens)
	answerTokens := tokens.Count(answer)
	id := fmt.Sprintf("chatcmpl-sim%08d", s.ids.Add(1))

	if !req.Stream {
		if faults.CutAfter >= 0 {
			s.cut.Add(1)
			panic(http.ErrAbortHandler) // drop the connection: no response at all
		}
		if !sleep(r.Context(), faults.TimeToFirstToken+faults.LatencyPerToken*time.Duration(answerTokens)) {
			s.cancelled.Add(1)
			return
		}
		s.completed.Add(1)
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "object": "chat.completion", "created": time.Now().Unix(), "model": base,
			"system_fingerprint": fingerprint, "service_tier": "default",
			"choices": []map[string]any{{
				"index":         0,
				"message":       map[string]any{"role": "assistant", "content": answer, "refusal": nil, "annotations": []any{}},
				"logprobs":      nil,
				"finish_reason": finish,
			}},
			"usage": newUsage(promptTokens, answerTokens),
		})
		return
	}
	includeUsage := req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	s.stream(w, r, streamArgs{id: id, model: base, answer: answer, finish: finish, promptTokens: promptTokens,
		answerTokens: answerTokens, includeUsage: includeUsage, faults: faults})
}

// limit cuts the answer to at most maxTokens completion tokens (whole words
// when possible), like a model hitting max_tokens ("length").
func limit(answer string, maxTokens int) (string, string) {
	if maxTokens < 0 || tokens.Count(answer) <= maxTokens {
		return answer, "stop"
	}
	out := ""
	for _, p := range pieces(answer) {
		if tokens.Count(out+p) > maxTokens {
			break
		}
		out += p
	}
	if out == "" {
		out = tokens.Truncate(answer, maxTokens)
	}
	return out, "length"
}

// shouldFail decides whether this request gets an injected error: first the
// queue of POST /_sim/faults, then the request's own fail option (always, or
// for the first FailCount attempts of the same key).
func (s *Sim) shouldFail(f Faults, body []byte) (int, time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queued) > 0 {
		q := s.queued[0]
		s.queued = s.queued[1:]
		return q.status, q.retryAfter, true
	}
	if f.FailStatus == 0 {
		return 0, 0, false
	}
	if f.FailCount == 0 {
		return f.FailStatus, f.RetryAfter, true
	}
	key := f.FailKey
	if key == "" {
		sum := sha256.Sum256(body) // a retry sends the same body
		key = hex.EncodeToString(sum[:])
	}
	if s.attempts[key] >= f.FailCount {
		delete(s.attempts, key) // done failing: the next identical request starts over
		return 0, 0, false
	}
	if len(s.attempts) > 10000 {
		clear(s.attempts) // bound memory; only ever affects abandoned keys' counts
	}
	s.attempts[key]++
	return f.FailStatus, f.RetryAfter, true
}

func failWith(w http.ResponseWriter, status int, retryAfter time.Duration) {
	if retryAfter > 0 {
		w.Header().Set("Retry-After-Ms", strconv.FormatInt(retryAfter.Milliseconds(), 10))
		w.Header().Set("Retry-After", strconv.FormatInt(int64((retryAfter+time.Second-1)/time.Second), 10))
	}
	switch {
	case status == http.StatusTooManyRequests:
		apiError(w, status, "requests", "rate_limit_exceeded", "Rate limit reached for agentic-sim (simulated).")
	case status >= 500:
		apiError(w, status, "server_error", "", "The server had an error while processing your request (simulated).")
	default:
		apiError(w, status, "invalid_request_error", "", "Simulated error.")
	}
}

type streamArgs struct {
	id, model, answer, finish  string
	promptTokens, answerTokens int
	includeUsage               bool
	faults                     Faults
}

// chunk is one chat.completion.chunk, in OpenAI's field order.
type chunk struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint string          `json:"system_fingerprint"`
	Choices           []chunkChoice   `json:"choices"`
	Usage             json.RawMessage `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	Logprobs     any        `json:"logprobs"`
	FinishReason *string    `json:"finish_reason"`
}

type chunkDelta struct {
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
}

func (s *Sim) stream(w http.ResponseWriter, r *http.Request, a streamArgs) {
	flusher, _ := w.(http.Flusher)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	now := time.Now().Unix()
	var nullUsage json.RawMessage
	if a.includeUsage {
		nullUsage = json.RawMessage("null") // every chunk but the last says "usage": null
	}
	send := func(c chunk) bool {
		c.ID, c.Object, c.Created, c.Model, c.SystemFingerprint = a.id, "chat.completion.chunk", now, a.model, fingerprint
		if c.Usage == nil {
			c.Usage = nullUsage
		}
		data, _ := json.Marshal(c)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	gone := func() {
		s.cancelled.Add(1)
	}
	empty := ""
	if !send(chunk{Choices: []chunkChoice{{Delta: chunkDelta{Role: "assistant", Content: &empty}}}}) {
		gone()
		return
	}
	if !sleep(r.Context(), a.faults.TimeToFirstToken) {
		gone()
		return
	}
	// Each piece's tokens are counted only for a fault that needs them: at
	// zero latency the simulator should cost the machine next to nothing
	// (it shares the cores with the services a benchmark measures).
	counting := a.faults.CutAfter >= 0 || a.faults.LatencyPerToken > 0
	sent := 0
	for _, p := range pieces(a.answer) {
		n := 0
		if counting {
			n = tokens.Count(p)
		}
		if a.faults.CutAfter >= 0 && sent+n > a.faults.CutAfter {
			break
		}
		if !sleep(r.Context(), a.faults.LatencyPerToken*time.Duration(n)) {
			gone()
			return
		}
		p := p
		if !send(chunk{Choices: []chunkChoice{{Delta: chunkDelta{Content: &p}}}}) {
			gone()
			return
		}
		sent += n
	}
	if a.faults.CutAfter >= 0 && sent < a.answerTokens {
		s.cut.Add(1)
		// Drop the connection mid-stream: no finish reason, no usage, no [DONE]
		// (the server closes it without the final chunk of the chunked body).
		panic(http.ErrAbortHandler)
	}
	finish := a.finish
	if !send(chunk{Choices: []chunkChoice{{Delta: chunkDelta{}, FinishReason: &finish}}}) {
		gone()
		return
	}
	if a.includeUsage {
		u, _ := json.Marshal(newUsage(a.promptTokens, a.answerTokens))
		if !send(chunk{Choices: []chunkChoice{}, Usage: u}) {
			gone()
			return
		}
	}
	// Counted before [DONE] is written, so a client that has read it always
	// sees the count (tests compare Stats right after a call returns).
	s.completed.Add(1)
	if _, err := io.WriteString(w, "data: [DONE]\n\n"); err != nil {
		s.completed.Add(-1)
		gone()
		return
	}
	if flusher != nil {
		flusher.Flush()
	}
}

// sleep waits d unless ctx ends first (false).
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// --- admin ------------------------------------------------------------------

type faultsBody struct {
	Status     int    `json:"status"`
	Count      int    `json:"count"`
	RetryAfter string `json:"retryAfter,omitempty"`
}

func (s *Sim) postFaults(w http.ResponseWriter, r *http.Request) {
	var b faultsBody
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_json", "message": err.Error()})
		return
	}
	if b.Status < 400 || b.Status > 599 || b.Count < 1 || b.Count > 10000 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_fault", "message": "status must be 400-599 and count 1-10000"})
		return
	}
	var retryAfter time.Duration
	if b.RetryAfter != "" {
		var err error
		if retryAfter, err = parseDuration(b.RetryAfter); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_fault", "message": err.Error()})
			return
		}
	}
	s.QueueFaults(b.Status, b.Count, retryAfter)
	s.getFaults(w, r)
}

func (s *Sim) getFaults(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	pending := make([]map[string]any, 0, len(s.queued))
	for _, q := range s.queued {
		pending = append(pending, map[string]any{"status": q.status, "retryAfterMs": q.retryAfter.Milliseconds()})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"pending": pending})
}

func (s *Sim) deleteFaults(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.queued = nil
	clear(s.attempts)
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// --- helpers ----------------------------------------------------------------

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// apiError writes OpenAI's error shape.
func apiError(w http.ResponseWriter, status int, typ, code, message string) {
	var c any
	if code != "" {
		c = code
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": c}})
}

// slowFirstTokenRe is the marker a user message may carry to make this
// answer's first token slow ("[sim:ttft=5s]"): end-to-end tests press Stop
// while the model has the question but has not answered yet, without
// slowing down every other test's answers (the simulator is shared).
var slowFirstTokenRe = regexp.MustCompile(`\[sim:ttft=(\d{1,5}(?:ms|s))\]`)

// slowFirstToken reads the marker of the last user message (at most 30 s).
func slowFirstToken(msgs []llm.Message) (time.Duration, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		m := slowFirstTokenRe.FindStringSubmatch(msgs[i].Content)
		if m == nil {
			return 0, false
		}
		d, err := time.ParseDuration(m[1])
		if err != nil || d <= 0 {
			return 0, false
		}
		return min(d, 30*time.Second), true
	}
	return 0, false
}
