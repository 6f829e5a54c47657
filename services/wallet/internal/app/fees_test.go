package app

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/events/topics"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

// publish sends a CloudEvent (binary mode) like the platform's outbox relay.
func publish(t *testing.T, brokers []string, topic, key, id, typ string, payload []byte) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	r := &kgo.Record{Topic: topic, Key: []byte(key), Value: payload, Headers: []kgo.RecordHeader{
		{Key: "ce_specversion", Value: []byte("1.0")}, {Key: "ce_id", Value: []byte(id)},
		{Key: "ce_type", Value: []byte(typ)}, {Key: "ce_source", Value: []byte("/agentic/catalog")},
		{Key: "ce_subject", Value: []byte(key)}, {Key: "ce_time", Value: []byte(time.Now().Format(time.RFC3339Nano))},
		{Key: "content-type", Value: []byte("application/json")},
	}}
	if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

func agentFees(t *testing.T, app running, uid string) []any {
	t.Helper()
	code, body := call(t, "GET", app.http+"/api/user/agent-fees", "token-"+uid, "")
	if code != 200 || body["success"] != true {
		t.Fatalf("agent-fees: %d %v", code, body)
	}
	return body["data"].([]any)
}

var waitOpts = []testwait.Option{testwait.Timeout(20 * time.Second), testwait.Every(50 * time.Millisecond)}

// TestAgentFeesInTheService: the first answer of an agent charges its fee
// (GET /api/user/agent-fees shows it paid); the scheduler in the running
// service pauses a due agent whose owner cannot pay (agent_paused at
// Reserve); a catalog status event setting it inactive clears the pause.
func TestAgentFeesInTheService(t *testing.T) {
	app := start(t, redisURL(), func(c *Config) {
		c.AgentFeeInterval = 100 * time.Millisecond
		c.ConsumerMaxWait = 100 * time.Millisecond
	})
	c := walletClient(t, app)
	ctx := context.Background()
	uid := uniq("uma")
	agent := uniq("agent")
	meta := map[string]string{"agent_id": agent, "agent_name": "Math Tutor"}

	if _, err := c.Credit(ctx, &walletv1.CreditRequest{Uid: uid, AmountMicros: 12_000_000, IdempotencyKey: "fund"}); err != nil {
		t.Fatal(err)
	}
	h, err := c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 1_000_000, IdempotencyKey: "q1", Metadata: meta})
	if err != nil || h.GetHeldMicros() != 1_000_000 || h.GetBalanceMicros() != 2_000_000 {
		t.Fatalf("first answer: %v %v", h, err)
	}
	if _, err := c.Release(ctx, &walletv1.ReleaseRequest{HoldId: h.GetHold().GetId()}); err != nil {
		t.Fatal(err)
	}
	fees := agentFees(t, app, uid)
	if len(fees) != 1 {
		t.Fatalf("fees %v", fees)
	}
	f := fees[0].(map[string]any)
	start, err1 := time.Parse(time.RFC3339, f["periodStart"].(string))
	end, err2 := time.Parse(time.RFC3339, f["periodEnd"].(string))
	if f["agentId"] != agent || f["agentName"] != "Math Tutor" || f["status"] != "paid" || err1 != nil || err2 != nil ||
		end.Sub(start) != 30*24*time.Hour {
		t.Fatalf("fee %v", f)
	}
	if b := balances(t, app, uid); b["monthUsage"] != 10.0 {
		t.Fatalf("the fee is this month's usage: %v", b)
	}

	// The period ends (time travel in the database); $2 cannot renew it.
	pool, err := database.Connect(ctx, app.dbURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `UPDATE agent_billing SET period_start = now() - interval '31 days',
		paid_until = now() - interval '1 day', last_used_at = now() - interval '2 days' WHERE agent_id = $1`, agent); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the scheduler to pause the agent", func() bool {
		fees := agentFees(t, app, uid)
		return len(fees) == 1 && fees[0].(map[string]any)["status"] == "paused"
	}, waitOpts...)
	_, err = c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 1_000, IdempotencyKey: "q2", Metadata: meta})
	if status.Code(err) != codes.FailedPrecondition || reason(err) != "agent_paused" {
		t.Fatalf("paused agent: %v (%s)", err, reason(err))
	}

	// The owner sets the agent inactive: no pause, no renewal.
	payload, _ := protojson.Marshal(&eventsv1.AgentStatusChanged{AgentId: agent, OwnerUid: uid, Name: "Math Tutor",
		OldStatus: "active", NewStatus: "inactive", OccurredAt: timestamppb.Now()})
	publish(t, app.brokers, topics.Catalog, agent, uniq("evt"), topics.CatalogAgentStatusChanged, payload)
	testwait.Until(t, "the catalog event to apply", func() bool {
		var st string
		var paused bool
		_ = pool.QueryRow(ctx, `SELECT status, paused FROM agent_billing WHERE agent_id = $1`, agent).Scan(&st, &paused)
		return st == "inactive" && !paused
	}, waitOpts...)
	if fees := agentFees(t, app, uid); len(fees) != 0 {
		t.Fatalf("inactive agent listed: %v", fees)
	}
	checkLedger(t, app)
}

// A Reserve refused because the agent's fee is due with it and the wallet
// cannot pay both says so: the refusal carries what was needed (fee and
// hold), what was available and the fee, so that the conversations service
// can tell the owner "This agent's monthly fee of $10.00 is due: add $X".
// Without a fee due, the fee is 0.
func TestReserveRefusedForFundsCarriesTheShortfall(t *testing.T) {
	app := start(t, redisURL())
	c := walletClient(t, app)
	ctx := context.Background()
	uid := uniq("fee-short")
	meta := map[string]string{"agent_id": uniq("agent"), "agent_name": "Math Tutor"}
	if _, err := c.Credit(ctx, &walletv1.CreditRequest{Uid: uid, AmountMicros: 3_000_000, IdempotencyKey: "fund"}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 40_000, IdempotencyKey: "q1", Metadata: meta})
	if status.Code(err) != codes.FailedPrecondition || reason(err) != "insufficient_funds" {
		t.Fatalf("fee due: %v", err)
	}
	m := errorMetadata(err)
	if m["fee_micros"] != "10000000" || m["needed_micros"] != "10040000" || m["available_micros"] != "3000000" {
		t.Fatalf("fee due: metadata %v", m)
	}
	// An owner's own answer without an agent (no fee): the fee part is 0.
	_, err = c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 5_000_000, IdempotencyKey: "q2"})
	if m := errorMetadata(err); reason(err) != "insufficient_funds" || m["fee_micros"] != "0" || m["needed_micros"] != "5000000" {
		t.Fatalf("no fee: %v %v", err, m)
	}
}

func errorMetadata(err error) map[string]string {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.GetMetadata()
		}
	}
	return nil
}
