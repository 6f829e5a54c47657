package app

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/platform/events/topics"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

// publishCatalog writes a catalog event as its outbox relay would.
func publishCatalog(t *testing.T, brokers []string, id, typ, agent string, ev *eventsv1.AgentDeleted) {
	t.Helper()
	publishEvent(t, brokers, topics.Catalog, "/agentic/catalog", id, typ, agent, ev)
}

// publishEvent writes an event as an outbox relay would.
func publishEvent(t *testing.T, brokers []string, topic, source, id, typ, key string, ev proto.Message) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	value, err := protojson.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	rec := &kgo.Record{Topic: topic, Key: []byte(key), Value: value, Headers: []kgo.RecordHeader{
		{Key: "ce_specversion", Value: []byte("1.0")}, {Key: "ce_id", Value: []byte(id)}, {Key: "ce_type", Value: []byte(typ)},
		{Key: "ce_source", Value: []byte(source)}, {Key: "content-type", Value: []byte("application/json")},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// Issue 29: the catalog's agent.deleted deletes the agent's conversations
// (every user's), messages and API keys; a key of the deleted agent that a
// replica has cached is refused within the revocation watcher's poll; other
// agents' data is untouched; a re-delivery is harmless.
func TestAgentDeletedDeletesConversationsAndKeys(t *testing.T) {
	e := start(t, options{})
	key := e.newKey(t, e.alice, agentA, `{"name":"gone"}`)["key"].(string)
	other := e.newKey(t, e.dave, agentB, `{"name":"kept"}`)["key"].(string)
	models := e.base + "/api/v1/models"
	if r := raw(t, "GET", models, "Bearer "+key, ""); r.Status != http.StatusOK { // now cached
		t.Fatalf("before: %d %s", r.Status, r.Raw)
	}
	aliceConv := e.newConversation(t, e.alice, agentA)
	if r := e.sendJSON(t, e.alice, aliceConv, "Hello?", "c1"); r.Status != http.StatusOK {
		t.Fatalf("message: %d %s", r.Status, r.Raw)
	}
	bobConv := e.newConversation(t, e.bob, agentA)
	daveConv := e.newConversation(t, e.dave, agentB)

	pool, err := pgxpool.New(context.Background(), e.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	if n := count(`SELECT count(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.agent_id = $1`, agentA); n == 0 {
		t.Fatal("no messages to delete")
	}

	ev := &eventsv1.AgentDeleted{AgentId: agentA, OwnerUid: e.alice, Name: "Math Tutor"}
	publishCatalog(t, e.brokers, "del-1", topics.CatalogAgentDeleted, agentA, ev)
	publishCatalog(t, e.brokers, "del-1", topics.CatalogAgentDeleted, agentA, ev) // re-delivery
	publishCatalog(t, e.brokers, "del-2", topics.CatalogAgentDeleted, agentA, ev) // the same deletion again
	testwait.Until(t, "the deleted agent's conversations to go", func() bool {
		return count(`SELECT count(*) FROM conversations WHERE agent_id = $1`, agentA) == 0
	})
	testwait.Until(t, "every event consumed", func() bool {
		return count(`SELECT count(*) FROM processed_events WHERE consumer_group = $1`, conversations.CatalogConsumerGroup) >= 2
	})
	// The cached key is refused (the watcher polls every 250 ms).
	testwait.Until(t, "the deleted agent's key to be refused", func() bool {
		return raw(t, "GET", models, "Bearer "+key, "").Status == http.StatusUnauthorized
	})
	for what, n := range map[string]int{
		"messages": count(`SELECT count(*) FROM messages WHERE conversation_id = ANY($1::uuid[])`, []string{aliceConv, bobConv}),
		"api keys": count(`SELECT count(*) FROM api_keys WHERE agent_id = $1`, agentA),
	} {
		if n != 0 {
			t.Errorf("%d %s of the deleted agent left", n, what)
		}
	}
	if n := count(`SELECT count(*) FROM deleted_api_keys WHERE agent_id = $1`, agentA); n != 1 {
		t.Errorf("%d deleted keys logged, want 1", n)
	}
	if r := e.do(t, "GET", "/api/conversations/"+aliceConv, e.alice, ""); r.Status != http.StatusNotFound {
		t.Errorf("deleted conversation: %d", r.Status)
	}
	// Another agent's conversation and key are untouched.
	if n := count(`SELECT count(*) FROM conversations WHERE id = $1`, daveConv); n != 1 {
		t.Error("another agent's conversation was deleted")
	}
	if r := raw(t, "GET", models, "Bearer "+other, ""); r.Status != http.StatusOK {
		t.Errorf("another agent's key: %d %s", r.Status, r.Raw)
	}
}

// Issue 29: identity's user.deleted deletes the account's own conversations
// with other people's agents; everyone else's stay.
func TestUserDeletedDeletesTheirConversations(t *testing.T) {
	e := start(t, options{})
	bobConv := e.newConversation(t, e.bob, agentA)
	if r := e.sendJSON(t, e.bob, bobConv, "Hello?", "b1"); r.Status != http.StatusOK {
		t.Fatalf("message: %d %s", r.Status, r.Raw)
	}
	aliceConv := e.newConversation(t, e.alice, agentA)
	pool, err := pgxpool.New(context.Background(), e.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	ev := &eventsv1.UserDeleted{Uid: e.bob, Email: "bob@example.com"}
	publishEvent(t, e.brokers, topics.Identity, "/agentic/identity", "ud-1", topics.IdentityUserDeleted, e.bob, ev)
	publishEvent(t, e.brokers, topics.Identity, "/agentic/identity", "ud-1", topics.IdentityUserDeleted, e.bob, ev) // re-delivery
	testwait.Until(t, "the deleted account's conversations to go", func() bool {
		return count(`SELECT count(*) FROM conversations WHERE user_uid = $1`, e.bob) == 0
	})
	if n := count(`SELECT count(*) FROM messages WHERE conversation_id = $1`, bobConv); n != 0 {
		t.Errorf("%d messages of the deleted account left", n)
	}
	if n := count(`SELECT count(*) FROM conversations WHERE id = $1`, aliceConv); n != 1 {
		t.Error("another user's conversation was deleted")
	}
}
