package app

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/encoding/protojson"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// Issue 29: the service consumes the catalog's agent.deleted and deletes the
// agent's documents (the handler's details: documents/agent_deleted_test.go).
func TestAgentDeletedEventDeletesTheAgentsDocuments(t *testing.T) {
	catalogAddr, _ := startCatalog(t)
	app := start(t, catalogAddr, 0)
	for _, c := range []struct{ token, agent string }{{"token-alice", agentA}, {"token-bob", agentB}} {
		if r := do(t, "POST", docsPath(app.http, c.agent), c.token, docBody("Syllabus", fileURL)); r.Status != 201 {
			t.Fatalf("add: %d %s", r.Status, r.Raw)
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(app.brokers...), kgo.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	value, err := protojson.Marshal(&eventsv1.AgentDeleted{AgentId: agentA, OwnerUid: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	rec := &kgo.Record{Topic: topics.Catalog, Key: []byte(agentA), Value: value, Headers: []kgo.RecordHeader{
		{Key: "ce_specversion", Value: []byte("1.0")}, {Key: "ce_id", Value: []byte("del-a")},
		{Key: "ce_type", Value: []byte(topics.CatalogAgentDeleted)}, {Key: "ce_source", Value: []byte("/agentic/catalog")},
		{Key: "content-type", Value: []byte("application/json")},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := do(t, "GET", docsPath(app.http, agentA), "token-alice", "")
		if r.Status == 200 && len(r.List()) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the deleted agent's documents are still there: %s", r.Raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := do(t, "GET", docsPath(app.http, agentB), "token-bob", ""); r.Status != 200 || len(r.List()) != 1 {
		t.Fatalf("another agent's documents: %d %s", r.Status, r.Raw)
	}
}
