package app

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/conversations/internal/pricing"
)

// Issue 28: consumers of a listed agent pay per answer with the creator's
// markup, and the greeting cost once per conversation.

const (
	testMarkup        = 50
	testGreetingCents = 2
	testGreeting      = "Hi! I tutor algebra. What are you working on?"
)

// listAgentA lists alice's agent A on the marketplace (as the catalog's
// CheckAccess would describe it) with a 50% markup, a 2¢ greeting cost, a
// greeting and its sources hidden from non-owners; carol (an invited, not
// active subscriber) becomes a consumer with $10.
func (e *env) listAgentA(t *testing.T, listed bool) {
	t.Helper()
	e.catalog.AddAgent(&catalogv1.Agent{Id: agentA, OwnerUid: e.alice, Name: "Math Tutor", IconColor: "#4f46e5",
		Status: "active", Instructions: "You tutor algebra. Prefer the course material of #week1.",
		IsPublic: listed, Listed: listed, Slug: "math-tutor", MarkupPercent: testMarkup, GreetingCostCents: testGreetingCents,
		Greeting: testGreeting, MemoryTokens: 4000, ShowSources: false})
}

// consumerUsage asserts a consumer's usage: cost and fee by the table, the
// markup on the cost, the greeting as given, and the total their sum.
func consumerUsage(t *testing.T, u map[string]any, greeting int64) (total int64) {
	t.Helper()
	in, out := num(u["inputTokens"]), num(u["outputTokens"])
	cost := pricing.Cost(pricing.Default[pricing.SimModel], in, out)
	fee, markup := pricing.Fee(cost), pricing.Markup(cost, testMarkup)
	if in <= 0 || out <= 0 || num(u["costMicros"]) != cost || num(u["feeMicros"]) != fee || num(u["markupMicros"]) != markup ||
		num(u["greetingMicros"]) != greeting || num(u["totalMicros"]) != cost+fee+markup+greeting {
		t.Fatalf("consumer usage %v, want cost %d fee %d markup %d greeting %d", u, cost, fee, markup, greeting)
	}
	return num(u["totalMicros"])
}

func TestConsumerPaysMarkupAndGreetingOnce(t *testing.T) {
	e := start(t, options{})
	e.listAgentA(t, true)
	e.wallet.SetBalance(e.carol, 10*dollar)

	// A consumer may ask what a chat uses, start, list and read conversations.
	if r := e.do(t, "GET", "/api/agents/"+agentA+"/chat-info", e.carol, ""); r.Status != 200 || r.Obj()["role"] != "consumer" {
		t.Fatalf("chat-info: %d %s", r.Status, r.Raw)
	}
	conv := e.newConversation(t, e.carol, agentA)
	if r := e.do(t, "GET", "/api/agents/"+agentA+"/conversations", e.carol, ""); r.Status != 200 || len(r.List()) != 1 {
		t.Fatalf("list: %d %s", r.Status, r.Raw)
	}
	// The greeting is the conversation's first message: free.
	g := e.do(t, "GET", "/api/conversations/"+conv, e.carol, "")
	msgs := g.Obj()["messages"].([]any)
	if g.Status != 200 || len(msgs) != 1 {
		t.Fatalf("new conversation: %d %s", g.Status, g.Raw)
	}
	greet := msgs[0].(map[string]any)
	if greet["role"] != "assistant" || greet["content"] != testGreeting || greet["usage"] != nil || greet["status"] != "complete" {
		t.Fatalf("greeting message %v", greet)
	}
	if len(e.wallet.Holds()) != 0 {
		t.Fatal("the greeting reserved money")
	}

	// First answer: cost + fee + markup + the greeting cost, on carol's wallet.
	s := e.sendSSE(t, e.carol, conv, question, "c1")
	if s.Status != 200 {
		t.Fatalf("stream: %d %s", s.Status, s.Raw)
	}
	greeting := int64(testGreetingCents) * 10_000
	total1 := consumerUsage(t, s.event(t, "usage"), greeting)
	asst1 := s.event(t, "start")["assistantMessageId"].(string)
	// showSources off: the document's name, not its link.
	var cites []any
	for _, ev := range s.events {
		if ev.name == "citations" {
			cites = ev.obj2(t)
		}
	}
	if len(cites) == 0 || cites[0].(map[string]any)["documentName"] != "Syllabus" || cites[0].(map[string]any)["url"] != "" {
		t.Fatalf("consumer citations %v", cites)
	}
	// …and not the cited passages' text either; the markers stay (they are in the answer anyway).
	if c := cites[0].(map[string]any); len(c["passages"].([]any)) != 0 || len(c["markers"].([]any)) == 0 {
		t.Fatalf("consumer citation passages/markers %v", c)
	}
	holds := e.wallet.Holds()
	if len(holds) != 1 || holds[0].UID != e.carol || holds[0].Status != "captured" || holds[0].Captured != total1 ||
		holds[0].Metadata["payer_role"] != "consumer" || holds[0].Metadata["creator_uid"] != e.alice ||
		holds[0].Metadata["agent_id"] != agentA || holds[0].Metadata["agent_name"] != "Math Tutor" {
		t.Fatalf("holds %+v (total %d)", holds, total1)
	}
	// The worst case held includes markup and greeting: above the answer.
	if holds[0].Amount < total1 || holds[0].Amount < greeting+pricing.WorstCase(pricing.Default[pricing.SimModel], 1, 512) {
		t.Fatalf("held %d for a total of %d", holds[0].Amount, total1)
	}
	u1 := s.event(t, "usage")
	tr := e.wallet.Transfers()
	if len(tr) != 1 || tr[0].UID != e.carol || tr[0].Amount != total1 || tr[0].Metadata["payer_role"] != "consumer" ||
		tr[0].Metadata["creator_uid"] != e.alice || tr[0].Metadata["markup_micros"] != strconv.FormatInt(num(u1["markupMicros"]), 10) ||
		tr[0].Metadata["greeting_micros"] != strconv.FormatInt(greeting, 10) {
		t.Fatalf("transfers %+v", tr)
	}
	if bal, _ := e.wallet.Balance(e.alice); bal != 10*dollar {
		t.Fatalf("the owner paid for a consumer: balance %d", bal)
	}
	if c := e.charge(t, asst1); c.PayerUID != e.carol || c.GreetingMicros != greeting || c.ReserveMeta["payer_role"] != "consumer" {
		t.Fatalf("charge %+v", c)
	}

	// Second answer: no greeting cost.
	j := e.sendJSON(t, e.carol, conv, "When is the midterm exam?", "c2")
	if j.Status != 200 {
		t.Fatalf("second: %d %s", j.Status, j.Raw)
	}
	am := j.Obj()["assistantMessage"].(map[string]any)
	total2 := consumerUsage(t, am["usage"].(map[string]any), 0)
	if c := e.charge(t, am["id"].(string)); c.GreetingMicros != 0 {
		t.Fatalf("second charge carries the greeting: %+v", c)
	}
	if bal, _ := e.wallet.Balance(e.carol); bal != 10*dollar-total1-total2 {
		t.Fatalf("consumer balance %d, want %d", bal, 10*dollar-total1-total2)
	}

	// Stored: the greeting, then both turns with their parts.
	msgs = e.do(t, "GET", "/api/conversations/"+conv, e.carol, "").Obj()["messages"].([]any)
	if len(msgs) != 5 || msgs[0].(map[string]any)["content"] != testGreeting {
		t.Fatalf("messages %v", msgs)
	}
	consumerUsage(t, msgs[2].(map[string]any)["usage"].(map[string]any), greeting)
	consumerUsage(t, msgs[4].(map[string]any)["usage"].(map[string]any), 0)

	// The events carry the parts and the payer's role.
	evs := e.interactions(t, 2)
	if len(evs) != 2 {
		t.Fatalf("%d events", len(evs))
	}
	byID := map[string]int{}
	for i, ev := range evs {
		byID[ev.GetInteractionId()] = i
	}
	ev := evs[byID[asst1]]
	if ev.GetPayerRole() != "consumer" || ev.GetPayerUid() != e.carol || ev.GetUserUid() != e.carol || ev.GetOwnerUid() != e.alice ||
		ev.GetGreetingMicros() != greeting || ev.GetMarkupMicros() != num(u1["markupMicros"]) || ev.GetTotalMicros() != total1 ||
		ev.GetCostMicros()+ev.GetFeeMicros()+ev.GetMarkupMicros()+ev.GetGreetingMicros() != total1 {
		t.Fatalf("event %v", ev)
	}
	if ev2 := evs[byID[am["id"].(string)]]; ev2.GetGreetingMicros() != 0 || ev2.GetMarkupMicros() <= 0 {
		t.Fatalf("second event %v", ev2)
	}

	// A new conversation pays the greeting again, once.
	conv2 := e.newConversation(t, e.carol, agentA)
	if r := e.sendJSON(t, e.carol, conv2, question, "d1"); r.Status != 200 {
		t.Fatalf("new conversation: %d %s", r.Status, r.Raw)
	} else {
		consumerUsage(t, r.Obj()["assistantMessage"].(map[string]any)["usage"].(map[string]any), greeting)
	}
}

// obj2 decodes an event's data as a JSON array.
func (ev sseEvent) obj2(t *testing.T) []any {
	t.Helper()
	var a []any
	if err := json.Unmarshal([]byte(ev.data), &a); err != nil {
		t.Fatalf("event %s data %q: %v", ev.name, ev.data, err)
	}
	return a
}

// A first answer refused (the wallet is empty) does not use up the greeting:
// the conversation's first charged answer pays it. The 402 says what the
// answer needs and what the wallet has.
func TestConsumerGreetingGoesWithTheFirstChargedAnswer(t *testing.T) {
	e := start(t, options{})
	e.listAgentA(t, true)
	conv := e.newConversation(t, e.carol, agentA)

	r := e.sendJSON(t, e.carol, conv, question, "m1")
	msg, _ := r.Obj()["message"].(string)
	if r.Status != 402 || r.Obj()["error"] != "insufficient_funds" ||
		!regexp.MustCompile(`^This answer needs up to \$0\.0[3-9]; your wallet has \$0\.00\. Add funds to continue\.$`).MatchString(msg) {
		t.Fatalf("consumer 402: %d %s", r.Status, r.Raw)
	}
	if n := e.sim.Stats().Requests; n != 0 {
		t.Fatalf("the model was called %d times", n)
	}
	// Some money, still not enough: the wallet's available amount is shown.
	e.wallet.SetBalance(e.carol, 12_345)
	r = e.sendJSON(t, e.carol, conv, question, "m1")
	if msg, _ := r.Obj()["message"].(string); r.Status != 402 ||
		!regexp.MustCompile(`^This answer needs up to \$0\.0[3-9]; your wallet has \$0\.01\. Add funds to continue\.$`).MatchString(msg) {
		t.Fatalf("consumer 402 with 1¢: %d %s", r.Status, r.Raw)
	}

	e.wallet.SetBalance(e.carol, 10*dollar)
	greeting := int64(testGreetingCents) * 10_000
	r = e.sendJSON(t, e.carol, conv, question, "m1")
	if r.Status != 200 {
		t.Fatalf("after funding: %d %s", r.Status, r.Raw)
	}
	consumerUsage(t, r.Obj()["assistantMessage"].(map[string]any)["usage"].(map[string]any), greeting)
	// A retry of the same message is the same answer, charged once.
	if r2 := e.sendJSON(t, e.carol, conv, question, "m1"); r2.Status != 200 || len(e.wallet.Transfers()) != 1 {
		t.Fatalf("replay: %d, %d transfers", r2.Status, len(e.wallet.Transfers()))
	}
	r = e.sendJSON(t, e.carol, conv, "And the midterm?", "m2")
	if r.Status != 200 {
		t.Fatalf("second: %d %s", r.Status, r.Raw)
	}
	consumerUsage(t, r.Obj()["assistantMessage"].(map[string]any)["usage"].(map[string]any), 0)
}

// Two first messages sent at once: exactly one of them carries the greeting.
func TestConsumerGreetingOnceUnderConcurrentFirstMessages(t *testing.T) {
	e := start(t, options{})
	e.listAgentA(t, true)
	e.wallet.SetBalance(e.carol, 10*dollar)
	conv := e.newConversation(t, e.carol, agentA)
	const n = 4
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		greeted int64
		ok      int
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.sendJSON(t, e.carol, conv, fmt.Sprintf("%s (%d)", question, i), fmt.Sprintf("k%d", i))
			if r.Status != 200 {
				t.Errorf("send %d: %d %s", i, r.Status, r.Raw)
				return
			}
			u := r.Obj()["assistantMessage"].(map[string]any)["usage"].(map[string]any)
			mu.Lock()
			defer mu.Unlock()
			greeted += num(u["greetingMicros"])
			ok++
		}()
	}
	wg.Wait()
	if ok != n || greeted != int64(testGreetingCents)*10_000 {
		t.Fatalf("%d answers carried %d µ$ of greeting, want one greeting", ok, greeted)
	}
}

// The owner of a listed agent pays cost + fee (no markup, no greeting) and
// sees the sources; an active subscriber's answers are the owner's, as
// before, without markup.
func TestOwnerAndSubscriberOfAListedAgentPayAsBefore(t *testing.T) {
	e := start(t, options{})
	e.listAgentA(t, true)

	conv := e.newConversation(t, e.alice, agentA)
	// Every role's new conversation opens with the greeting.
	if msgs := e.do(t, "GET", "/api/conversations/"+conv, e.alice, "").Obj()["messages"].([]any); len(msgs) != 1 ||
		msgs[0].(map[string]any)["content"] != testGreeting {
		t.Fatalf("owner's conversation %v", msgs)
	}
	s := e.sendSSE(t, e.alice, conv, question, "o1")
	if s.Status != 200 {
		t.Fatalf("owner: %d %s", s.Status, s.Raw)
	}
	u := s.event(t, "usage")
	_, _, total := checkUsage(t, u)
	if num(u["markupMicros"]) != 0 || num(u["greetingMicros"]) != 0 {
		t.Fatalf("owner usage %v", u)
	}
	var cites []any
	for _, ev := range s.events {
		if ev.name == "citations" {
			cites = ev.obj2(t)
		}
	}
	if len(cites) == 0 || cites[0].(map[string]any)["url"] == "" {
		t.Fatalf("owner citations %v", cites)
	}
	h := e.wallet.Holds()
	if len(h) != 1 || h[0].UID != e.alice || h[0].Metadata["payer_role"] != "" || h[0].Metadata["creator_uid"] != "" ||
		h[0].Captured != total {
		t.Fatalf("owner holds %+v", h)
	}

	bconv := e.newConversation(t, e.bob, agentA)
	r := e.sendJSON(t, e.bob, bconv, question, "b1")
	if r.Status != 200 {
		t.Fatalf("subscriber: %d %s", r.Status, r.Raw)
	}
	am := r.Obj()["assistantMessage"].(map[string]any)
	_, _, btotal := checkUsage(t, am["usage"].(map[string]any))
	if bal, _ := e.wallet.Balance(e.alice); bal != 10*dollar-total-btotal {
		t.Fatalf("owner balance %d", bal)
	}
	if bal, _ := e.wallet.Balance(e.bob); bal != 10*dollar {
		t.Fatalf("subscriber charged: %d", bal)
	}
	evs := e.interactions(t, 2)
	roles := map[string]bool{}
	for _, ev := range evs {
		roles[ev.GetPayerRole()] = true
		if ev.GetMarkupMicros() != 0 || ev.GetGreetingMicros() != 0 {
			t.Fatalf("event %v", ev)
		}
	}
	if !roles["owner"] || !roles["subscriber"] {
		t.Fatalf("payer roles %v", roles)
	}
}

// The wallet's agent_unavailable (a listed agent whose creator cannot pay
// its fee) is 403 agent_unavailable; nothing is charged and the greeting
// stays for the first charged answer. Unlisted, the agent's conversations
// stay readable but answer no more (404 not_found, as for any agent
// the caller may not use).
func TestConsumerRefusedWhenAgentUnavailableOrUnlisted(t *testing.T) {
	e := start(t, options{})
	e.listAgentA(t, true)
	e.wallet.SetBalance(e.carol, 10*dollar)
	conv := e.newConversation(t, e.carol, agentA)

	e.wallet.Refuse(e.carol, "agent_unavailable")
	r := e.sendJSON(t, e.carol, conv, question, "u1")
	if r.Status != 403 || r.Obj()["error"] != "agent_unavailable" || r.Obj()["message"] != "This agent is unavailable right now." {
		t.Fatalf("agent_unavailable: %d %s", r.Status, r.Raw)
	}
	if s := e.sendSSE(t, e.carol, conv, question, "u1"); s.Status != 403 || len(s.events) != 0 {
		t.Fatalf("stream: %d %s", s.Status, s.Raw)
	}
	if len(e.wallet.Holds()) != 0 || e.sim.Stats().Requests != 0 {
		t.Fatalf("holds %v, %d model calls", e.wallet.Holds(), e.sim.Stats().Requests)
	}
	e.wallet.Refuse(e.carol, "")
	r = e.sendJSON(t, e.carol, conv, question, "u1")
	if r.Status != 200 {
		t.Fatalf("available again: %d %s", r.Status, r.Raw)
	}
	consumerUsage(t, r.Obj()["assistantMessage"].(map[string]any)["usage"].(map[string]any), int64(testGreetingCents)*10_000)

	// Unpublished: readable, not answered, not listed, no new conversation.
	e.listAgentA(t, false)
	if g := e.do(t, "GET", "/api/conversations/"+conv, e.carol, ""); g.Status != 200 || len(g.Obj()["messages"].([]any)) != 3 {
		t.Fatalf("read after unpublish: %d %s", g.Status, g.Raw)
	}
	if r := e.sendJSON(t, e.carol, conv, "Still there?", "u2"); r.Status != 404 || r.Obj()["error"] != "not_found" {
		t.Fatalf("send after unpublish: %d %s", r.Status, r.Raw)
	}
	if r := e.do(t, "POST", "/api/agents/"+agentA+"/conversations", e.carol, ""); r.Status != 404 {
		t.Fatalf("create after unpublish: %d %s", r.Status, r.Raw)
	}
	if r := e.do(t, "GET", "/api/agents/"+agentA+"/conversations", e.carol, ""); r.Status != 404 {
		t.Fatalf("list after unpublish: %d %s", r.Status, r.Raw)
	}
	if len(e.wallet.Transfers()) != 1 {
		t.Fatalf("transfers %v", e.wallet.Transfers())
	}
}

// The store's greeting rule on its own: a released charge gives the
// greeting up; an open or captured one keeps it.
func TestBeginTurnGivesTheGreetingToOneChargeAtATime(t *testing.T) {
	e := start(t, options{})
	e.listAgentA(t, true)
	conv := e.newConversation(t, e.carol, agentA)
	ctx := context.Background()
	begin := func(id string) (conversations.Turn, conversations.Charge) {
		t.Helper()
		now := e.clock.Now().UTC()
		user := conversations.Message{ID: uuid.Must(uuid.NewV7()).String(), ConversationID: conv, Role: conversations.RoleUser, Content: "hi",
			Status: conversations.StatusComplete, ClientMessageID: id, CreatedAt: now, UpdatedAt: now}
		asst := conversations.Message{ID: uuid.Must(uuid.NewV7()).String(), ConversationID: conv, Role: conversations.RoleAssistant,
			Status: conversations.StatusPending, ReplyTo: user.ID, CreatedAt: now, UpdatedAt: now}
		c := conversations.Charge{MessageID: asst.ID, ConversationID: conv, AgentID: agentA, UserUID: e.carol, PayerUID: e.carol,
			Channel: "chat", Key: "msg:" + asst.ID, ReserveMicros: 1000 + 20_000, GreetingMicros: 20_000,
			State: conversations.ChargeReserving, LeaseUntil: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now}
		turn, created, err := e.store.BeginTurn(ctx, user, asst, c)
		if err != nil || !created {
			t.Fatalf("begin %s: %v %v", id, created, err)
		}
		return turn, e.charge(t, asst.ID)
	}
	t1, c1 := begin("g1")
	if t1.GreetingMicros != 20_000 || c1.GreetingMicros != 20_000 || c1.ReserveMicros != 21_000 {
		t.Fatalf("first turn %d, charge %+v", t1.GreetingMicros, c1)
	}
	t2, c2 := begin("g2") // the first is open: not this one
	if t2.GreetingMicros != 0 || c2.GreetingMicros != 0 || c2.ReserveMicros != 1000 {
		t.Fatalf("second turn %d, charge %+v", t2.GreetingMicros, c2)
	}
	// The first is refused (released): the next turn carries it.
	if _, err := e.store.UpdateCharge(ctx, c1.MessageID, []string{conversations.ChargeReserving},
		conversations.ChargeUpdate{State: conversations.ChargeReleased}, conversations.DropTurn); err != nil {
		t.Fatal(err)
	}
	if t3, _ := begin("g3"); t3.GreetingMicros != 20_000 {
		t.Fatalf("third turn after the first was released: %d", t3.GreetingMicros)
	}
	if t4, _ := begin("g4"); t4.GreetingMicros != 0 {
		t.Fatalf("fourth turn: %d", t4.GreetingMicros)
	}
}
