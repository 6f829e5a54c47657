package transport

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/conversations/internal/endpoints"
	"github.com/agentic-app/agentic/services/platform/server"
)

// chatRequest is the part of OpenAI's chat completion request the agent
// API reads; chatParams says what happens to the others.
type chatRequest struct {
	Model               *string         `json:"model"`
	Messages            json.RawMessage `json:"messages"`
	Stream              *bool           `json:"stream"`
	StreamOptions       *streamOptions  `json:"stream_options"`
	MaxTokens           *int64          `json:"max_tokens"`
	MaxCompletionTokens *int64          `json:"max_completion_tokens"`
	N                   *int64          `json:"n"`
	Tools               json.RawMessage `json:"tools"`
	Functions           json.RawMessage `json:"functions"`
	ResponseFormat      json.RawMessage `json:"response_format"`
}

type streamOptions struct {
	IncludeUsage *bool `json:"include_usage"`
}

// chatParams: Chat Completions' parameters (OpenAI's API reference).
var chatParams = paramPolicy{
	honoured: []string{"model", "messages", "stream", "stream_options", "max_tokens", "max_completion_tokens", "n",
		"tools", "functions", "response_format"},
	noEffect: []string{"temperature", "top_p", "frequency_penalty", "presence_penalty", "stop", "seed", "user",
		"metadata", "store", "service_tier", "logit_bias", "parallel_tool_calls", "reasoning_effort",
		"prompt_cache_key", "prompt_cache_retention", "safety_identifier", "verbosity"},
	refused: []string{"logprobs", "top_logprobs", "audio", "modalities", "prediction", "web_search_options",
		"tool_choice", "function_call"},
}

type chatMessage struct {
	Role      *string         `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls json.RawMessage `json:"tool_calls"`
}

// parsedChat is a validated request.
type parsedChat struct {
	parsedAnswer
	stream       bool
	includeUsage bool
}

// parseChat validates the request. The last non-system message is the
// question and must come from the user; user and assistant messages before
// it are the history; system (and developer) messages, wherever they are,
// become the caller's system text, added after the agent's instructions.
func parseChat(b chatRequest, key conversations.APIKey) (parsedChat, error) {
	var p parsedChat
	if err := checkModel(b.Model, key); err != nil {
		return p, err
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
	var err error
	if p.maxOut, err = maxOutput(outputBound{"max_tokens", b.MaxTokens}, outputBound{"max_completion_tokens", b.MaxCompletionTokens}); err != nil {
		return p, err
	}
	if p.format, err = parseFormat(b.ResponseFormat, "response_format", false); err != nil {
		return p, err
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
	p.stream = b.Stream != nil && *b.Stream
	p.includeUsage = p.stream && b.StreamOptions != nil && b.StreamOptions.IncludeUsage != nil && *b.StreamOptions.IncludeUsage
	return p, nil
}

// Chat completion bodies (OpenAI's shapes).
type (
	usageAPIJSON struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
		// Cost is what the answer was charged, in dollars (model cost +
		// platform fee, and a consumer's markup and greeting), as
		// OpenRouter reports it.
		Cost float64 `json:"cost"`
		// MarkupMicros and GreetingMicros (extensions): the parts of Cost
		// for the agent's creator, in micro-dollars (0 but for a consumer
		// of a listed agent; keys are the owner's, so always 0 today).
		MarkupMicros   int64 `json:"markupMicros"`
		GreetingMicros int64 `json:"greetingMicros"`
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
		TotalTokens: u.InputTokens + u.OutputTokens, Cost: Dollars(u.TotalMicros),
		MarkupMicros: u.MarkupMicros, GreetingMicros: u.GreetingMicros}
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
	var body chatRequest
	c, ok := a.openCall(w, r, &body, chatParams)
	if !ok {
		return
	}
	key, ctx, received := c.key, c.ctx, c.received
	p, err := parseChat(body, key)
	if err != nil {
		a.fail(ctx, w, err)
		return
	}
	// An answer takes as long as the model does (bounded by LLM_TIMEOUT):
	// the server's write timeout must not cut it, streamed or not.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	model := conversations.ModelID(key.AgentID)
	req := endpoints.ChatCompletionRequest{Request: p.request(c, r)}
	var sink *chunkSink
	if p.stream {
		sink = &chunkSink{sse: sse{w: w, rc: http.NewResponseController(w)}, created: received.Unix(), model: model, includeUsage: p.includeUsage}
		req.Sink = sink
	}
	resp, err := a.complete(ctx, req)
	if err != nil {
		if sink != nil && sink.started {
			// The stream is under way: the error is its last event (the SDKs
			// raise it as an error of the stream).
			_ = sink.data(apiErrorBody(a.apiError(ctx, err)))
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
// choices when the request set stream_options.include_usage (the answer is
// metered either way), then "data: [DONE]". Every event is flushed at once.
type chunkSink struct {
	sse
	id           string
	created      int64
	model        string
	includeUsage bool
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
	if u := apiUsage(a.Usage); u != nil && s.includeUsage {
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
	s.done()
}
