package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	conversationsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/conversations/v1"
	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
)

// capEvents reads the SubscriberCapReached events enqueued in the outbox,
// oldest first.
func capEvents(t *testing.T, pool *pgxpool.Pool) []*eventsv1.SubscriberCapReached {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT payload::text FROM outbox WHERE type = $1 ORDER BY id`,
		conversations.TypeSubscriberCapReached)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []*eventsv1.SubscriberCapReached
	for rows.Next() {
		var payload string
		if err := rows.Scan(&payload); err != nil {
			t.Fatal(err)
		}
		var m eventsv1.SubscriberCapReached
		if err := protojson.Unmarshal([]byte(payload), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, &m)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func (e *env) pool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), e.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// subscriberSpend is what uid's answers of agent cost their payer in the
// month of at.
func subscriberSpend(t *testing.T, pool *pgxpool.Pool, agent, uid string, at time.Time) int64 {
	t.Helper()
	var spent int64
	err := pool.QueryRow(context.Background(), `SELECT COALESCE((SELECT spent_micros FROM subscriber_spend
		WHERE agent_id = $1 AND user_uid = $2 AND month = $3), 0)`, agent, uid, conversations.MonthStart(at)).Scan(&spent)
	if err != nil {
		t.Fatal(err)
	}
	return spent
}

// The owner's monthly cap for a subscriber: answers that fit are answered
// and counted; the one that does not is refused on every channel with 403
// agent_unavailable and "This agent is unavailable right now." (the
// e-mail/Docs channels: FAILED_PRECONDITION "agent_unavailable") before the
// wallet or the model is asked; the owner is notified once a month however
// many refusals follow; the owner's own turns and next month are not
// affected; raising the cap lets the subscriber in again.
func TestSubscriberCapRefusesOverTheCap(t *testing.T) {
	e := start(t, options{})
	pool := e.pool(t)

	// No cap yet: answered, and what it cost the owner is counted.
	r := e.sendJSON(t, e.bob, e.newConversation(t, e.bob, agentA), question, "b1")
	if r.Status != 200 {
		t.Fatalf("uncapped: %d %s", r.Status, r.Raw)
	}
	_, _, first := checkUsage(t, r.Obj()["assistantMessage"].(map[string]any)["usage"].(map[string]any))
	holds := e.wallet.Holds()
	if len(holds) != 1 {
		t.Fatalf("holds %v", holds)
	}
	worst := holds[0].Amount // a new conversation with the same question reserves the same
	if got := subscriberSpend(t, pool, agentA, e.bob, e.clock.Now()); got != first {
		t.Fatalf("subscriber spend %d, want %d", got, first)
	}

	// A cap with room for exactly one more worst case: answered.
	capMicros := first + worst
	e.catalog.SetSubscriberCap(agentA, e.bob, capMicros)
	r = e.sendJSON(t, e.bob, e.newConversation(t, e.bob, agentA), question, "b2")
	if r.Status != 200 {
		t.Fatalf("under the cap: %d %s", r.Status, r.Raw)
	}
	_, _, second := checkUsage(t, r.Obj()["assistantMessage"].(map[string]any)["usage"].(map[string]any))
	if got := subscriberSpend(t, pool, agentA, e.bob, e.clock.Now()); got != first+second {
		t.Fatalf("subscriber spend %d, want %d", got, first+second)
	}

	// Over the cap: refused before the wallet and the model, nothing kept.
	reserves, transfers, calls := e.wallet.Calls("Reserve"), len(e.wallet.Transfers()), e.sim.Stats().Requests
	conv := e.newConversation(t, e.bob, agentA)
	r = e.sendJSON(t, e.bob, conv, question, "b3")
	if r.Status != http.StatusForbidden || r.Obj()["error"] != "agent_unavailable" || r.Obj()["message"] != "This agent is unavailable right now." {
		t.Fatalf("over the cap: %d %s", r.Status, r.Raw)
	}
	if s := e.sendSSE(t, e.bob, conv, question, "b4"); s.Status != http.StatusForbidden || len(s.events) != 0 {
		t.Fatalf("over the cap, streamed: %d %v %s", s.Status, s.names(), s.Raw)
	}
	conn, err := grpc.NewClient(e.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = conversationsv1.NewConversationsServiceClient(conn).Answer(context.Background(), &conversationsv1.AnswerRequest{
		AgentId: agentA, UserUid: e.bob, Channel: "email", ThreadKey: "<cap@mail.example.com>", Title: "Cap",
		Content: question, IdempotencyKey: "<cap-1@mail.example.com>"})
	if status.Code(err) != codes.FailedPrecondition || status.Convert(err).Message() != "agent_unavailable" {
		t.Fatalf("over the cap, e-mail: %v", err)
	}
	if e.wallet.Calls("Reserve") != reserves || len(e.wallet.Transfers()) != transfers || e.sim.Stats().Requests != calls {
		t.Fatalf("refused turns reached the wallet or the model: reserves %d→%d, transfers %d→%d, model %d→%d",
			reserves, e.wallet.Calls("Reserve"), transfers, len(e.wallet.Transfers()), calls, e.sim.Stats().Requests)
	}
	if g := e.do(t, "GET", "/api/conversations/"+conv, e.bob, ""); g.Status != 200 || len(g.Obj()["messages"].([]any)) != 0 {
		t.Fatalf("refused turn kept: %d %s", g.Status, g.Raw)
	}

	// One notice for the month, with the cap and what was spent.
	evs := capEvents(t, pool)
	if len(evs) != 1 {
		t.Fatalf("%d SubscriberCapReached events after three refusals, want 1", len(evs))
	}
	ev := evs[0]
	if ev.GetAgentId() != agentA || ev.GetOwnerUid() != e.alice || ev.GetAgentName() != "Math Tutor" || ev.GetSubscriberUid() != e.bob ||
		ev.GetCapMicros() != capMicros || ev.GetSpentMicros() != first+second || ev.GetPeriod() != e.clock.Now().UTC().Format("2006-01") {
		t.Fatalf("event %v", ev)
	}
	// Published on the usage topic, keyed by the agent.
	var published int
	for _, rec := range eventstest.Consume(t, e.brokers, conversations.Topic, 3, 10*time.Second, 300*time.Millisecond) {
		if rec.Headers["ce_type"] == conversations.TypeSubscriberCapReached {
			published++
			if rec.Key != agentA || rec.Headers["ce_source"] != conversations.Source {
				t.Fatalf("published key %q headers %v", rec.Key, rec.Headers)
			}
		}
	}
	if published != 1 {
		t.Fatalf("%d SubscriberCapReached published, want 1", published)
	}

	// The owner's own turns have no cap.
	if r := e.sendJSON(t, e.alice, e.newConversation(t, e.alice, agentA), question, "a1"); r.Status != 200 {
		t.Fatalf("owner: %d %s", r.Status, r.Raw)
	}
	// A higher cap lets the subscriber in again.
	e.catalog.SetSubscriberCap(agentA, e.bob, capMicros+worst)
	if r := e.sendJSON(t, e.bob, conv, question, "b5"); r.Status != 200 {
		t.Fatalf("after raising the cap: %d %s", r.Status, r.Raw)
	}
	// Next month starts from nothing, and may notify again.
	e.catalog.SetSubscriberCap(agentA, e.bob, worst)
	e.clock.advance(32 * 24 * time.Hour)
	if r := e.sendJSON(t, e.bob, e.newConversation(t, e.bob, agentA), question, "n1"); r.Status != 200 {
		t.Fatalf("next month: %d %s", r.Status, r.Raw)
	}
	if r := e.sendJSON(t, e.bob, e.newConversation(t, e.bob, agentA), question, "n2"); r.Status != http.StatusForbidden {
		t.Fatalf("next month over the cap: %d %s", r.Status, r.Raw)
	}
	if evs := capEvents(t, pool); len(evs) != 2 || evs[1].GetPeriod() != e.clock.Now().UTC().Format("2006-01") {
		t.Fatalf("next month's notice: %v", evs)
	}
}

// Concurrent turns of one capped subscriber are checked one after the other
// (BeginTurn against PostgreSQL): they cannot pass the cap together, and
// the refusals record one notice.
func TestSubscriberCapHoldsUnderConcurrentTurns(t *testing.T) {
	e := start(t, options{})
	pool := e.pool(t)
	ctx := context.Background()
	const n, reserve, capMicros = 6, 400, 1000 // two fit
	convs := make([]string, n)
	for i := range convs {
		convs[i] = e.newConversation(t, e.bob, agentA)
	}
	var (
		wg               sync.WaitGroup
		mu               sync.Mutex
		created, refused int
		others           []error
	)
	start := make(chan struct{})
	for i, conv := range convs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			now := time.Now().UTC().Truncate(time.Microsecond)
			user := conversations.Message{ID: uuid.NewString(), ConversationID: conv, Role: conversations.RoleUser,
				Content: question, Status: conversations.StatusComplete, ClientMessageID: fmt.Sprint("c", i), CreatedAt: now, UpdatedAt: now}
			asst := conversations.Message{ID: uuid.NewString(), ConversationID: conv, Role: conversations.RoleAssistant,
				Status: conversations.StatusPending, ReplyTo: user.ID, CreatedAt: now, UpdatedAt: now}
			c := conversations.Charge{MessageID: asst.ID, ConversationID: conv, AgentID: agentA, UserUID: e.bob, PayerUID: e.alice,
				Channel: "chat", Key: "msg:" + asst.ID, ReserveMicros: reserve, State: conversations.ChargeReserving,
				LeaseUntil: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now,
				SubscriberCap: &conversations.SubscriberCap{CapMicros: capMicros, OwnerUID: e.alice, AgentName: "Math Tutor"}}
			<-start
			_, ok, err := e.store.BeginTurn(ctx, user, asst, c)
			var sc *conversations.SubscriberCapError
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && ok:
				created++
			case errors.As(err, &sc):
				refused++
			default:
				others = append(others, fmt.Errorf("turn %d: created %v, %v", i, ok, err))
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(others) > 0 || created != 2 || refused != n-2 {
		t.Fatalf("%d created, %d refused, other outcomes %v; want 2 and %d", created, refused, others, n-2)
	}
	var open int64
	if err := pool.QueryRow(ctx, `SELECT COALESCE(SUM(reserve_micros), 0) FROM charges WHERE user_uid = $1`, e.bob).Scan(&open); err != nil || open > capMicros {
		t.Fatalf("open reservations %d over the cap %d (%v)", open, capMicros, err)
	}
	if evs := capEvents(t, pool); len(evs) != 1 || evs[0].GetSpentMicros() != 2*reserve || evs[0].GetCapMicros() != capMicros {
		t.Fatalf("notices %v, want one with spent %d", evs, 2*reserve)
	}
	// An owner's charge is not the subscriber's: no cap applies to it
	// (Answer sets none) and it does not count against theirs.
	var used int64
	if err := pool.QueryRow(ctx, `SELECT COUNT(*) FROM subscriber_cap_notices WHERE user_uid = $1`, e.alice).Scan(&used); err != nil || used != 0 {
		t.Fatalf("owner notices %d %v", used, err)
	}
}
