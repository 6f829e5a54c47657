package app

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
)

// BeginTurn without an API key is one batch (one implicit transaction): it
// must still record a new turn whole, replay an existing clientMessageId
// without writing, and write nothing into a deleted conversation.
func TestBeginTurnInOneRoundTrip(t *testing.T) {
	e := start(t, options{})
	ctx := context.Background()
	conv := e.newConversation(t, e.alice, agentA)
	turn := func(clientID string) (conversations.Message, conversations.Message, conversations.Charge) {
		now := time.Now().UTC().Truncate(time.Microsecond)
		user := conversations.Message{ID: uuid.NewString(), ConversationID: conv, Role: conversations.RoleUser,
			Content: "Question " + clientID, Status: conversations.StatusComplete, ClientMessageID: clientID,
			CreatedAt: now, UpdatedAt: now}
		asst := conversations.Message{ID: uuid.NewString(), ConversationID: conv, Role: conversations.RoleAssistant,
			Status: conversations.StatusPending, ReplyTo: user.ID, CreatedAt: now, UpdatedAt: now}
		c := conversations.Charge{MessageID: asst.ID, ConversationID: conv, AgentID: agentA, UserUID: e.alice,
			PayerUID: e.alice, Channel: "chat", Key: "msg:" + asst.ID, ReserveMicros: 1234,
			ReserveMeta: map[string]string{"agentId": agentA}, State: conversations.ChargeReserving,
			LeaseUntil: now.Add(time.Minute), CreatedAt: now, UpdatedAt: now}
		return user, asst, c
	}

	user, asst, charge := turn("one")
	got, created, err := e.store.BeginTurn(ctx, user, asst, charge)
	if err != nil || !created || got.User.ID != user.ID || got.Assistant.ID != asst.ID {
		t.Fatalf("new turn: created %v err %v turn %+v", created, err, got)
	}
	if c, err := e.store.GetCharge(ctx, asst.ID); err != nil || c.State != conversations.ChargeReserving || c.ReserveMicros != 1234 ||
		c.ReserveMeta["agentId"] != agentA {
		t.Fatalf("charge recorded: %+v %v", c, err)
	}

	// The same clientMessageId again (a retried send): the first turn, nothing written.
	user2, asst2, charge2 := turn("one")
	got, created, err = e.store.BeginTurn(ctx, user2, asst2, charge2)
	if err != nil || created || got.User.ID != user.ID || got.Assistant.ID != asst.ID {
		t.Fatalf("replay: created %v err %v turn %+v", created, err, got)
	}
	if _, err := e.store.GetCharge(ctx, asst2.ID); err == nil {
		t.Fatal("a replayed send recorded a second charge")
	}

	// A deleted conversation takes no turn.
	if r := e.do(t, "DELETE", "/api/conversations/"+conv, e.alice, ""); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	user3, asst3, charge3 := turn("two")
	if _, _, err := e.store.BeginTurn(ctx, user3, asst3, charge3); !errors.Is(err, conversations.ErrConversationNotFound) {
		t.Fatalf("deleted conversation: %v", err)
	}
	if _, err := e.store.GetCharge(ctx, asst3.ID); err == nil {
		t.Fatal("a turn in a deleted conversation recorded its charge")
	}
}
