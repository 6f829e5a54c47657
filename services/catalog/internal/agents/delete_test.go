package agents

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A deleted agent's address is never issued again (issue 29): agent_emails
// keeps it after the agents row is gone.
func TestDeletedAgentsAddressIsNeverReused(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	a, err := s.Create(ctx, agentFor("u1", "00000000-0000-7000-8000-0000000000d1"), func() string { return "bot-dddddd@x.test" }, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "u2", a.ID, time.Now()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another owner's delete: %v", err)
	}
	if err := s.Delete(ctx, "u1", a.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "u1", a.ID, time.Now()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := s.GetByEmail(ctx, a.Email); !errors.Is(err, ErrNotFound) {
		t.Fatalf("GetByEmail after delete: %v", err)
	}
	calls := 0
	b, err := s.Create(ctx, agentFor("u3", "00000000-0000-7000-8000-0000000000d2"), func() string {
		calls++
		if calls == 1 {
			return "Bot-DDDDDD@x.test" // the deleted agent's address
		}
		return "bot-eeeeee@x.test"
	}, 0)
	if err != nil || b.Email != "bot-eeeeee@x.test" || calls != 2 {
		t.Fatalf("new agent got %q (%v, %d calls)", b.Email, err, calls)
	}
	// The owner's agent count no longer includes the deleted one.
	if _, err := s.Create(ctx, agentFor("u1", "00000000-0000-7000-8000-0000000000d3"), func() string { return "bot-ffffff@x.test" }, 1); err != nil {
		t.Fatalf("create after delete at the limit of 1: %v", err)
	}
}
