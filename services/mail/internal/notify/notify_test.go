package notify

import (
	"context"
	"net/mail"
	"sync/atomic"
	"testing"

	"github.com/agentic-app/agentic/services/platform/events"
)

type countingUsers struct{ calls atomic.Int32 }

func (u *countingUsers) User(context.Context, string) (User, error) {
	u.calls.Add(1)
	return User{Email: "alice@example.org", Name: "Alice"}, nil
}

// The usage topic's other events return at once: no decoding, no identity
// call, no statement in the transaction (a nil tx would panic if used).
func TestUsageHandlerIgnoresOtherTypes(t *testing.T) {
	users := &countingUsers{}
	from, _ := mail.ParseAddress(DefaultFrom)
	h, err := UsageHandler(Config{Users: users, From: *from})
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"agentic.usage.interaction.recorded.v1", "", "agentic.usage.something.new.v1"} {
		if err := h(context.Background(), nil, events.Received{ID: "ev-" + typ, Type: typ, Payload: []byte("not json")}); err != nil {
			t.Errorf("%q: %v", typ, err)
		}
	}
	if n := users.calls.Load(); n != 0 {
		t.Errorf("identity called %d times", n)
	}
}
