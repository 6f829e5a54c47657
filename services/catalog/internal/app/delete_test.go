package app

import (
	"context"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
	"github.com/agentic-app/agentic/services/platform/events/topics"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

// publishIdentity writes one of identity's events (ce_type typ) like
// identity's relay does.
func publishIdentity(t *testing.T, brokers []string, eventID, typ, key string, ev proto.Message) {
	t.Helper()
	payload, err := protojson.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Topic: topics.Identity, Balancer: &kafka.Murmur2Balancer{},
		AllowAutoTopicCreation: true, BatchTimeout: 5 * time.Millisecond, RequiredAcks: kafka.RequireAll}
	defer w.Close()
	msg := kafka.Message{Key: []byte(key), Value: payload, Headers: []kafka.Header{
		{Key: "ce_specversion", Value: []byte("1.0")},
		{Key: "ce_id", Value: []byte(eventID)},
		{Key: "ce_type", Value: []byte(typ)},
		{Key: "ce_source", Value: []byte("/agentic/identity")},
		{Key: "ce_subject", Value: []byte(key)},
		{Key: "ce_time", Value: []byte(time.Now().UTC().Format(time.RFC3339Nano))},
		{Key: "content-type", Value: []byte("application/json")},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for attempt := 0; ; attempt++ {
		err := w.WriteMessages(ctx, msg)
		if err == nil {
			return
		}
		if attempt > 50 {
			t.Fatalf("publish: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (l listingApp) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := l.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// Issue 29 item 9: DELETE /api/agents/{id}.
func TestDeleteAgent(t *testing.T) {
	l := startListing(t, nil)
	cl := catalogClient(t, l.grpc)
	ctx := context.Background()

	a := l.publishNew(t, "alice", validAgent)
	id, email, slug := a["id"].(string), a["email"].(string), a["slug"].(string)
	keep := createAgent(t, l.http, "token-alice", validAgent)["id"].(string)
	inviteActive(t, l.http, id, "erin", "erin@example.org")
	l.exec(t, `INSERT INTO agent_users (agent_id, uid, answers, first_answer_at, last_answer_at) VALUES ($1, 'zed', 1, now(), now())`, id)
	if r := do(t, "PUT", l.http+"/api/marketplace/agents/"+slug+"/review", "token-zed", `{"rating":4,"text":"Fine"}`); r.Status != 200 && r.Status != 201 {
		t.Fatalf("review: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "POST", l.http+"/api/marketplace/agents/"+slug+"/report", "token-zed", `{"reason":"spam"}`); r.Status >= 300 {
		t.Fatalf("report: %d %s", r.Status, r.Raw)
	}
	before, err := cl.AccessChangesSince(ctx, &catalogv1.AccessChangesSinceRequest{})
	if err != nil {
		t.Fatal(err)
	}

	// Anyone but the owner, an unknown id, a malformed id: 404 not_found.
	for _, c := range []struct{ token, id string }{
		{"token-erin", id}, {"token-zed", id}, {"token-alice", "01900000-0000-7000-8000-000000000000"}, {"token-alice", "nope"},
	} {
		if r := do(t, "DELETE", l.http+"/api/agents/"+c.id, c.token, ""); r.Status != 404 || r.Obj()["error"] != "not_found" {
			t.Fatalf("DELETE %s as %s: %d %s", c.id, c.token, r.Status, r.Raw)
		}
	}
	if r := do(t, "DELETE", l.http+"/api/agents/"+id, "", ""); r.Status != 401 {
		t.Fatalf("unauthenticated: %d %s", r.Status, r.Raw)
	}
	// The owner: 204, then 404 (already gone).
	if r := do(t, "DELETE", l.http+"/api/agents/"+id, "token-alice", ""); r.Status != 204 {
		t.Fatalf("owner: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "DELETE", l.http+"/api/agents/"+id, "token-alice", ""); r.Status != 404 {
		t.Fatalf("again: %d %s", r.Status, r.Raw)
	}

	// Gone everywhere.
	if r := do(t, "GET", l.http+"/api/agents/"+id, "token-alice", ""); r.Status != 404 {
		t.Errorf("GET: %d", r.Status)
	}
	if r := do(t, "GET", l.http+"/api/agents", "token-alice", ""); len(r.List()) != 1 || r.List()[0].(map[string]any)["id"] != keep {
		t.Errorf("owner's list: %s", r.Raw)
	}
	if r := do(t, "GET", l.http+"/api/agents/shared", "token-erin", ""); r.Status != 200 || len(r.List()) != 0 {
		t.Errorf("Shared with me: %s", r.Raw)
	}
	if r := do(t, "GET", l.http+"/api/marketplace/agents/"+slug, "token-zed", ""); r.Status != 404 {
		t.Errorf("marketplace profile: %d", r.Status)
	}
	if items := listItems(t, do(t, "GET", l.http+"/api/marketplace/agents", "", "")); len(items) != 0 {
		t.Errorf("marketplace list: %v", items)
	}
	if _, err := cl.GetAgent(ctx, &catalogv1.GetAgentRequest{AgentId: id}); err == nil {
		t.Error("GetAgent of a deleted agent succeeded")
	}
	if _, err := cl.FindAgentByEmail(ctx, &catalogv1.FindAgentByEmailRequest{Email: email}); err == nil {
		t.Error("FindAgentByEmail of a deleted agent's address succeeded")
	}
	for _, uid := range []string{"alice", "erin", "zed"} {
		if res, err := cl.CheckAccess(ctx, &catalogv1.CheckAccessRequest{AgentId: id, Uid: uid}); err != nil || res.GetAllowed() {
			t.Errorf("CheckAccess %s: %v %v", uid, res, err)
		}
	}
	if res, err := cl.CheckOwnership(ctx, &catalogv1.CheckOwnershipRequest{AgentId: id, Uid: "alice"}); err != nil || res.GetExists() {
		t.Errorf("CheckOwnership: %v %v", res, err)
	}
	// Its subscribers, reviews, reports go; its address stays issued.
	for table, n := range map[string]int{
		"subscribers": l.count(t, `SELECT count(*) FROM subscribers WHERE agent_id = $1`, id),
		"reviews":     l.count(t, `SELECT count(*) FROM reviews WHERE agent_id = $1`, id),
		"reports":     l.count(t, `SELECT count(*) FROM reports WHERE agent_id = $1`, id),
		"agent_users": l.count(t, `SELECT count(*) FROM agent_users WHERE agent_id = $1`, id),
	} {
		if n != 0 {
			t.Errorf("%d %s left", n, table)
		}
	}
	if n := l.count(t, `SELECT count(*) FROM agent_emails WHERE email = $1`, email); n != 1 {
		t.Errorf("address no longer reserved")
	}
	// Its slug too: a new agent of the same name is listed under another
	// one, so links to the deleted agent never lead to it.
	again := l.publishNew(t, "alice", validAgent)
	if again["slug"] == slug || again["slug"] != slug+"-2" {
		t.Errorf("a new agent of the same name got slug %v (the deleted one had %s)", again["slug"], slug)
	}
	if r := do(t, "GET", l.http+"/api/marketplace/agents/"+slug, "", ""); r.Status != 404 {
		t.Errorf("the deleted agent's profile link: %d", r.Status)
	}
	l.exec(t, `UPDATE agents SET is_public = false WHERE id = $1`, again["id"])
	// Every user's cached access is stale.
	res, err := cl.AccessChangesSince(ctx, &catalogv1.AccessChangesSinceRequest{Since: before.GetNow()})
	if err != nil {
		t.Fatal(err)
	}
	everyone := false
	for _, c := range changesOf(res) {
		everyone = everyone || c == change{id, ""}
	}
	if !everyone {
		t.Errorf("no access change of everyone: %v", changesOf(res))
	}

	// AgentDeleted, once, after the agent's other events.
	recs := eventstest.Consume(t, l.brokers, agents.Topic, 1, 30*time.Second, time.Second)
	var deleted []eventstest.Record
	for _, rec := range recs {
		if rec.Headers["ce_type"] == agents.TypeAgentDeleted {
			deleted = append(deleted, rec)
		}
	}
	if len(deleted) != 1 {
		t.Fatalf("%d AgentDeleted events, want 1", len(deleted))
	}
	var ev eventsv1.AgentDeleted
	if err := protojson.Unmarshal(deleted[0].Value, &ev); err != nil {
		t.Fatal(err)
	}
	if deleted[0].Key != id || ev.GetAgentId() != id || ev.GetOwnerUid() != "alice" || ev.GetEmail() != email ||
		!ev.GetWasPublic() || ev.GetSlug() != slug || ev.GetName() == "" || ev.GetOccurredAt() == nil {
		t.Errorf("AgentDeleted = %v (key %s)", &ev, deleted[0].Key)
	}
}

// Issue 29 item 10: identity's user.deleted deletes the user's agents (each
// with AgentDeleted), their subscriptions to and reviews of others' agents.
func TestUserDeletedDeletesTheirAgentsAndSubscriptions(t *testing.T) {
	l := startListing(t, nil)
	cl := catalogClient(t, l.grpc)
	ctx := context.Background()

	mine1 := createAgent(t, l.http, "token-bob", validAgent)["id"].(string)
	mine2 := createAgent(t, l.http, "token-bob", validAgent)["id"].(string)
	other := l.publishNew(t, "alice", validAgent)
	otherID, slug := other["id"].(string), other["slug"].(string)
	inviteActive(t, l.http, otherID, "bob", "bob@example.org")
	// A pending invitation of bob's address to a second agent of alice.
	pending := createAgent(t, l.http, "token-alice", validAgent)["id"].(string)
	if r := do(t, "POST", l.http+"/api/agents/"+pending+"/subscribers", "token-alice", `{"email":"bob@example.org"}`); r.Status != 201 {
		t.Fatalf("invite: %d %s", r.Status, r.Raw)
	}
	l.exec(t, `INSERT INTO agent_users (agent_id, uid, answers, first_answer_at, last_answer_at) VALUES ($1, 'bob', 1, now(), now())`, otherID)
	if r := do(t, "PUT", l.http+"/api/marketplace/agents/"+slug+"/review", "token-bob", `{"rating":2,"text":"Meh"}`); r.Status >= 300 {
		t.Fatalf("review: %d %s", r.Status, r.Raw)
	}
	// A review by someone else stays, with the rating corrected.
	l.exec(t, `INSERT INTO agent_users (agent_id, uid, answers, first_answer_at, last_answer_at) VALUES ($1, 'zed', 1, now(), now())`, otherID)
	if r := do(t, "PUT", l.http+"/api/marketplace/agents/"+slug+"/review", "token-zed", `{"rating":5,"text":"Great"}`); r.Status >= 300 {
		t.Fatalf("review: %d %s", r.Status, r.Raw)
	}

	del := &eventsv1.UserDeleted{Uid: "bob", Email: "Bob@Example.org", OccurredAt: timestamppb.Now()}
	publishIdentity(t, l.brokers, "evt-bob-deleted", topics.IdentityUserDeleted, "bob", del)
	publishIdentity(t, l.brokers, "evt-bob-deleted", topics.IdentityUserDeleted, "bob", del) // re-delivery
	testwait.Until(t, "bob's agents deleted", func() bool {
		return l.count(t, `SELECT count(*) FROM agents WHERE owner_uid = 'bob'`) == 0
	}, waitOpts...)
	testwait.Until(t, "bob's subscriptions deleted", func() bool {
		return l.count(t, `SELECT count(*) FROM subscribers WHERE uid = 'bob' OR email = 'bob@example.org'`) == 0
	}, waitOpts...)
	if n := l.count(t, `SELECT count(*) FROM reviews WHERE author_uid = 'bob'`); n != 0 {
		t.Errorf("%d reviews of bob left", n)
	}
	// The rating read model follows the deleted review's review.changed event.
	var ratingCount, ratingSum, subs int
	testwait.Until(t, "alice's agent's rating without bob's review", func() bool {
		if err := l.pool.QueryRow(ctx, `SELECT rating_count, rating_sum, subscribers FROM agents WHERE id = $1`, otherID).
			Scan(&ratingCount, &ratingSum, &subs); err != nil {
			t.Fatal(err)
		}
		return ratingCount == 1 && ratingSum == 5
	}, waitOpts...)
	if subs != 0 {
		t.Errorf("alice's agent: %d subscribers", subs)
	}
	if res, err := cl.CheckAccess(ctx, &catalogv1.CheckAccessRequest{AgentId: otherID, Uid: "bob"}); err != nil || res.GetRole() == "subscriber" {
		t.Errorf("bob still a subscriber: %v %v", res, err)
	}
	// Alice's agents are untouched.
	if r := do(t, "GET", l.http+"/api/agents", "token-alice", ""); len(r.List()) != 2 {
		t.Errorf("alice's agents: %s", r.Raw)
	}

	// One AgentDeleted per agent of bob's, SubscriberRemoved for each of
	// his subscriptions, nothing twice.
	recs := eventstest.Consume(t, l.brokers, agents.Topic, 1, 30*time.Second, 2*time.Second)
	deleted := map[string]int{}
	removed := 0
	for _, rec := range recs {
		switch rec.Headers["ce_type"] {
		case agents.TypeAgentDeleted:
			deleted[rec.Key]++
		case agents.TypeSubscriberRemoved:
			removed++
		}
	}
	if len(deleted) != 2 || deleted[mine1] != 1 || deleted[mine2] != 1 {
		t.Errorf("AgentDeleted events %v, want one each of %s %s", deleted, mine1, mine2)
	}
	if removed != 2 {
		t.Errorf("%d SubscriberRemoved events, want 2", removed)
	}
}
