package app

import (
	"testing"
)

// Answer starts the knowledge search of a conversation this replica has
// seen before while it reads the conversation. That head start is keyed by
// the caller: someone else sending to the conversation gets the 404 and
// starts no work on its agent's knowledge, and the owner's messages are
// answered as before.
func TestConversationHintIsTheCallersOnly(t *testing.T) {
	e := start(t, options{})
	conv := e.newConversation(t, e.alice, agentA) // remembered for alice
	if r := e.sendJSON(t, e.alice, conv, "What does the midterm exam cover?", "a1"); r.status != 200 {
		t.Fatalf("alice: %d %s", r.status, r.raw)
	}
	const probe = "Bob asks about the midterm exam in Alice's conversation"
	// bob subscribes to the same agent: the agent's knowledge is his to
	// search too, but this conversation is not his.
	if r := e.sendJSON(t, e.bob, conv, probe, "b1"); r.status != 404 {
		t.Fatalf("bob in alice's conversation: %d %s", r.status, r.raw)
	}
	for _, q := range e.knowledge.Searches() {
		if q.GetQuery() == probe {
			t.Fatalf("a search ran for another user's conversation: %v", q)
		}
	}
	// alice's next message, with the head start: answered and cited.
	r := e.sendJSON(t, e.alice, conv, "When are the office hours?", "a2")
	if r.status != 200 {
		t.Fatalf("alice again: %d %s", r.status, r.raw)
	}
	cites := r.obj()["assistantMessage"].(map[string]any)["citations"].([]any)
	if len(cites) == 0 {
		t.Fatalf("answer without citations: %s", r.raw)
	}
}
