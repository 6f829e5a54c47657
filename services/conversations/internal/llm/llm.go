// Package llm is the one provider interface the conversations service talks
// to models through, and its production adapter for the OpenAI-compatible
// Chat Completions API (openai-go): OpenAI, vLLM, Ollama, OpenRouter and the
// local LLM simulator all speak it.
package llm

import (
	"context"
	"errors"
)

// Roles of a chat message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one message of the prompt.
type Message struct {
	Role    string
	Content string
}

// Request is one completion request.
type Request struct {
	// Model overrides the provider's default model when set.
	Model    string
	Messages []Message
	// MaxTokens bounds the output (the metering reserves for this worst case).
	MaxTokens int
	// User is an opaque end-user id passed to the provider for abuse tracking.
	User string
	// Format asks for structured output (nil: plain text).
	Format *ResponseFormat
}

// Structured output formats (OpenAI's response_format types).
const (
	FormatJSONObject = "json_object"
	FormatJSONSchema = "json_schema"
)

// ResponseFormat asks the model for JSON: any JSON object (FormatJSONObject)
// or one matching Schema (FormatJSONSchema, a JSON Schema object named Name).
type ResponseFormat struct {
	Type        string
	Name        string
	Description string
	Schema      map[string]any
	Strict      bool
}

// Usage is what the provider reports it used; it is what gets metered.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
	// Estimated is true when the provider sent no usage (a stream cut before
	// its final usage chunk) and the adapter counted the tokens itself with
	// the platform tokenizer.
	Estimated bool
}

// Result is a finished (or partially finished) completion.
type Result struct {
	Text         string
	Usage        Usage
	Model        string
	FinishReason string
	// Sent: the request went to the provider (it may have read the prompt,
	// and bill for it, even if no output came back before a cancellation).
	Sent bool
}

// Provider generates completions. Complete streams the answer: onDelta is
// called with each piece of text in order (an error from onDelta cancels the
// upstream call and is returned). Cancelling ctx (a client disconnect, Stop)
// cancels the upstream call.
//
// Errors:
//   - before any output: an error wrapping ErrUnavailable (after the adapter's
//     own retries of 429/5xx); nothing was generated and nothing is charged.
//   - after some output (stream cut, ctx cancelled): the partial Result (its
//     Usage covers what was generated) together with an error wrapping
//     ErrInterrupted, so the caller can charge for what was produced.
type Provider interface {
	Complete(ctx context.Context, req Request, onDelta func(text string) error) (Result, error)
	// DefaultModel is the model used when Request.Model is empty.
	DefaultModel() string
}

var (
	// ErrUnavailable: the model could not be reached or refused before any output.
	ErrUnavailable = errors.New("llm: model unavailable")
	// ErrInterrupted: the answer stopped after partial output.
	ErrInterrupted = errors.New("llm: answer interrupted")
)
