package llmsim

import (
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/conversations/internal/llm"
)

func TestSlowFirstTokenMarker(t *testing.T) {
	for _, c := range []struct {
		msgs []llm.Message
		want time.Duration
		ok   bool
	}{
		{[]llm.Message{{Role: "user", Content: "Hello [sim:ttft=5s]"}}, 5 * time.Second, true},
		{[]llm.Message{{Role: "user", Content: "[sim:ttft=250ms] hi"}, {Role: "assistant", Content: "ok"}}, 250 * time.Millisecond, true},
		{[]llm.Message{{Role: "user", Content: "[sim:ttft=99999s]"}}, 30 * time.Second, true},
		// Only the last user message counts; no marker, no delay.
		{[]llm.Message{{Role: "user", Content: "[sim:ttft=5s]"}, {Role: "user", Content: "plain"}}, 0, false},
		{[]llm.Message{{Role: "system", Content: "[sim:ttft=5s]"}}, 0, false},
	} {
		got, ok := slowFirstToken(c.msgs)
		if got != c.want || ok != c.ok {
			t.Errorf("%v: %v %v, want %v %v", c.msgs, got, ok, c.want, c.ok)
		}
	}
}
