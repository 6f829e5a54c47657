package transport

import (
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/go-kit/kit/endpoint"
	httptransport "github.com/go-kit/kit/transport/http"

	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/conversations/internal/endpoints"
	"github.com/agentic-app/agentic/services/platform/server"
)

// SSE event names (docs/conversations-api.md).
const (
	EventStart     = "start"
	EventDelta     = "delta"
	EventCitations = "citations"
	EventUsage     = "usage"
	EventDone      = "done"
	EventError     = "error"
)

// messageHandler serves POST /api/conversations/{id}/messages: as an SSE
// stream when the client accepts text/event-stream, else as JSON.
type messageHandler struct {
	send   endpoint.Endpoint
	errEnc httptransport.ErrorEncoder
	log    *slog.Logger
}

type messageBody struct {
	Content         string `json:"content"`
	ClientMessageID string `json:"clientMessageId"`
}

// wantsStream reports whether the Accept header prefers an event stream.
func wantsStream(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err == nil && mt == "text/event-stream" {
			return true
		}
	}
	return false
}

func (h *messageHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	ctx := r.Context()
	claims, err := server.ClaimsFrom(ctx)
	if err != nil {
		h.errEnc(ctx, err, w)
		return
	}
	var b messageBody
	if err := server.DecodeJSON(w, r, &b); err != nil {
		h.errEnc(ctx, err, w)
		return
	}
	// An answer takes as long as the model does (bounded by LLM_TIMEOUT):
	// the server's write timeout, meant for ordinary requests, must not cut
	// it, streamed or not.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	req := endpoints.SendMessageRequest{Claims: claims, Request: conversations.AnswerRequest{
		ConversationID: r.PathValue("id"), Content: b.Content, ClientMessageID: b.ClientMessageID,
		Channel: conversations.ChannelChat, Received: received,
	}}
	var sink *sseSink
	if wantsStream(r.Header.Get("Accept")) {
		sink = newSSESink(w)
		req.Sink = sink
	}
	resp, err := h.send(ctx, req)
	if err != nil {
		if sink != nil && sink.started {
			// The stream is under way: the error is its last event.
			e, _ := httpError(err)
			if e == nil {
				h.log.ErrorContext(ctx, "answer failed mid-stream", "error", err)
				e = server.ErrInternal
			}
			_ = sink.event(EventError, e)
			return
		}
		h.errEnc(ctx, err, w)
		return
	}
	m := resp.(endpoints.MessageResponse)
	if sink == nil {
		server.WriteJSON(w, http.StatusOK, TurnJSON{UserMessage: MessageToJSON(m.Turn.User), AssistantMessage: MessageToJSON(m.Turn.Assistant)})
		return
	}
	sink.finish(m)
}

// sseSink writes the answer as Server-Sent Events (sse, openai_sse.go),
// flushing every event so that it reaches the browser at once (through the
// gateway, which does not buffer this route).
type sseSink struct{ sse }

func newSSESink(w http.ResponseWriter) *sseSink {
	return &sseSink{sse{w: w, rc: http.NewResponseController(w)}}
}

type startJSON struct {
	UserMessageID      string `json:"userMessageId"`
	AssistantMessageID string `json:"assistantMessageId"`
	Model              string `json:"model"`
	Simulated          bool   `json:"simulated"`
}

// Start implements conversations.Sink.
func (s *sseSink) Start(info conversations.StartInfo) error {
	if !s.started {
		addAnswerTiming(s.w.Header(), info)
	}
	return s.event(EventStart, startJSON{UserMessageID: info.UserMessageID, AssistantMessageID: info.AssistantMessageID,
		Model: info.Model, Simulated: info.Simulated})
}

// Delta implements conversations.Sink.
func (s *sseSink) Delta(text string) error {
	return s.event(EventDelta, map[string]string{"text": text})
}

// finish sends the end of a stream: for a replayed turn the whole stored
// answer first; then citations, usage and done — or, for an answer that
// stopped early, error as the last event.
func (s *sseSink) finish(m endpoints.MessageResponse) {
	t := m.Turn
	a := t.Assistant
	if !s.started {
		// A replay, or an answer with no text at all.
		if err := s.Start(conversations.StartInfo{UserMessageID: t.User.ID, AssistantMessageID: a.ID,
			Model: t.Model, Simulated: t.Simulated}); err != nil {
			return
		}
		if t.Replayed && a.Content != "" {
			if err := s.Delta(a.Content); err != nil {
				return
			}
		}
	}
	cs := MessageToJSON(a).Citations
	if err := s.event(EventCitations, cs); err != nil {
		return
	}
	if u := usageToJSON(a.Usage); u != nil {
		if err := s.event(EventUsage, u); err != nil {
			return
		}
	}
	switch {
	case m.Interrupted != nil || a.Status == conversations.StatusPartial || a.Status == conversations.StatusStopped:
		_ = s.event(EventError, ErrInterrupted)
	case a.Status == conversations.StatusFailed:
		_ = s.event(EventError, ErrModelUnavailable)
	default:
		_ = s.event(EventDone, map[string]string{"messageId": a.ID})
	}
}
