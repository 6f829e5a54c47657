package app

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/conversations/internal/llmsim"
	"github.com/agentic-app/agentic/services/conversations/internal/pricing"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

// Issue 30 item 4: a request cancelled after the model was sent the prompt
// is charged for its input (and the fee), with no output; the question and
// an empty answer (status "stopped", issue 29 item 3) stay in the
// conversation. Before this change the
// hold was released and the answer was free although the provider read
// (and bills for) the whole prompt.
func TestStopBeforeTheFirstTokenIsChargedForTheInput(t *testing.T) {
	e := start(t, options{})
	conv := e.newConversation(t, e.alice, agentA)
	e.front.set(llmsim.HeaderTTFT, "5s") // the model reads the prompt, then is slow to start
	defer e.front.set(llmsim.HeaderTTFT, "")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", e.base+"/api/conversations/"+conv+"/messages",
		strings.NewReader(msgBody(question, "stop-early")))
	req.Header.Set("Authorization", "Bearer "+tok(e.alice))
	req.Header.Set("Accept", "text/event-stream")
	sent := e.sim.Stats().Requests
	done := make(chan struct{})
	go func() {
		defer close(done)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	testwait.Until(t, "the model to receive the prompt", func() bool { return e.sim.Stats().Requests > sent })
	cancel()
	<-done

	var msgs []any
	testwait.Until(t, "the stopped answer to be charged", func() bool {
		msgs = e.do(t, "GET", "/api/conversations/"+conv, e.alice, "").Obj()["messages"].([]any)
		return len(msgs) == 2 && len(e.wallet.Transfers()) == 1
	})
	user, asst := msgs[0].(map[string]any), msgs[1].(map[string]any)
	u, _ := asst["usage"].(map[string]any)
	if user["content"] != question || asst["status"] != "stopped" || asst["content"] != "" || u == nil {
		t.Fatalf("messages %v", msgs)
	}
	in, out := num(u["inputTokens"]), num(u["outputTokens"])
	want := pricing.Quote(pricing.Default[pricing.SimModel], in, 0).TotalMicros
	if in <= 0 || out != 0 || num(u["totalMicros"]) != want || want <= 0 || e.wallet.Transfers()[0].Amount != want {
		t.Fatalf("usage %v, transfers %+v, want %d µ$ for %d input tokens", u, e.wallet.Transfers(), want, in)
	}
	if _, held := e.wallet.Balance(e.alice); held != 0 {
		t.Fatalf("still held: %d", held)
	}
	// The model call itself was cancelled, not waited for.
	testwait.Until(t, "the model call to be cancelled", func() bool { return e.sim.Stats().Cancelled >= 1 })
}

// holdAfterBeginTurn delays the answer after its turn is recorded until the
// request is cancelled (Stop pressed before the model was called).
type holdAfterBeginTurn struct {
	conversations.Store
	begun chan struct{}
}

func (h holdAfterBeginTurn) BeginTurn(ctx context.Context, user, asst conversations.Message, c conversations.Charge) (conversations.Turn, bool, error) {
	t, created, err := h.Store.BeginTurn(ctx, user, asst, c)
	if err == nil && created && strings.HasPrefix(user.ClientMessageID, "stop-") {
		close(h.begun)
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
		}
	}
	return t, created, err
}

// Issue 29 item 3: Stop pressed before the model was called keeps the
// question (its answer "stopped", empty, without usage) and charges
// nothing: the hold is released.
func TestStopBeforeTheModelIsCalledKeepsTheQuestionFree(t *testing.T) {
	begun := make(chan struct{})
	e := start(t, options{wrapStore: func(s conversations.Store) conversations.Store { return holdAfterBeginTurn{s, begun} }})
	conv := e.newConversation(t, e.alice, agentA)
	bal, _ := e.wallet.Balance(e.alice)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", e.base+"/api/conversations/"+conv+"/messages",
		strings.NewReader(msgBody(question, "stop-before-model")))
	req.Header.Set("Authorization", "Bearer "+tok(e.alice))
	req.Header.Set("Accept", "text/event-stream")
	sent := e.sim.Stats().Requests
	done := make(chan struct{})
	go func() {
		defer close(done)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	select {
	case <-begun:
	case <-time.After(20 * time.Second):
		t.Fatal("the turn was not recorded")
	}
	cancel()
	<-done

	var msgs []any
	testwait.Until(t, "the stopped answer to be recorded", func() bool {
		msgs = e.do(t, "GET", "/api/conversations/"+conv, e.alice, "").Obj()["messages"].([]any)
		if len(msgs) != 2 {
			return false
		}
		_, held := e.wallet.Balance(e.alice)
		return msgs[1].(map[string]any)["status"] == "stopped" && held == 0
	})
	user, asst := msgs[0].(map[string]any), msgs[1].(map[string]any)
	if user["content"] != question || asst["content"] != "" || asst["usage"] != nil {
		t.Fatalf("messages %v", msgs)
	}
	if b, held := e.wallet.Balance(e.alice); b != bal || held != 0 || len(e.wallet.Transfers()) != 0 {
		t.Fatalf("balance %d→%d held %d transfers %+v", bal, b, held, e.wallet.Transfers())
	}
	if e.sim.Stats().Requests != sent {
		t.Fatal("the model was called")
	}
	if holds := e.wallet.Holds(); len(holds) != 1 || holds[0].Status != "released" {
		t.Fatalf("holds %+v", holds)
	}
	// The next question is answered, and the stopped turn is not part of its history.
	if r := e.sendJSON(t, e.alice, conv, question, "after-stop"); r.Status != 200 {
		t.Fatalf("next question: %d %s", r.Status, r.Raw)
	}
	if msgs = e.do(t, "GET", "/api/conversations/"+conv, e.alice, "").Obj()["messages"].([]any); len(msgs) != 4 {
		t.Fatalf("messages after the next question: %d", len(msgs))
	}
}
