package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-kit/kit/endpoint"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/conversations/internal/endpoints"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/server"
)

// The agent API's OpenAI-compatible routes (docs/agent-api.md). They are
// authenticated by an agent API key ("Authorization: Bearer agk_…"), never
// by a Firebase token, and answer errors in OpenAI's shape.
const (
	PathChatCompletions = "/api/v1/chat/completions"
	PathModels          = "/api/v1/models"
)

// OpenAI error types.
const (
	typeInvalidRequest = "invalid_request_error"
	typeAuthentication = "authentication_error"
	typeQuota          = "insufficient_quota"
	typeRateLimit      = "rate_limit_error"
	typeServer         = "server_error"
)

// APIError is an error in OpenAI's shape:
// {"error":{"message","type","param","code"}}, with its status and an
// optional Retry-After.
type APIError struct {
	Status     int
	Message    string
	Type       string
	Param      string
	Code       string
	RetryAfter time.Duration
}

func (e *APIError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

func badParam(param, code, msg string) *APIError {
	return &APIError{Status: http.StatusBadRequest, Type: typeInvalidRequest, Param: param, Code: code, Message: msg}
}

// API errors.
var (
	errMissingKey = &APIError{Status: http.StatusUnauthorized, Type: typeAuthentication, Code: "invalid_api_key",
		Message: "Missing API key: send the agent's API key as \"Authorization: Bearer agk_…\"."}
	errNotAKey = &APIError{Status: http.StatusUnauthorized, Type: typeAuthentication, Code: "invalid_api_key",
		Message: "This endpoint takes an agent API key (agk_…), created in the agent's API tab; sign-in tokens are not accepted."}
	errInvalidKey = &APIError{Status: http.StatusUnauthorized, Type: typeAuthentication, Code: "invalid_api_key",
		Message: "Invalid API key: it does not exist or was revoked."}
	errExpiredKey = &APIError{Status: http.StatusUnauthorized, Type: typeAuthentication, Code: "expired_api_key",
		Message: "This API key has expired."}
	errInternalAPI = &APIError{Status: http.StatusInternalServerError, Type: typeServer, Code: "internal", Message: "Internal server error"}
	// errClientClosed is written when the caller went away (server.ClientGone):
	// nobody reads it; the request log and metrics record a 499, not a 500.
	errClientClosed = &APIError{Status: server.StatusClientClosedRequest, Type: typeInvalidRequest,
		Code: server.CodeClientClosedRequest, Message: "The client closed the request."}
)

// writeAPIError writes e as OpenAI's error body.
func writeAPIError(w http.ResponseWriter, e *APIError) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", retryAfter(e.RetryAfter))
	}
	if e.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="agentic-agent-api"`)
	}
	server.WriteJSON(w, e.Status, apiErrorBody(e))
}

type apiErrorJSON struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    string  `json:"code"`
	} `json:"error"`
}

func apiErrorBody(e *APIError) apiErrorJSON {
	var b apiErrorJSON
	b.Error.Message, b.Error.Type, b.Error.Code = e.Message, e.Type, e.Code
	if e.Param != "" {
		p := e.Param
		b.Error.Param = &p
	}
	return b
}

// apiErrorOf maps a service error to the API's error, or nil for an
// unexpected error (500, logged by the caller).
func apiErrorOf(err error) *APIError {
	var (
		ae *APIError
		se *server.Error
		ve *conversations.ValidationError
		rl *conversations.RateLimitedError
		in *conversations.InsufficientFundsError
		kl *conversations.KeyLimitError
	)
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &ve):
		if ve.Code == "invalid_content" {
			return badParam("messages", "invalid_value", "The last user message must be 1 to 8,000 characters.")
		}
		return badParam("", ve.Code, ve.Message)
	case errors.Is(err, conversations.ErrTooLong):
		return badParam("messages", "context_length_exceeded",
			"The agent's instructions, your system messages and the last user message are too long for the model's context window.")
	case errors.Is(err, conversations.ErrAPIKeyInvalid):
		return errInvalidKey
	case errors.Is(err, conversations.ErrAPIKeyExpired):
		return errExpiredKey
	case errors.Is(err, conversations.ErrAgentNotFound), errors.Is(err, conversations.ErrConversationNotFound):
		return &APIError{Status: http.StatusNotFound, Type: typeInvalidRequest, Param: "model", Code: "model_not_found",
			Message: "The model does not exist or this API key cannot use it. Use the key's agent: GET /api/v1/models lists it."}
	case errors.As(err, &rl):
		return &APIError{Status: http.StatusTooManyRequests, Type: typeRateLimit, Code: "rate_limit_exceeded",
			Message: "Rate limit reached for this API key or its owner. Retry after the number of seconds in Retry-After.", RetryAfter: rl.RetryAfter}
	case errors.As(err, &in):
		return &APIError{Status: http.StatusPaymentRequired, Type: typeQuota, Code: in.Reason, Message: in.Message()}
	case errors.As(err, &kl):
		return &APIError{Status: http.StatusPaymentRequired, Type: typeQuota, Code: "key_limit_reached", Message: conversations.MsgKeyLimitReached}
	case errors.Is(err, conversations.ErrInProgress):
		return &APIError{Status: http.StatusConflict, Type: typeInvalidRequest, Param: "Idempotency-Key", Code: "request_in_progress",
			Message: "A request with this Idempotency-Key is still being answered.", RetryAfter: time.Second}
	case errors.Is(err, conversations.ErrModelUnavailable):
		return &APIError{Status: http.StatusBadGateway, Type: typeServer, Code: "model_unavailable", Message: conversations.MsgModelUnavailable}
	case errors.Is(err, conversations.ErrCatalogUnavailable):
		return &APIError{Status: http.StatusServiceUnavailable, Type: typeServer, Code: "catalog_unavailable", Message: conversations.MsgCatalogDown, RetryAfter: time.Second}
	case errors.Is(err, conversations.ErrWalletUnavailable):
		return &APIError{Status: http.StatusServiceUnavailable, Type: typeServer, Code: "wallet_unavailable", Message: conversations.MsgWalletDown, RetryAfter: time.Second}
	case errors.Is(err, conversations.ErrKnowledgeUnavailable):
		return &APIError{Status: http.StatusServiceUnavailable, Type: typeServer, Code: "knowledge_unavailable", Message: conversations.MsgKnowledgeDown, RetryAfter: time.Second}
	case errors.As(err, &se) && se.Status < 500:
		return &APIError{Status: se.Status, Type: typeInvalidRequest, Code: se.Code, Message: se.Message}
	}
	return nil
}

// agentAPI serves the OpenAI-compatible routes.
type agentAPI struct {
	authenticate endpoint.Endpoint
	complete     endpoint.Endpoint
	models       endpoint.Endpoint
	log          *slog.Logger
	keyCheck     prometheus.Histogram
}

// RegisterAgentAPI adds the agent API: key management behind the Firebase
// middleware (verifier) and the OpenAI-compatible routes behind the key
// check. reg receives conversations_api_key_check_seconds (may be nil).
func RegisterAgentAPI(mux *http.ServeMux, set endpoints.Set, verifier auth.Verifier, logger *slog.Logger, reg prometheus.Registerer) {
	if logger == nil {
		logger = slog.Default()
	}
	registerAPIKeyRoutes(mux, set, auth.Middleware(verifier, logger), auth.RequireFresh(verifier, logger), server.KitOptions(encodeHTTPError(logger)))
	a := &agentAPI{
		authenticate: set.AuthenticateAPIKey, complete: set.ChatCompletion, models: set.ListModels, log: logger,
		keyCheck: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "conversations_api_key_check_seconds", Help: "Time to authenticate an agent API key (cache or database).",
			Buckets: []float64{.00005, .0001, .00025, .0005, .001, .002, .005, .01, .025, .05, .1},
		}),
	}
	if reg != nil {
		a.keyCheck = observability.Register(reg, a.keyCheck)
	}
	server.Route(mux, http.MethodPost, PathChatCompletions, http.HandlerFunc(a.chatCompletions))
	server.Route(mux, http.MethodGet, PathModels, http.HandlerFunc(a.listModels))
}

// key authenticates the request's API key. On success the context carries
// the owner as the caller (so endpoint logs name the uid, never the key)
// and the response a Server-Timing entry with the check's duration. On
// failure the error has been written.
func (a *agentAPI) key(w http.ResponseWriter, r *http.Request) (conversations.APIKey, context.Context, bool) {
	start := time.Now()
	ctx := r.Context()
	raw, ok := auth.BearerToken(r)
	switch {
	case !ok:
		writeAPIError(w, errMissingKey)
		return conversations.APIKey{}, ctx, false
	case !conversations.LooksLikeAPIKey(raw):
		// Most likely a Firebase ID token: the agent API does not take them.
		writeAPIError(w, errNotAKey)
		return conversations.APIKey{}, ctx, false
	}
	resp, err := a.authenticate(ctx, endpoints.AuthenticateAPIKeyRequest{Token: raw})
	elapsed := time.Since(start)
	a.keyCheck.Observe(elapsed.Seconds())
	if err != nil {
		a.fail(ctx, w, err)
		return conversations.APIKey{}, ctx, false
	}
	key := resp.(endpoints.APIKeyResponse).Key
	w.Header().Set("Server-Timing", serverTiming("key", "API key check", elapsed))
	return key, auth.NewContext(ctx, auth.Claims{UID: key.OwnerUID}), true
}

// fail writes err as an API error (a 500 for unexpected ones, logged).
func (a *agentAPI) fail(ctx context.Context, w http.ResponseWriter, err error) {
	e := apiErrorOf(err)
	switch {
	case e == nil && server.ClientGone(ctx, err):
		e = errClientClosed
	case e == nil:
		a.log.ErrorContext(ctx, "agent api request failed", "error", err)
		e = errInternalAPI
	case e.Status >= 500:
		a.log.WarnContext(ctx, "agent api request failed", "error", err)
	}
	writeAPIError(w, e)
}

// ModelJSON is one entry of GET /api/v1/models.
type ModelJSON struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
	// Name is the agent's name (an extension, as OpenRouter's).
	Name string `json:"name"`
}

func (a *agentAPI) listModels(w http.ResponseWriter, r *http.Request) {
	key, ctx, ok := a.key(w, r)
	if !ok {
		return
	}
	resp, err := a.models(ctx, endpoints.ListModelsRequest{Key: key})
	if err != nil {
		a.fail(ctx, w, err)
		return
	}
	ms := resp.(endpoints.ModelsResponse).Models
	data := make([]ModelJSON, len(ms))
	for i, m := range ms {
		data[i] = ModelJSON{ID: m.ID, Object: "model", Created: m.Created.Unix(), OwnedBy: "agentic", Name: m.Name}
	}
	server.WriteJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// chatRequest is the part of OpenAI's chat completion request the agent
// API reads. Sampling parameters (temperature, top_p, stop, seed, …) are
// accepted and ignored: the agent's model settings are the service's.
type chatRequest struct {
	Model               *string         `json:"model"`
	Messages            json.RawMessage `json:"messages"`
	Stream              *bool           `json:"stream"`
	MaxTokens           *int64          `json:"max_tokens"`
	MaxCompletionTokens *int64          `json:"max_completion_tokens"`
	N                   *int64          `json:"n"`
	Tools               json.RawMessage `json:"tools"`
	Functions           json.RawMessage `json:"functions"`
}

type chatMessage struct {
	Role      *string         `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls json.RawMessage `json:"tool_calls"`
}

// decodeChatRequest reads the body (at most server.MaxBodyBytes) into a
// chatRequest; errors name the field.
func decodeChatRequest(w http.ResponseWriter, r *http.Request) (chatRequest, error) {
	var b chatRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, server.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return b, &APIError{Status: http.StatusRequestEntityTooLarge, Type: typeInvalidRequest, Code: "body_too_large",
				Message: "The request body must not be larger than 1 MiB."}
		}
		return b, badParam("", "invalid_json", "The request body could not be read.")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return b, badParam("", "invalid_json", "The request body must be a JSON object.")
	}
	if err := json.Unmarshal(body, &b); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			return b, badParam(ute.Field, "invalid_type", fmt.Sprintf("%s must be %s.", ute.Field, jsonTypeName(ute.Type.String())))
		}
		return b, badParam("", "invalid_json", "The request body is not valid JSON (a JSON object is expected).")
	}
	// NUL characters and invalid UTF-8 cannot be stored (PostgreSQL refuses
	// them): 400 naming the field, as on every other JSON route.
	if te := server.CheckJSONText(body); te != nil {
		for field := range te.Fields {
			return b, badParam(field, "invalid_value", te.Message+".")
		}
	}
	return b, nil
}

func jsonTypeName(goType string) string {
	switch {
	case strings.Contains(goType, "string"):
		return "a string"
	case strings.Contains(goType, "bool"):
		return "a boolean"
	case strings.Contains(goType, "int"), strings.Contains(goType, "float"):
		return "a number"
	}
	return "a valid value"
}

// parsedChat is a validated request.
type parsedChat struct {
	agentID  string
	stream   bool
	question string
	history  []conversations.Message
	system   string
	maxOut   int
}

// parseChat validates the request. The last non-system message is the
// question and must come from the user; user and assistant messages before
// it are the history; system (and developer) messages, wherever they are,
// become the caller's system text, added after the agent's instructions.
func parseChat(b chatRequest) (parsedChat, error) {
	var p parsedChat
	if b.Model == nil || strings.TrimSpace(*b.Model) == "" {
		return p, badParam("model", "missing_required_parameter", "model is required: the agent's id or \"agentic/<agent id>\".")
	}
	if b.N != nil && *b.N != 1 {
		return p, badParam("n", "unsupported_value", "Only n = 1 is supported.")
	}
	if nonEmptyJSON(b.Tools) {
		return p, badParam("tools", "unsupported_parameter", "Tools (function calling) are not supported by the agent API.")
	}
	if nonEmptyJSON(b.Functions) {
		return p, badParam("functions", "unsupported_parameter", "Functions are not supported by the agent API.")
	}
	for _, f := range []struct {
		name string
		v    *int64
	}{{"max_tokens", b.MaxTokens}, {"max_completion_tokens", b.MaxCompletionTokens}} {
		if f.v == nil {
			continue
		}
		if *f.v < 1 {
			return p, badParam(f.name, "invalid_value", f.name+" must be at least 1.")
		}
		if p.maxOut == 0 || int(min(*f.v, 1<<30)) < p.maxOut {
			p.maxOut = int(min(*f.v, 1<<30))
		}
	}
	if len(b.Messages) == 0 || string(b.Messages) == "null" {
		return p, badParam("messages", "missing_required_parameter", "messages is required: a non-empty array of messages.")
	}
	var msgs []chatMessage
	if err := json.Unmarshal(b.Messages, &msgs); err != nil {
		return p, badParam("messages", "invalid_type", "messages must be an array of objects with role and content.")
	}
	if len(msgs) == 0 {
		return p, badParam("messages", "invalid_value", "messages must not be empty.")
	}
	var system []string
	var turns []conversations.Message
	for i, m := range msgs {
		at := fmt.Sprintf("messages[%d]", i)
		if m.Role == nil {
			return p, badParam(at+".role", "missing_required_parameter", at+".role is required.")
		}
		role := *m.Role
		switch role {
		case "system", "developer", "user", "assistant":
		case "tool", "function":
			return p, badParam(at+".role", "unsupported_value", "Tool messages are not supported: the agent API has no tools.")
		default:
			return p, badParam(at+".role", "invalid_value", at+".role must be system, developer, user or assistant.")
		}
		if role == "assistant" && nonEmptyJSON(m.ToolCalls) {
			return p, badParam(at+".tool_calls", "unsupported_parameter", "Tool calls are not supported: the agent API has no tools.")
		}
		text, err := messageText(m.Content, at+".content")
		if err != nil {
			return p, err
		}
		switch role {
		case "system", "developer":
			if strings.TrimSpace(text) != "" {
				system = append(system, text)
			}
		default:
			turns = append(turns, conversations.Message{Role: role, Content: text})
		}
	}
	if len(turns) == 0 || turns[len(turns)-1].Role != "user" {
		return p, badParam("messages", "invalid_value", "The last message (other than system messages) must have role user: it is the question the agent answers.")
	}
	p.question = turns[len(turns)-1].Content
	for _, t := range turns[:len(turns)-1] {
		if strings.TrimSpace(t.Content) != "" {
			p.history = append(p.history, t)
		}
	}
	p.system = strings.Join(system, "\n\n")
	p.agentID = conversations.AgentOfModel(*b.Model)
	p.stream = b.Stream != nil && *b.Stream
	return p, nil
}

func nonEmptyJSON(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null" && s != "[]" && s != "{}"
}

// messageText reads a message's content: a string, or an array of content
// parts of which only text parts are supported.
func messageText(raw json.RawMessage, at string) (string, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return "", nil
	}
	if s[0] == '"' {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return "", badParam(at, "invalid_type", at+" must be a string or an array of text parts.")
		}
		return text, nil
	}
	var parts []struct {
		Type *string `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", badParam(at, "invalid_type", at+" must be a string or an array of text parts.")
	}
	texts := make([]string, 0, len(parts))
	for j, part := range parts {
		if part.Type == nil || *part.Type != "text" || part.Text == nil {
			return "", badParam(fmt.Sprintf("%s[%d]", at, j), "unsupported_value", "Only text content parts are supported.")
		}
		texts = append(texts, *part.Text)
	}
	return strings.Join(texts, "\n"), nil
}

// Chat completion bodies (OpenAI's shapes).
type (
	usageAPIJSON struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
		// Cost is what the answer was charged, in dollars (model cost +
		// platform fee), as OpenRouter reports it.
		Cost float64 `json:"cost"`
	}
	completionMessageJSON struct {
		Role    string  `json:"role"`
		Content string  `json:"content"`
		Refusal *string `json:"refusal"`
	}
	completionChoiceJSON struct {
		Index        int                   `json:"index"`
		Message      completionMessageJSON `json:"message"`
		Logprobs     *struct{}             `json:"logprobs"`
		FinishReason string                `json:"finish_reason"`
	}
	// CitationAPIJSON is a document the answer cites (an extension field).
	CitationAPIJSON struct {
		DocumentName string `json:"document_name"`
		URL          string `json:"url"`
	}
	completionJSON struct {
		ID        string                 `json:"id"`
		Object    string                 `json:"object"`
		Created   int64                  `json:"created"`
		Model     string                 `json:"model"`
		Choices   []completionChoiceJSON `json:"choices"`
		Usage     *usageAPIJSON          `json:"usage"`
		Citations []CitationAPIJSON      `json:"citations"`
	}
	chunkDeltaJSON struct {
		Role    string  `json:"role,omitempty"`
		Content *string `json:"content,omitempty"`
	}
	chunkChoiceJSON struct {
		Index        int            `json:"index"`
		Delta        chunkDeltaJSON `json:"delta"`
		Logprobs     *struct{}      `json:"logprobs"`
		FinishReason *string        `json:"finish_reason"`
	}
	chunkJSON struct {
		ID        string            `json:"id"`
		Object    string            `json:"object"`
		Created   int64             `json:"created"`
		Model     string            `json:"model"`
		Choices   []chunkChoiceJSON `json:"choices"`
		Usage     *usageAPIJSON     `json:"usage"`
		Citations []CitationAPIJSON `json:"citations,omitempty"`
	}
)

func apiUsage(u *conversations.Usage) *usageAPIJSON {
	if u == nil {
		return nil
	}
	return &usageAPIJSON{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens,
		TotalTokens: u.InputTokens + u.OutputTokens, Cost: Dollars(u.TotalMicros)}
}

func apiCitations(cs []conversations.Citation) []CitationAPIJSON {
	out := make([]CitationAPIJSON, 0, len(cs))
	for _, c := range cs {
		out = append(out, CitationAPIJSON{DocumentName: c.DocumentName, URL: c.URL})
	}
	return out
}

// finishReason is the choice's finish_reason: the provider's ("stop",
// "length"), "stop" for a replay, and "error" for an answer cut short
// (kept and charged for what was generated).
func finishReason(m endpoints.MessageResponse) string {
	if m.Interrupted != nil || m.Turn.Assistant.Status == conversations.StatusPartial || m.Turn.Assistant.Status == conversations.StatusFailed {
		return "error"
	}
	if m.Turn.FinishReason != "" {
		return m.Turn.FinishReason
	}
	return "stop"
}

func (a *agentAPI) chatCompletions(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	key, ctx, ok := a.key(w, r)
	if !ok {
		return
	}
	body, err := decodeChatRequest(w, r)
	if err != nil {
		a.fail(ctx, w, err)
		return
	}
	p, err := parseChat(body)
	if err != nil {
		a.fail(ctx, w, err)
		return
	}
	if p.agentID == "" || p.agentID != strings.ToLower(key.AgentID) {
		a.fail(ctx, w, conversations.ErrAgentNotFound)
		return
	}
	// An answer takes as long as the model does (bounded by LLM_TIMEOUT):
	// the server's write timeout must not cut it, streamed or not.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	model := conversations.ModelID(key.AgentID)
	req := endpoints.ChatCompletionRequest{Request: conversations.APIAnswerRequest{
		Key: key, Content: p.question, History: p.history, System: p.system, MaxOutputTokens: p.maxOut,
		IdempotencyKey: r.Header.Get("Idempotency-Key"), Received: received,
	}}
	var sink *chunkSink
	if p.stream {
		sink = &chunkSink{w: w, rc: http.NewResponseController(w), created: received.Unix(), model: model}
		req.Sink = sink
	}
	resp, err := a.complete(ctx, req)
	if err != nil {
		if sink != nil && sink.started {
			// The stream is under way: the error is its last event (the SDKs
			// raise it as an error of the stream).
			e := apiErrorOf(err)
			if e == nil {
				a.log.ErrorContext(ctx, "agent api answer failed mid-stream", "error", err)
				e = errInternalAPI
			}
			_ = sink.data(apiErrorBody(e))
			return
		}
		a.fail(ctx, w, err)
		return
	}
	m := resp.(endpoints.MessageResponse)
	asst := m.Turn.Assistant
	if sink == nil {
		server.WriteJSON(w, http.StatusOK, completionJSON{
			ID: "chatcmpl-" + asst.ID, Object: "chat.completion", Created: received.Unix(), Model: model,
			Choices: []completionChoiceJSON{{Index: 0, Message: completionMessageJSON{Role: "assistant", Content: asst.Content},
				FinishReason: finishReason(m)}},
			Usage: apiUsage(asst.Usage), Citations: apiCitations(asst.Citations),
		})
		return
	}
	sink.finish(m)
}

// chunkSink writes an answer as OpenAI's chat.completion.chunk stream:
// a first chunk with the role, one chunk per piece of text, a chunk with
// the finish reason (and the cited documents), a usage chunk with no
// choices (always sent, as with stream_options.include_usage), then
// "data: [DONE]". Every event is flushed at once.
type chunkSink struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
	id      string
	created int64
	model   string
}

func (s *chunkSink) begin() {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	h.Set("X-Content-Type-Options", "nosniff")
	s.w.WriteHeader(http.StatusOK)
}

// data writes one "data:" event with v as JSON and flushes it.
func (s *chunkSink) data(v any) error {
	s.begin()
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", b); err != nil {
		return err
	}
	return s.rc.Flush()
}

func (s *chunkSink) chunk(delta chunkDeltaJSON, finish *string) error {
	return s.data(chunkJSON{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: s.model,
		Choices: []chunkChoiceJSON{{Index: 0, Delta: delta, FinishReason: finish}}})
}

// Start implements conversations.Sink.
func (s *chunkSink) Start(info conversations.StartInfo) error {
	if !s.started {
		addAnswerTiming(s.w.Header(), info)
	}
	s.id = "chatcmpl-" + info.AssistantMessageID
	empty := ""
	return s.chunk(chunkDeltaJSON{Role: "assistant", Content: &empty}, nil)
}

// Delta implements conversations.Sink.
func (s *chunkSink) Delta(text string) error {
	return s.chunk(chunkDeltaJSON{Content: &text}, nil)
}

func (s *chunkSink) finish(m endpoints.MessageResponse) {
	t := m.Turn
	a := t.Assistant
	if !s.started {
		// A replay (Idempotency-Key), or an answer with no text at all.
		if err := s.Start(conversations.StartInfo{AssistantMessageID: a.ID}); err != nil {
			return
		}
		if t.Replayed && a.Content != "" {
			if err := s.Delta(a.Content); err != nil {
				return
			}
		}
	}
	reason := finishReason(m)
	if err := s.data(chunkJSON{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: s.model,
		Choices:   []chunkChoiceJSON{{Index: 0, FinishReason: &reason}},
		Citations: apiCitations(a.Citations)}); err != nil {
		return
	}
	if u := apiUsage(a.Usage); u != nil {
		if err := s.data(chunkJSON{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: s.model,
			Choices: []chunkChoiceJSON{}, Usage: u}); err != nil {
			return
		}
	}
	if reason == "error" {
		// Cut short after some output: charged for what was generated; the
		// SDKs raise this event as the stream's error.
		e := &APIError{Status: http.StatusBadGateway, Type: typeServer, Code: "answer_interrupted", Message: conversations.MsgInterrupted}
		_ = s.data(apiErrorBody(e))
		return
	}
	_, _ = io.WriteString(s.w, "data: [DONE]\n\n")
	_ = s.rc.Flush()
}
