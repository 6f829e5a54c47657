package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"
)

// SimModel is the LLM simulator's model (cmd/llmsim), the default model of
// the local stack and of tests.
const SimModel = "agentic-sim"

// OpenAIConfig configures the production adapter.
type OpenAIConfig struct {
	// BaseURL of the OpenAI-compatible API including its version path
	// (LLM_BASE_URL), e.g. https://api.openai.com/v1,
	// http://127.0.0.1:8112/v1 (simulator), http://localhost:11434/v1
	// (Ollama), https://openrouter.ai/api/v1. Empty: OpenAI's.
	BaseURL string
	// APIKey is sent as a bearer token (LLM_API_KEY); may be empty for local
	// servers that do not check it.
	APIKey string
	// Model is the default model (LLM_MODEL); empty means SimModel.
	Model string
	// MaxRetries is how many times a call that failed before its first token
	// with 429, 5xx, 408/409 or a network error is retried. 0 means the
	// default (3); negative disables retries.
	MaxRetries int
	// RetryBaseDelay and RetryMaxDelay bound the exponential back-off
	// (defaults 250 ms and 4 s): attempt k waits between d/2 and d with
	// d = min(RetryMaxDelay, RetryBaseDelay×2^k).
	RetryBaseDelay time.Duration
	RetryMaxDelay  time.Duration
	// MaxRetryAfter is the longest Retry-After the adapter honours (default
	// 10 s); a provider asking for more fails the call at once, since a user
	// is waiting for the answer.
	MaxRetryAfter time.Duration
	// LegacyMaxTokens sends the output bound as max_tokens instead of
	// max_completion_tokens, for servers that only know the older field.
	LegacyMaxTokens bool
	// HTTPClient overrides the HTTP client (default: no overall timeout, since
	// answers stream for as long as they take; 60 s to the response headers).
	HTTPClient *http.Client
	Logger     *slog.Logger
}

// MaxIdleConns is how many idle keep-alive connections to the provider the
// default HTTP client keeps.
const MaxIdleConns = 128

// OpenAI is the Provider for OpenAI-compatible Chat Completions APIs, built
// on the official openai-go client.
//
// Retries are the adapter's own, not the SDK's (option.WithMaxRetries(0)):
// the SDK can retry only until response headers arrive, while a stream can
// also fail after a 200 but before its first token (an error event, a reset
// connection), which is still safe to retry since nothing was shown or
// charged. One loop covers both, honours Retry-After/Retry-After-Ms with a
// cap suited to a waiting user, and never retries once a token was delivered.
type OpenAI struct {
	client openai.Client
	cfg    OpenAIConfig
	log    *slog.Logger
}

var _ Provider = (*OpenAI)(nil)

// NewOpenAI returns the adapter.
func NewOpenAI(cfg OpenAIConfig) *OpenAI {
	if cfg.Model == "" {
		cfg.Model = SimModel
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = 3
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.RetryBaseDelay <= 0 {
		cfg.RetryBaseDelay = 250 * time.Millisecond
	}
	if cfg.RetryMaxDelay <= 0 {
		cfg.RetryMaxDelay = 4 * time.Second
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = 10 * time.Second
	}
	if cfg.HTTPClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.ResponseHeaderTimeout = 60 * time.Second
		// Keep a connection per concurrent answer alive (net/http keeps 2
		// per host: beyond that, an answer dialled a new connection before
		// its request and closed it after). HTTP/2 providers multiplex
		// anyway; vLLM, Ollama and the simulator speak HTTP/1.1.
		tr.MaxIdleConnsPerHost = MaxIdleConns
		cfg.HTTPClient = &http.Client{Transport: tr}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	opts := []option.RequestOption{
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(0),
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	return &OpenAI{client: openai.NewClient(opts...), cfg: cfg, log: cfg.Logger}
}

// DefaultModel implements Provider.
func (o *OpenAI) DefaultModel() string { return o.cfg.Model }

// Client is the underlying openai-go client (e.g. for /v1/models).
func (o *OpenAI) Client() *openai.Client { return &o.client }

// Complete implements Provider: one streaming Chat Completion with
// stream_options.include_usage, retried before its first token.
func (o *OpenAI) Complete(ctx context.Context, req Request, onDelta func(text string) error) (Result, error) {
	params := o.params(req)
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrUnavailable, err) // never sent
	}
	sent := Result{Sent: true}
	for attempt := 0; ; attempt++ {
		res, produced, err := o.attempt(ctx, req, params, onDelta)
		res.Sent = true
		if err == nil || produced {
			return res, err
		}
		if ctx.Err() != nil {
			return sent, fmt.Errorf("%w: %w", ErrUnavailable, ctx.Err())
		}
		delay, retry := o.retryDelay(attempt, err)
		if !retry {
			return sent, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		o.log.WarnContext(ctx, "llm call failed before its first token, retrying",
			"model", params.Model, "attempt", attempt+1, "delay", delay, "error", err)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return sent, fmt.Errorf("%w: %w", ErrUnavailable, ctx.Err())
		case <-t.C:
		}
	}
}

func (o *OpenAI) params(req Request) openai.ChatCompletionNewParams {
	model := req.Model
	if model == "" {
		model = o.cfg.Model
	}
	msgs := make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Messages))
	for _, m := range req.Messages {
		switch m.Role {
		case RoleSystem:
			msgs = append(msgs, openai.SystemMessage(m.Content))
		case RoleAssistant:
			msgs = append(msgs, openai.AssistantMessage(m.Content))
		default:
			msgs = append(msgs, openai.UserMessage(m.Content))
		}
	}
	p := openai.ChatCompletionNewParams{
		Model:    model,
		Messages: msgs,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{
			IncludeUsage: openai.Bool(true),
		},
	}
	if req.MaxTokens > 0 {
		if o.cfg.LegacyMaxTokens {
			p.MaxTokens = openai.Int(int64(req.MaxTokens))
		} else {
			p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
		}
	}
	if req.User != "" {
		p.User = openai.String(req.User)
	}
	if f := req.Format; f != nil {
		p.ResponseFormat = responseFormat(*f)
	}
	return p
}

// responseFormat is the provider's response_format for a structured answer.
func responseFormat(f ResponseFormat) openai.ChatCompletionNewParamsResponseFormatUnion {
	if f.Type != FormatJSONSchema {
		return openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
	}
	js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: f.Name, Schema: f.Schema}
	if f.Strict {
		js.Strict = openai.Bool(true)
	}
	if f.Description != "" {
		js.Description = openai.String(f.Description)
	}
	return openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}}
}

// errNoOutput: the stream ended cleanly but without a finish reason or any
// text (a proxy cut it, or the server gave up); retryable.
var errNoOutput = errors.New("llm: stream ended before any output")

// attempt makes one call. produced reports whether any text reached onDelta;
// then the Result is meaningful even with an error.
func (o *OpenAI) attempt(ctx context.Context, req Request, params openai.ChatCompletionNewParams, onDelta func(string) error) (res Result, produced bool, err error) {
	// Our own cancel: returning early (onDelta failed) must stop the upstream
	// generation, not only stop reading it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream := o.client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()

	var text strings.Builder
	var usage *openai.CompletionUsage
	res.Model = params.Model
	for stream.Next() {
		chunk := stream.Current()
		if chunk.Model != "" {
			res.Model = chunk.Model
		}
		if chunk.JSON.Usage.Valid() {
			u := chunk.Usage
			usage = &u
		}
		for _, choice := range chunk.Choices {
			if choice.Index != 0 {
				continue // n is always 1; ignore anything else
			}
			// A refusal is what the model said; it is shown and metered like text.
			for _, d := range []string{choice.Delta.Content, choice.Delta.Refusal} {
				if d == "" {
					continue
				}
				produced = true
				text.WriteString(d)
				if cbErr := onDelta(d); cbErr != nil {
					cancel()
					return o.partial(req, res, text.String()), true, fmt.Errorf("%w: %w", ErrInterrupted, cbErr)
				}
			}
			if choice.FinishReason != "" {
				res.FinishReason = choice.FinishReason
			}
		}
	}
	streamErr := stream.Err()
	if streamErr == nil && res.FinishReason == "" {
		// Clean EOF without a finish reason ([DONE] or not): the stream was cut.
		streamErr = io.ErrUnexpectedEOF
		if !produced {
			streamErr = errNoOutput
		}
	}
	if streamErr != nil {
		if ctx.Err() != nil {
			streamErr = ctx.Err()
		}
		if !produced {
			return Result{}, false, streamErr
		}
		return o.partial(req, res, text.String()), true, fmt.Errorf("%w: %w", ErrInterrupted, streamErr)
	}
	res.Text = text.String()
	if usage != nil {
		res.Usage = Usage{InputTokens: usage.PromptTokens, OutputTokens: usage.CompletionTokens}
	} else {
		// A server that ignores include_usage: meter our own count.
		res.Usage = o.estimate(req, res.Text)
	}
	return res, true, nil
}

func (o *OpenAI) partial(req Request, res Result, text string) Result {
	res.Text = text
	res.Usage = o.estimate(req, text)
	return res
}

// estimate counts the usage with the platform tokenizer, by the rule the
// simulator reports (llm.PromptTokens): the best available stand-in for a
// usage chunk that never came.
func (o *OpenAI) estimate(req Request, text string) Usage {
	return Usage{
		InputTokens:  int64(PromptTokens(req.Messages)),
		OutputTokens: int64(CompletionTokens(text)),
		Estimated:    true,
	}
}

// retryDelay decides whether err (before any output) is worth another
// attempt and how long to wait first.
func (o *OpenAI) retryDelay(attempt int, err error) (time.Duration, bool) {
	if attempt >= o.cfg.MaxRetries {
		return 0, false
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		switch code := apiErr.StatusCode; {
		case code == http.StatusTooManyRequests, code == http.StatusRequestTimeout, code == http.StatusConflict, code >= 500:
		default:
			return 0, false // 400, 401, 403, 404…: retrying cannot help
		}
		if apiErr.Response != nil {
			if d, ok := retryAfter(apiErr.Response.Header); ok {
				if d > o.cfg.MaxRetryAfter {
					return 0, false
				}
				return d, true
			}
		}
		return o.backoff(attempt), true
	}
	var streamErr *ssestream.StreamError
	var netErr net.Error
	switch {
	case errors.As(err, &streamErr), errors.Is(err, errNoOutput), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, io.EOF), errors.As(err, &netErr):
		// Network errors (refused, reset, timeouts) come as *url.Error /
		// *net.OpError, both net.Error; a cancelled ctx was handled before.
		return o.backoff(attempt), true
	}
	return 0, false
}

// backoff is exponential with "equal jitter": half the step fixed, half
// random, so concurrent callers spread out but never retry instantly.
func (o *OpenAI) backoff(attempt int) time.Duration {
	d := o.cfg.RetryBaseDelay << min(attempt, 20)
	if d <= 0 || d > o.cfg.RetryMaxDelay {
		d = o.cfg.RetryMaxDelay
	}
	half := d / 2
	return half + rand.N(half+1)
}

// retryAfter reads Retry-After-Ms (OpenAI's, milliseconds) or Retry-After
// (seconds or an HTTP date).
func retryAfter(h http.Header) (time.Duration, bool) {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}
