package wallet

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/encoding/protojson"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// TestDeletedAgentFeeStops: the catalog's agent.deleted (issue 29) stops the
// agent's monthly fee: it leaves GET /api/user/agent-fees, the scheduler
// never renews it, and an answer still in flight starts no period. A
// re-delivered event changes nothing.
func TestDeletedAgentFeeStops(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "dora", 50*MicrosPerDollar)
	if r, err := s.Reserve(ctx, agentReservation("dora", "ag-del", "Doomed", 1000, "d1")); err != nil || !r.FeeCharged {
		t.Fatalf("first answer: %+v %v", r, err)
	}
	if fees, err := s.AgentFees(ctx, "dora"); err != nil || len(fees) != 1 {
		t.Fatalf("fees before deletion: %+v %v", fees, err)
	}
	payload, err := protojson.Marshal(&eventsv1.AgentDeleted{AgentId: "ag-del", OwnerUid: "dora", Name: "Doomed"})
	if err != nil {
		t.Fatal(err)
	}
	handle := CatalogEventHandler()
	for range 2 { // the second delivery is harmless
		if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			return handle(ctx, tx, events.Received{ID: "del-1", Type: topics.CatalogAgentDeleted, Payload: payload, Time: time.Now()})
		}); err != nil {
			t.Fatal(err)
		}
	}
	if fees, err := s.AgentFees(ctx, "dora"); err != nil || len(fees) != 0 {
		t.Fatalf("fees of a deleted agent: %+v %v", fees, err)
	}
	// Its period ends, used: still not renewed.
	endPeriod(t, pool, "ag-del", time.Minute, true)
	if done, err := s.RenewAgentFees(ctx, 10); err != nil || len(done) != 0 {
		t.Fatalf("deleted agent renewed: %+v %v", done, err)
	}
	// An answer that was in flight when it was deleted pays no fee.
	if r, err := s.Reserve(ctx, agentReservation("dora", "ag-del", "Doomed", 1000, "d2")); err != nil || r.FeeCharged {
		t.Fatalf("answer after deletion: %+v %v", r, err)
	}
	if n := feeCount(t, pool, "ag-del"); n != 1 {
		t.Fatalf("%d fees, want the first one only", n)
	}
	if fees, err := s.AgentFees(ctx, "dora"); err != nil || len(fees) != 0 {
		t.Fatalf("fees after the late answer: %+v %v", fees, err)
	}
	mustInvariants(t, s)
}
