package readmodel_test

import (
	"context"
	"testing"
	"time"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/analytics/readmodel"
)

// Issue 29: a deleted agent leaves the agent count, keeps its history, and
// the owner's feed records the deletion once (a "delete" activity, info
// icon), even when the event is delivered twice.
func TestAgentDeletedKeepsHistoryAndRecordsADelete(t *testing.T) {
	pool := newDB(t)
	p := readmodel.NewProjector(readmodel.ProjectorConfig{})
	at := t0.Add(time.Hour)
	deleted := ev("del-1", readmodel.TopicCatalog, readmodel.TypeAgentDeleted, at, &eventsv1.AgentDeleted{
		AgentId: "a1", OwnerUid: "alice", Name: "Math Tutor", IconColor: "#10B981", OccurredAt: ts(at),
	})
	apply(t, pool, p, agentCreated("c-1", "a1", "alice", "Math Tutor", t0), documentAdded("d-1", "a1", "alice", "Notes", t0),
		deleted, deleted)
	store := readmodel.NewStore(pool, func() time.Time { return at.Add(time.Hour) })
	feed, err := store.Activities(context.Background(), "alice", 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(feed) != 3 {
		t.Fatalf("feed %+v, want the create, the upload and the delete", feed)
	}
	del := feed[0]
	if del.ActivityType != readmodel.ActivityDelete || del.Description != "Deleted agent Math Tutor" || del.Agent.Name != "Math Tutor" {
		t.Fatalf("delete activity %+v", del)
	}
	if s, err := store.Stats(context.Background(), "alice"); err != nil || s.AgentCount != 0 {
		t.Fatalf("stats after the deletion: %+v %v", s, err)
	}
}
