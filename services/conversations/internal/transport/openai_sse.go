package transport

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// sse writes Server-Sent Events: the chat's stream (sseSink) and the agent
// API's. The status and headers go out with the first event, so that every
// refusal before it is still a plain JSON error with its status. JSON has no
// raw newlines, so one data line always holds the whole value.
type sse struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
}

func (s *sse) begin() {
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
func (s *sse) data(v any) error { return s.event("", v) }

// event writes one event named name (none when empty) with v as JSON and
// flushes it.
func (s *sse) event(name string, v any) error {
	s.begin()
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if name != "" {
		if _, err := fmt.Fprintf(s.w, "event: %s\n", name); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", b); err != nil {
		return err
	}
	return s.rc.Flush()
}

// done ends a Chat Completions stream.
func (s *sse) done() {
	_, _ = io.WriteString(s.w, "data: [DONE]\n\n")
	_ = s.rc.Flush()
}
