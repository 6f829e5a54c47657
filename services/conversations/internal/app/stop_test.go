package app

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/agentic-app/agentic/services/conversations/internal/llmsim"
	"github.com/agentic-app/agentic/services/conversations/internal/pricing"
)

// Issue 30 item 4: a request cancelled after the model was sent the prompt
// is charged for its input (and the fee), with no output; the question and
// an empty partial answer stay in the conversation. Before this change the
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
	waitFor(t, "the model to receive the prompt", func() bool { return e.sim.Stats().Requests > sent })
	cancel()
	<-done

	var msgs []any
	waitFor(t, "the stopped answer to be charged", func() bool {
		msgs = e.do(t, "GET", "/api/conversations/"+conv, e.alice, "").obj()["messages"].([]any)
		return len(msgs) == 2 && len(e.wallet.Transfers()) == 1
	})
	user, asst := msgs[0].(map[string]any), msgs[1].(map[string]any)
	u, _ := asst["usage"].(map[string]any)
	if user["content"] != question || asst["status"] != "partial" || asst["content"] != "" || u == nil {
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
	waitFor(t, "the model call to be cancelled", func() bool { return e.sim.Stats().Cancelled >= 1 })
}
