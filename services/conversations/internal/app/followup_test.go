package app

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/agentic-app/agentic/services/conversations/internal/llm"
	"github.com/agentic-app/agentic/services/conversations/internal/pricing"
	"github.com/agentic-app/agentic/services/conversations/internal/prompt"
)

// simRequest is the part of a chat completions request these tests read.
type simRequest struct {
	Messages []llm.Message `json:"messages"`
}

func (r simRequest) rewrite() bool {
	return len(r.Messages) > 0 && strings.HasPrefix(r.Messages[0].Content, prompt.StandaloneQueryInstruction)
}

func (e *env) simRequests(t *testing.T) []simRequest {
	t.Helper()
	var out []simRequest
	for _, body := range e.front.requests() {
		var r simRequest
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatalf("simulator request %s: %v", body, err)
		}
		out = append(out, r)
	}
	return out
}

// With FOLLOW_UP_SEARCH=model a message that has history is rewritten by
// the model (through the production adapter; the simulator answers by its
// rule) into a standalone query, which is searched instead of the message
// with the previous one's words. The rewrite is a call of the answer: its
// tokens are in the answer's usage and its price in what is captured —
// exactly, to the token. A first message is not rewritten.
func TestFollowUpRewrittenByTheModelAndBilledWithTheAnswer(t *testing.T) {
	e := start(t, options{followUps: "model"})
	if ci := e.do(t, "GET", "/api/agents/"+agentA+"/chat-info", e.alice, ""); ci.Status != 200 || ci.Obj()["followUpSearch"] != "model" {
		t.Fatalf("chat-info: %d %s", ci.Status, ci.Raw)
	}
	conv := e.newConversation(t, e.alice, agentA)
	first := "What does the midterm exam cover?"
	if r := e.sendJSON(t, e.alice, conv, first, "m1"); r.Status != 200 {
		t.Fatalf("first: %d %s", r.Status, r.Raw)
	}
	for _, r := range e.simRequests(t) {
		if r.rewrite() {
			t.Fatalf("a first message was rewritten: %+v", r)
		}
	}
	asked := len(e.simRequests(t))

	followUp := "And where is it held?"
	r := e.sendJSON(t, e.alice, conv, followUp, "m2")
	if r.Status != 200 {
		t.Fatalf("follow-up: %d %s", r.Status, r.Raw)
	}
	reqs := e.simRequests(t)[asked:]
	if len(reqs) != 2 || !reqs[0].rewrite() || reqs[1].rewrite() {
		t.Fatalf("want the rewrite, then the answer; the simulator got %+v", reqs)
	}
	// The rewrite quotes the conversation (the first question and its
	// answer) and the follow-up.
	quoted := reqs[0].Messages[1].Content
	if !strings.Contains(quoted, "User: "+first) || !strings.Contains(quoted, "Assistant: ") || !strings.Contains(quoted, followUp) {
		t.Fatalf("rewrite request: %s", quoted)
	}
	standalone := "What does the midterm exam cover; " + followUp // the simulator's rule
	var searched bool
	for _, q := range e.knowledge.Searches() {
		if q.GetQuery() == followUp && q.GetRelevantOnly() {
			t.Fatalf("the follow-up was searched as sent: %v", q)
		}
		if q.GetQuery() == standalone {
			searched = true
			if len(q.GetEarlierMessages()) != 0 {
				t.Errorf("a standalone query searched with earlier messages %v", q.GetEarlierMessages())
			}
		}
	}
	if !searched {
		t.Fatalf("the standalone query %q was not searched: %v", standalone, e.knowledge.Searches())
	}

	asst := r.Obj()["assistantMessage"].(map[string]any)
	usage := asst["usage"].(map[string]any)
	in, out := int64(usage["inputTokens"].(float64)), int64(usage["outputTokens"].(float64))
	wantIn := int64(llm.PromptTokens(reqs[0].Messages) + llm.PromptTokens(reqs[1].Messages))
	wantOut := int64(llm.CompletionTokens(standalone) + llm.CompletionTokens(asst["content"].(string)))
	if in != wantIn || out != wantOut {
		t.Fatalf("usage %d in / %d out, want %d / %d (rewrite + answer)", in, out, wantIn, wantOut)
	}
	price, _ := pricing.Default.Lookup(pricing.SimModel)
	total := pricing.QuoteParts(price, wantIn, wantOut, 0, 0).TotalMicros
	if got := int64(usage["totalMicros"].(float64)); got != total {
		t.Fatalf("totalMicros %d, want %d", got, total)
	}
	var captured bool
	for _, tr := range e.wallet.Transfers() {
		if tr.Metadata["messageId"] == asst["id"] {
			captured = true
			if tr.Amount != total || tr.Metadata["inputTokens"] != strconv.FormatInt(wantIn, 10) {
				t.Fatalf("captured %d (%v), want %d", tr.Amount, tr.Metadata, total)
			}
		}
	}
	if !captured {
		t.Fatalf("no capture of %v in %+v", asst["id"], e.wallet.Transfers())
	}
}

// When the rewrite fails (the provider refuses it), the follow-up is
// searched by the rule and answered; nothing of the failed call is billed.
func TestFollowUpRewriteFailureFallsBackToTheRule(t *testing.T) {
	e := start(t, options{followUps: "model"})
	conv := e.newConversation(t, e.alice, agentA)
	first := "What does the midterm exam cover?"
	if r := e.sendJSON(t, e.alice, conv, first, "f1"); r.Status != 200 {
		t.Fatalf("first: %d %s", r.Status, r.Raw)
	}
	asked := len(e.simRequests(t))
	e.sim.QueueFaults(400, 1, 0) // the next request, the rewrite, is refused (not retried)
	followUp := "And where is it held?"
	r := e.sendJSON(t, e.alice, conv, followUp, "f2")
	if r.Status != 200 {
		t.Fatalf("follow-up: %d %s", r.Status, r.Raw)
	}
	var byRule bool
	for _, q := range e.knowledge.Searches() {
		if q.GetQuery() == followUp && q.GetRelevantOnly() {
			byRule = true
			if got := q.GetEarlierMessages(); len(got) != 1 || got[0] != first {
				t.Errorf("searched with %v", got)
			}
		}
	}
	if !byRule {
		t.Fatalf("the follow-up was not searched by the rule: %v", e.knowledge.Searches())
	}
	reqs := e.simRequests(t)[asked:]
	answer := reqs[len(reqs)-1]
	usage := r.Obj()["assistantMessage"].(map[string]any)["usage"].(map[string]any)
	if in := int64(usage["inputTokens"].(float64)); in != int64(llm.PromptTokens(answer.Messages)) {
		t.Fatalf("input tokens %d, want the answer's own %d", in, llm.PromptTokens(answer.Messages))
	}
}

// In the rule mode (the simulator's default) no rewrite is asked for.
func TestFollowUpRuleModeAsksNoRewrite(t *testing.T) {
	e := start(t, options{})
	if ci := e.do(t, "GET", "/api/agents/"+agentA+"/chat-info", e.alice, ""); ci.Obj()["followUpSearch"] != "rule" {
		t.Fatalf("chat-info: %s", ci.Raw)
	}
	conv := e.newConversation(t, e.alice, agentA)
	for i, m := range []string{"What does the midterm exam cover?", "And where is it held?"} {
		if r := e.sendJSON(t, e.alice, conv, m, "r"+string(rune('1'+i))); r.Status != 200 {
			t.Fatalf("%q: %d %s", m, r.Status, r.Raw)
		}
	}
	for _, r := range e.simRequests(t) {
		if r.rewrite() {
			t.Fatalf("rule mode asked for a rewrite: %+v", r)
		}
	}
}
