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
	if r := e.sendJSON(t, e.alice, conv, "What does the midterm exam cover?", "a1"); r.Status != 200 {
		t.Fatalf("alice: %d %s", r.Status, r.Raw)
	}
	const probe = "Bob asks about the midterm exam in Alice's conversation"
	// bob subscribes to the same agent: the agent's knowledge is his to
	// search too, but this conversation is not his.
	if r := e.sendJSON(t, e.bob, conv, probe, "b1"); r.Status != 404 {
		t.Fatalf("bob in alice's conversation: %d %s", r.Status, r.Raw)
	}
	for _, q := range e.knowledge.Searches() {
		if q.GetQuery() == probe {
			t.Fatalf("a search ran for another user's conversation: %v", q)
		}
	}
	// alice's next message, with the head start: answered and cited.
	r := e.sendJSON(t, e.alice, conv, "When are the office hours?", "a2")
	if r.Status != 200 {
		t.Fatalf("alice again: %d %s", r.Status, r.Raw)
	}
	cites := r.Obj()["assistantMessage"].(map[string]any)["citations"].([]any)
	if len(cites) == 0 {
		t.Fatalf("answer without citations: %s", r.Raw)
	}
}

// A message is searched with the caller's previous message of the
// conversation (the documents service decides whether it is a follow-up),
// asking for relevant passages only; a first message with none. The second
// message takes the head start (the previous message remembered by this
// replica).
func TestSearchesCarryThePreviousMessage(t *testing.T) {
	e := start(t, options{})
	conv := e.newConversation(t, e.alice, agentA)
	first := "What does the midterm exam cover?"
	if r := e.sendJSON(t, e.alice, conv, first, "f1"); r.Status != 200 {
		t.Fatalf("first: %d %s", r.Status, r.Raw)
	}
	followUp := "And where is it held?"
	if r := e.sendJSON(t, e.alice, conv, followUp, "f2"); r.Status != 200 {
		t.Fatalf("follow-up: %d %s", r.Status, r.Raw)
	}
	var sawFirst, sawFollowUp bool
	for _, q := range e.knowledge.Searches() {
		switch q.GetQuery() {
		case first:
			sawFirst = true
			if len(q.GetEarlierMessages()) != 0 {
				t.Errorf("first message searched with %v", q.GetEarlierMessages())
			}
		case followUp:
			sawFollowUp = true
			if got := q.GetEarlierMessages(); len(got) != 1 || got[0] != first {
				t.Errorf("follow-up searched with %v", got)
			}
		}
		// The message's own search keeps relevant passages only; the search
		// of the documents the instructions reference by #label keeps all.
		if relevantOnly := len(q.GetLabels()) == 0; q.GetRelevantOnly() != relevantOnly {
			t.Errorf("search %q (labels %v): relevant only %v", q.GetQuery(), q.GetLabels(), q.GetRelevantOnly())
		}
	}
	if !sawFirst || !sawFollowUp {
		t.Fatalf("searches seen: first %v, follow-up %v", sawFirst, sawFollowUp)
	}
}
