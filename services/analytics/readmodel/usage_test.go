package readmodel_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/analytics/readmodel"
	"github.com/agentic-app/agentic/services/platform/events"
)

func day(s string) time.Time {
	d, err := time.Parse(readmodel.DateLayout, s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestResolveUsageRange(t *testing.T) {
	now := time.Date(2026, 3, 10, 23, 30, 0, 0, time.FixedZone("X", 5*3600)) // 18:30 UTC on the 10th
	ok := []struct {
		req      readmodel.UsageRequest
		from, to string
		group    string
		days     int
	}{
		{readmodel.UsageRequest{}, "2026-02-09", "2026-03-10", "day", 30},
		{readmodel.UsageRequest{GroupBy: "agent"}, "2026-02-09", "2026-03-10", "agent", 30},
		{readmodel.UsageRequest{To: "2026-01-31"}, "2026-01-02", "2026-01-31", "day", 30},
		{readmodel.UsageRequest{From: "2026-03-01"}, "2026-03-01", "2026-03-10", "day", 10},
		{readmodel.UsageRequest{From: "2026-03-10", To: "2026-03-10"}, "2026-03-10", "2026-03-10", "day", 1},
		// 366 days (a leap year) is the longest range.
		{readmodel.UsageRequest{From: "2024-01-01", To: "2024-12-31"}, "2024-01-01", "2024-12-31", "day", 366},
		// The future is fine (zeros).
		{readmodel.UsageRequest{From: "2026-04-01", To: "2026-04-02"}, "2026-04-01", "2026-04-02", "day", 2},
	}
	for _, c := range ok {
		r, err := readmodel.ResolveUsageRange(c.req, now)
		if err != nil {
			t.Fatalf("%+v: %v", c.req, err)
		}
		if r.From != day(c.from) || r.To != day(c.to) || r.GroupBy != c.group || r.Days() != c.days {
			t.Fatalf("%+v: %v..%v %s %d", c.req, r.From, r.To, r.GroupBy, r.Days())
		}
	}
	bad := []struct {
		req  readmodel.UsageRequest
		code string
		msg  string
	}{
		{readmodel.UsageRequest{From: "2025-03-09", To: "2026-03-10"}, "invalid_range", "the range must be at most 366 days"},
		{readmodel.UsageRequest{From: "2025-01-01"}, "invalid_range", "the range must be at most 366 days"},
		{readmodel.UsageRequest{From: "2026-03-11"}, "invalid_range", "from must not be after to"},
		{readmodel.UsageRequest{From: "2026-03-02", To: "2026-03-01"}, "invalid_range", "from must not be after to"},
		{readmodel.UsageRequest{From: "2026-3-1"}, "invalid_range", "from must be a date (YYYY-MM-DD)"},
		{readmodel.UsageRequest{To: "yesterday"}, "invalid_range", "to must be a date (YYYY-MM-DD)"},
		{readmodel.UsageRequest{To: "2026-02-30"}, "invalid_range", "to must be a date (YYYY-MM-DD)"},
		{readmodel.UsageRequest{GroupBy: "week"}, "invalid_query", "groupBy must be day or agent"},
	}
	for _, c := range bad {
		_, err := readmodel.ResolveUsageRange(c.req, now)
		var ue *readmodel.UsageError
		if !errors.As(err, &ue) || ue.Code != c.code || ue.Message != c.msg {
			t.Fatalf("%+v: %v", c.req, err)
		}
	}
}

func answered(id, interaction, agent, owner, payer, name string, micros int64, at time.Time) events.Received {
	return ev(id, readmodel.TopicUsage, readmodel.TypeInteractionRecorded, at, &eventsv1.InteractionRecorded{
		InteractionId: interaction, AgentId: agent, OwnerUid: owner, PayerUid: payer, AgentName: name,
		OccurredAt: ts(at), CostMicros: micros - micros*3/103, FeeMicros: micros * 3 / 103, TotalMicros: micros,
	})
}

func charged(id, transfer, uid string, micros int64, md map[string]string, at time.Time) events.Received {
	return ev(id, readmodel.TopicWallet, readmodel.TypeChargeDebited, at, &eventsv1.WalletCharged{
		Uid: uid, AmountMicros: micros, TransferId: transfer, Description: "charge", Metadata: md, OccurredAt: ts(at),
	})
}

func TestUsageProjectionAndGrouping(t *testing.T) {
	pool := newDB(t)
	p := readmodel.NewProjector(readmodel.ProjectorConfig{})
	ctx := context.Background()
	d1 := time.Date(2026, 3, 8, 23, 59, 59, 0, time.UTC)
	d2 := time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC)
	d3 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	apply(t, pool, p,
		agentCreated("c1", "a1", "alice", "Math Tutor", d1.Add(-48*time.Hour)),
		// a2 is never seen by the catalog: its name comes from the usage events (the latest one).
		answered("x1", "m1", "a1", "alice", "alice", "Math Tutor (old)", 1_250_000, d1),
		answered("x2", "m2", "a1", "alice", "", "", 250_000, d2), // no payer: the owner paid
		answered("x3", "m3", "a2", "alice", "alice", "Essay Coach", 500_000, d2),
		answered("x4", "m4", "a2", "alice", "alice", "Essay Coach v2", 100_000, d3),
		// The same answer published again under another event id: counted once.
		answered("x1-again", "m1", "a1", "alice", "alice", "Math Tutor", 1_250_000, d1),
		// A monthly fee (wallet charge with kind agent_fee), and the usage capture
		// of an answer and a plain expense, which are not projected as spend.
		charged("w1", "tr-fee", "alice", 10_000_000, map[string]string{"kind": "agent_fee", "agentId": "a1", "agentName": "Math Tutor",
			"periodStart": "2026-03-09", "periodEnd": "2026-04-07"}, d2),
		charged("w2", "tr-cap", "alice", 1_250_000, map[string]string{"agentId": "a1", "messageId": "m1"}, d1),
		charged("w3", "tr-x", "alice", 3_000_000, nil, d2),
		// A fee re-published with another event id: once.
		charged("w1-again", "tr-fee", "alice", 10_000_000, map[string]string{"kind": "agent_fee", "agentId": "a1"}, d2),
		// Bob's usage on his own agent, and an answer of alice's agent paid by
		// erin (a public agent's user): neither is alice's spend.
		answered("y1", "n1", "b1", "bob", "bob", "Bob Bot", 9_000_000, d2),
		answered("y2", "n2", "a1", "alice", "erin", "Math Tutor", 7_000_000, d2),
	)
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM spend_entries`).Scan(&n); err != nil || n != 7 {
		t.Fatalf("spend entries: %d %v", n, err)
	}

	store := readmodel.NewStore(pool, func() time.Time { return time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC) })
	u, err := store.Usage(ctx, "alice", readmodel.UsageRequest{From: "2026-03-07", To: "2026-03-11"})
	if err != nil {
		t.Fatal(err)
	}
	tutor := func(m, i int64) readmodel.AgentUsage {
		return readmodel.AgentUsage{AgentID: "a1", AgentName: "Math Tutor", AmountMicros: m, Interactions: i}
	}
	coach := func(m, i int64) readmodel.AgentUsage {
		return readmodel.AgentUsage{AgentID: "a2", AgentName: "Essay Coach v2", AmountMicros: m, Interactions: i}
	}
	// The fee is part of its agent's amount, and said apart (FeeMicros).
	withFee := func(a readmodel.AgentUsage, fee int64) readmodel.AgentUsage { a.FeeMicros = fee; return a }
	want := readmodel.Usage{
		From: "2026-03-07", To: "2026-03-11", TotalMicros: 12_100_000, FeeMicros: 10_000_000,
		Days: []readmodel.UsageDay{
			{Date: "2026-03-07", Agents: []readmodel.AgentUsage{}},
			{Date: "2026-03-08", TotalMicros: 1_250_000, Interactions: 1, Agents: []readmodel.AgentUsage{tutor(1_250_000, 1)}},
			{Date: "2026-03-09", TotalMicros: 10_750_000, Interactions: 2, Agents: []readmodel.AgentUsage{withFee(tutor(10_250_000, 1), 10_000_000), coach(500_000, 1)}},
			{Date: "2026-03-10", TotalMicros: 100_000, Interactions: 1, Agents: []readmodel.AgentUsage{coach(100_000, 1)}},
			{Date: "2026-03-11", Agents: []readmodel.AgentUsage{}},
		},
		Agents: []readmodel.AgentUsage{withFee(tutor(11_500_000, 2), 10_000_000), coach(600_000, 2)},
	}
	if !reflect.DeepEqual(u, want) {
		t.Fatalf("usage:\n%+v\nwant\n%+v", u, want)
	}

	// groupBy=agent: the same days and totals without the per-day split.
	byAgent, err := store.Usage(ctx, "alice", readmodel.UsageRequest{From: "2026-03-07", To: "2026-03-11", GroupBy: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.Days {
		want.Days[i].Agents = []readmodel.AgentUsage{}
	}
	if !reflect.DeepEqual(byAgent, want) {
		t.Fatalf("by agent:\n%+v\nwant\n%+v", byAgent, want)
	}

	// The range is inclusive, by UTC day: only the 9th.
	u9, _ := store.Usage(ctx, "alice", readmodel.UsageRequest{From: "2026-03-09", To: "2026-03-09"})
	if len(u9.Days) != 1 || u9.TotalMicros != 10_750_000 || len(u9.Agents) != 2 {
		t.Fatalf("the 9th: %+v", u9)
	}
	// Defaults: the last 30 days up to today (the 10th).
	def, _ := store.Usage(ctx, "alice", readmodel.UsageRequest{})
	if def.From != "2026-02-09" || def.To != "2026-03-10" || len(def.Days) != 30 || def.TotalMicros != 12_100_000 {
		t.Fatalf("default: %s..%s %d %d", def.From, def.To, len(def.Days), def.TotalMicros)
	}
	// Another user's usage is invisible; erin sees what she paid on alice's agent.
	bob, _ := store.Usage(ctx, "bob", readmodel.UsageRequest{})
	if bob.TotalMicros != 9_000_000 || len(bob.Agents) != 1 || bob.Agents[0].AgentName != "Bob Bot" {
		t.Fatalf("bob: %+v", bob.Agents)
	}
	erin, _ := store.Usage(ctx, "erin", readmodel.UsageRequest{})
	if erin.TotalMicros != 7_000_000 || !reflect.DeepEqual(erin.Agents, []readmodel.AgentUsage{tutor(7_000_000, 1)}) {
		t.Fatalf("erin: %+v", erin.Agents)
	}
	nobody, _ := store.Usage(ctx, "nobody", readmodel.UsageRequest{})
	if nobody.TotalMicros != 0 || len(nobody.Days) != 30 || len(nobody.Agents) != 0 || nobody.Days[0].Agents == nil {
		t.Fatalf("nobody: %+v", nobody)
	}
	if _, err := store.Usage(ctx, "alice", readmodel.UsageRequest{From: "2020-01-01"}); err == nil {
		t.Fatal("a range of years was accepted")
	}
}

func TestAgentFeeWithoutUIDIsAnErrorAndUnknownAgentsAreNamed(t *testing.T) {
	pool := newDB(t)
	p := readmodel.NewProjector(readmodel.ProjectorConfig{})
	ctx := context.Background()
	at := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	bad := charged("w1", "tr", "", 10_000_000, map[string]string{"kind": "agent_fee", "agentId": "a1"}, at)
	if err := apply1(pool, p, bad); err == nil {
		t.Fatal("a fee without uid was accepted")
	}
	// A fee without an agent, and one without any name anywhere.
	apply(t, pool, p,
		charged("w2", "tr2", "alice", 10_000_000, map[string]string{"type": "agent_fee"}, at),
		charged("w3", "tr3", "alice", 10_000_000, map[string]string{"kind": "agent_fee", "agentId": "zz"}, at),
	)
	u, err := readmodel.NewStore(pool, func() time.Time { return at }).Usage(ctx, "alice", readmodel.UsageRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Agents) != 2 || u.Agents[0].AgentName != readmodel.UnknownAgentName || u.Agents[1].AgentName != readmodel.UnknownAgentName ||
		u.Agents[0].Interactions != 0 || u.TotalMicros != 20_000_000 {
		t.Fatalf("agents: %+v", u.Agents)
	}
}

func apply1(pool *pgxpool.Pool, p *readmodel.Projector, e events.Received) error {
	return pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error { return p.Handle(context.Background(), tx, e) })
}
