package readmodel_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/analytics/readmodel"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events"
)

func newDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool, _ := dbtest.NewPool(t, "analytics")
	if err := database.Migrate(context.Background(), pool, readmodel.Migrations, readmodel.MigrationsDir); err != nil {
		t.Fatal(err)
	}
	return pool
}

func ev(id, topic, typ string, at time.Time, m proto.Message) events.Received {
	b, err := protojson.Marshal(m)
	if err != nil {
		panic(err)
	}
	return events.Received{ID: id, Type: typ, Topic: topic, Time: at, Payload: b}
}

func ts(t time.Time) *timestamppb.Timestamp { return timestamppb.New(t) }

// apply runs the projector on each event, each in its own transaction.
func apply(t *testing.T, pool *pgxpool.Pool, p *readmodel.Projector, evs ...events.Received) {
	t.Helper()
	for _, e := range evs {
		err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error { return p.Handle(context.Background(), tx, e) })
		if err != nil {
			t.Fatalf("apply %s: %v", e.Type, err)
		}
	}
}

var t0 = time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC)

func agentCreated(id, agent, owner, name string, at time.Time) events.Received {
	return ev(id, readmodel.TopicCatalog, readmodel.TypeAgentCreated, at, &eventsv1.AgentCreated{
		AgentId: agent, OwnerUid: owner, Name: name, Category: "Education", Status: "active",
		IconName: "ri-brain-line", IconColor: "#10B981", OccurredAt: ts(at),
	})
}

func documentAdded(id, agent, owner, name string, at time.Time) events.Received {
	return ev(id, readmodel.TopicDocuments, readmodel.TypeDocumentAdded, at, &eventsv1.DocumentAdded{
		DocumentId: "doc-" + id, AgentId: agent, OwnerUid: owner, Name: name, FileType: "Google Docs",
		Labels: []string{"week1"}, SharingStatus: "shared", OccurredAt: ts(at),
	})
}

func statusChanged(id, agent, owner, name, color string, at time.Time) events.Received {
	return ev(id, readmodel.TopicCatalog, readmodel.TypeAgentStatusChanged, at, &eventsv1.AgentStatusChanged{
		AgentId: agent, OwnerUid: owner, Name: name, IconColor: color, OldStatus: "active", NewStatus: "inactive", OccurredAt: ts(at),
	})
}

// dump returns every read-model row, ordered, as strings.
func dump(t *testing.T, pool *pgxpool.Pool) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for table, q := range map[string]string{
		"agents":          `SELECT agent_id, owner_uid, name, icon_name, icon_color, attrs_at, created_at, deleted_at FROM agents ORDER BY agent_id`,
		"activities":      `SELECT id, owner_uid, agent_id, activity_type, kind, subject, details, document_references, file_type, agent_name_hint, icon_color_hint, created_at FROM activities ORDER BY id`,
		"revenue_entries": `SELECT event_id, uid, amount_micros, occurred_at FROM revenue_entries ORDER BY event_id`,
		"interactions":    `SELECT event_id, owner_uid, agent_id, occurred_at FROM interactions ORDER BY event_id`,
		"spend_entries":   `SELECT entry_id, event_id, payer_uid, kind, agent_id, agent_name_hint, amount_micros, occurred_at FROM spend_entries ORDER BY entry_id`,
	} {
		rows, err := pool.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if tm, ok := v.(time.Time); ok {
					vals[i] = tm.UTC()
				}
				if p, ok := v.(*string); ok && p != nil {
					vals[i] = *p
				}
			}
			out[table] = append(out[table], fmt.Sprint(vals...))
		}
		rows.Close()
	}
	return out
}

// TestReorderingAcrossTopicsConverges applies the same events in every order
// (document before agent, status change before creation, …): the read models
// and the API answers end up identical.
func TestReorderingAcrossTopicsConverges(t *testing.T) {
	p := readmodel.NewProjector(readmodel.ProjectorConfig{})
	all := []events.Received{
		agentCreated("e1", "a1", "alice", "Tutor", t0),
		documentAdded("e2", "a1", "alice", "Syllabus", t0.Add(time.Minute)),
		statusChanged("e3", "a1", "alice", "Tutor", "#4076D6", t0.Add(2*time.Minute)),
	}
	perms := [][]int{{0, 1, 2}, {1, 0, 2}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}}
	var first map[string][]string
	var firstFeed []readmodel.Activity
	for i, perm := range perms {
		pool := newDB(t)
		for _, j := range perm {
			apply(t, pool, p, all[j])
		}
		got := dump(t, pool)
		store := readmodel.NewStore(pool, func() time.Time { return t0.Add(time.Hour) })
		feed, err := store.Activities(context.Background(), "alice", 20)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first, firstFeed = got, feed
			// Sanity of the converged state.
			if len(feed) != 3 {
				t.Fatalf("feed: %+v", feed)
			}
			up := feed[1]
			if up.ActivityType != "upload" || up.Description != `Document "Syllabus" added to Tutor` ||
				up.Agent.Name != "Tutor" || up.Agent.IconColor != "#4076D6" || up.Metadata.FileType == nil || *up.Metadata.FileType != "Google Docs" {
				t.Fatalf("upload activity: %+v", up)
			}
			if feed[0].ActivityType != "update" || feed[0].Description != "Tutor is now inactive" {
				t.Fatalf("update activity: %+v", feed[0])
			}
			if feed[2].ActivityType != "create" || feed[2].Description != "Created agent Tutor" {
				t.Fatalf("create activity: %+v", feed[2])
			}
			continue
		}
		if !reflect.DeepEqual(got, first) {
			t.Fatalf("order %v: read models differ:\n%v\nvs\n%v", perm, got, first)
		}
		if !reflect.DeepEqual(feed, firstFeed) {
			t.Fatalf("order %v: feed differs:\n%+v\nvs\n%+v", perm, feed, firstFeed)
		}
	}
}

// TestDocumentBeforeAgent: until agent.created arrives the upload shows an
// unknown agent and the agent is not counted; afterwards both are right.
func TestDocumentBeforeAgent(t *testing.T) {
	pool := newDB(t)
	p := readmodel.NewProjector(readmodel.ProjectorConfig{})
	store := readmodel.NewStore(pool, func() time.Time { return t0.Add(time.Hour) })
	ctx := context.Background()

	apply(t, pool, p, documentAdded("e2", "a1", "alice", "Syllabus", t0.Add(time.Minute)))
	feed, _ := store.Activities(ctx, "alice", 20)
	if len(feed) != 1 || feed[0].Agent.Name != readmodel.UnknownAgentName || feed[0].Description != `Document "Syllabus" added to Unknown agent` {
		t.Fatalf("before: %+v", feed)
	}
	if s, _ := store.Stats(ctx, "alice"); s.AgentCount != 0 {
		t.Fatalf("placeholder counted: %+v", s)
	}

	apply(t, pool, p, agentCreated("e1", "a1", "alice", "Tutor", t0))
	feed, _ = store.Activities(ctx, "alice", 20)
	if len(feed) != 2 || feed[0].Description != `Document "Syllabus" added to Tutor` || feed[0].Agent.IconColor != "#10B981" {
		t.Fatalf("after: %+v", feed)
	}
	if s, _ := store.Stats(ctx, "alice"); s.AgentCount != 1 {
		t.Fatalf("stats: %+v", s)
	}
}

// TestDocumentSyncedIsAnUpload: a sync that read new text of a Google Doc is
// an 'upload' with fileType "Google Docs", once per event id; the event of
// text removed on unsharing is not an upload.
func TestDocumentSyncedIsAnUpload(t *testing.T) {
	pool := newDB(t)
	p := readmodel.NewProjector(readmodel.ProjectorConfig{})
	store := readmodel.NewStore(pool, func() time.Time { return t0.Add(time.Hour) })
	synced := func(id, status string, at time.Time) events.Received {
		return ev(id, readmodel.TopicDocuments, readmodel.TypeDocumentSynced, at, &eventsv1.DocumentSynced{
			DocumentId: "d1", AgentId: "a1", OwnerUid: "alice", Name: "Syllabus", DriveTitle: "CS101 Syllabus (2026)",
			SharingStatus: status, TokenCount: 1234, FileType: "Google Docs", OccurredAt: ts(at),
		})
	}
	first := synced("s1", "shared", t0.Add(time.Minute))
	apply(t, pool, p,
		agentCreated("e1", "a1", "alice", "Tutor", t0),
		first,
		first, // redelivered: no second activity
		synced("s2", "not_shared", t0.Add(2*time.Minute)),
	)
	feed, err := store.Activities(context.Background(), "alice", 20)
	if err != nil || len(feed) != 2 {
		t.Fatalf("feed: %+v %v", feed, err)
	}
	up := feed[0]
	if up.ActivityType != "upload" || up.Description != `Document "Syllabus" synced from Google Docs to Tutor` ||
		up.Metadata.FileType == nil || *up.Metadata.FileType != "Google Docs" || up.Metadata.Details == nil ||
		*up.Metadata.Details != "Google Docs title: CS101 Syllabus (2026)" || !up.CreatedAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("upload: %+v", up)
	}
	// A payload without its ids is an error (retried, then parked).
	err = pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		return p.Handle(context.Background(), tx, ev("s3", readmodel.TopicDocuments, readmodel.TypeDocumentSynced, t0,
			&eventsv1.DocumentSynced{Name: "x", SharingStatus: "shared"}))
	})
	if err == nil {
		t.Fatal("synced without ids: no error")
	}
}

// TestOlderEventDoesNotOverwriteNewer: an agent.updated that is older (by
// occurred_at) than what the read model holds leaves the name/colour alone.
func TestOlderEventDoesNotOverwriteNewer(t *testing.T) {
	pool := newDB(t)
	p := readmodel.NewProjector(readmodel.ProjectorConfig{})
	apply(t, pool, p,
		statusChanged("e3", "a1", "alice", "Tutor", "#EF4444", t0.Add(2*time.Minute)),
		ev("e2", readmodel.TopicCatalog, readmodel.TypeAgentUpdated, t0.Add(time.Minute), &eventsv1.AgentUpdated{
			AgentId: "a1", OwnerUid: "alice", Name: "Tutor", IconColor: "#F59E0B", ChangedFields: []string{"tags"}, OccurredAt: ts(t0.Add(time.Minute)),
		}),
	)
	var color string
	if err := pool.QueryRow(context.Background(), `SELECT icon_color FROM agents WHERE agent_id='a1'`).Scan(&color); err != nil || color != "#EF4444" {
		t.Fatalf("color %q %v", color, err)
	}
}

func TestStatsMonthBoundaries(t *testing.T) {
	pool := newDB(t)
	p := readmodel.NewProjector(readmodel.ProjectorConfig{})
	ctx := context.Background()
	jan31 := time.Date(2026, 1, 31, 23, 59, 59, 999_000_000, time.UTC)
	feb1 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	income := func(id, uid string, micros int64, at time.Time) events.Received {
		return ev(id, readmodel.TopicWallet, readmodel.TypeIncomeCredited, at, &eventsv1.WalletIncomeCredited{
			Uid: uid, AmountMicros: micros, TransferId: "tr-" + id, OccurredAt: ts(at)})
	}
	interaction := func(id, owner, agent string, at time.Time) events.Received {
		return events.Received{ID: id, Topic: readmodel.TopicUsage, Type: readmodel.TypeInteractionRecorded, Time: at,
			Payload: fmt.Appendf(nil, `{"agentId":%q,"ownerUid":%q,"documentReferences":["Syllabus","Notes"],"occurredAt":%q}`, agent, owner, at.Format(time.RFC3339Nano))}
	}
	apply(t, pool, p,
		agentCreated("a1", "a1", "alice", "One", time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)),
		agentCreated("a2", "a2", "alice", "Two", jan31),
		agentCreated("a3", "a3", "alice", "Three", feb1),
		agentCreated("b1", "b1", "bob", "Bob's", feb1),
		income("i1", "alice", 10_000_000, jan31), // $10.00 before the boundary
		income("i2", "alice", 2_500_000, feb1),   // $2.50 on it
		income("i3", "bob", 1_000_000, feb1),
		interaction("x1", "alice", "a1", jan31),
		interaction("x2", "alice", "a1", jan31.Add(-time.Hour)),
		interaction("x3", "bob", "b1", feb1),
		// A deposit is not revenue; an identity event changes nothing.
		ev("d1", readmodel.TopicWallet, "agentic.wallet.deposit.credited.v1", feb1, &eventsv1.WalletDepositCredited{Uid: "alice", AmountMicros: 5_000_000}),
		ev("u1", readmodel.TopicIdentity, "agentic.identity.user.onboarded.v1", feb1, &eventsv1.UserOnboarded{Uid: "alice"}),
	)

	at := func(now time.Time) readmodel.Stats {
		s, err := readmodel.NewStore(pool, func() time.Time { return now }).Stats(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// In February: end of January had 2 agents, $10.00, 2 interactions.
	got := at(time.Date(2026, 2, 14, 12, 0, 0, 0, time.UTC))
	want := readmodel.Stats{AgentCount: 3, AgentGrowth: 50, TotalRevenue: 1250, RevenueGrowth: 25, TotalInteractions: 2, InteractionGrowth: 0}
	if got != want {
		t.Fatalf("february: %+v, want %+v", got, want)
	}
	// The very first instant of February counts January's totals as the base.
	if got := at(feb1); got != want {
		t.Fatalf("feb 1 00:00: %+v", got)
	}
	// Still January (last nanosecond): the base is the end of December (nothing):
	// 0 → positive is +100%.
	got = at(time.Date(2026, 1, 31, 23, 59, 59, 999_999_999, time.UTC))
	if got.AgentGrowth != 100 || got.RevenueGrowth != 100 || got.InteractionGrowth != 100 {
		t.Fatalf("january: %+v", got)
	}
	// ... and each says so ("New" on the dashboard, not "+100%").
	if !got.AgentNew || !got.RevenueNew || !got.InteractionNew {
		t.Fatalf("january, not new: %+v", got)
	}
	// A user with nothing: zeros, 0 → 0 is 0%.
	if s, _ := readmodel.NewStore(pool, nil).Stats(ctx, "nobody"); s != (readmodel.Stats{}) {
		t.Fatalf("nobody: %+v", s)
	}
	// Negative growth: an agent deleted this month (the catalog has no delete
	// yet; the read model already understands agent.deleted).
	apply(t, pool, p,
		events.Received{ID: "del1", Topic: readmodel.TopicCatalog, Type: readmodel.TypeAgentDeleted, Time: feb1,
			Payload: []byte(`{"agentId":"a1","ownerUid":"alice","occurredAt":"2026-02-02T00:00:00Z"}`)},
		events.Received{ID: "del2", Topic: readmodel.TopicCatalog, Type: readmodel.TypeAgentDeleted, Time: feb1,
			Payload: []byte(`{"agentId":"a3","ownerUid":"alice","occurredAt":"2026-02-02T00:00:00Z"}`)},
	)
	got = at(time.Date(2026, 2, 14, 12, 0, 0, 0, time.UTC))
	if got.AgentCount != 1 || got.AgentGrowth != -50 {
		t.Fatalf("after deletes: %+v", got)
	}
	// Ownership: bob sees only his own.
	if s, _ := readmodel.NewStore(pool, func() time.Time { return feb1 }).Stats(ctx, "bob"); s.AgentCount != 1 || s.TotalRevenue != 100 || s.TotalInteractions != 1 {
		t.Fatalf("bob: %+v", s)
	}
	// The interaction shows as a response with its document references.
	feed, _ := readmodel.NewStore(pool, nil).Activities(ctx, "bob", 20)
	found := false
	for _, a := range feed {
		if a.ActivityType == "response" {
			found = true
			if a.Metadata.DocumentReferences == nil || *a.Metadata.DocumentReferences != "Syllabus, Notes" || a.Description != "Bob's answered a question" {
				t.Fatalf("response: %+v", a)
			}
		}
	}
	if !found {
		t.Fatalf("no response activity: %+v", feed)
	}
}

func TestActivitiesLimitAndOrder(t *testing.T) {
	pool := newDB(t)
	p := readmodel.NewProjector(readmodel.ProjectorConfig{})
	var evs []events.Received
	for i := range 25 {
		evs = append(evs, agentCreated(fmt.Sprintf("e%02d", i), fmt.Sprintf("a%02d", i), "alice", fmt.Sprintf("Agent %d", i), t0.Add(time.Duration(i)*time.Second)))
	}
	apply(t, pool, p, evs...)
	store := readmodel.NewStore(pool, nil)
	feed, err := store.Activities(context.Background(), "alice", 20)
	if err != nil || len(feed) != 20 || feed[0].Agent.Name != "Agent 24" || feed[19].Agent.Name != "Agent 5" {
		t.Fatalf("feed %d %v", len(feed), err)
	}
	for _, bad := range []int{0, -1, 51} {
		if _, err := store.Activities(context.Background(), "alice", bad); err != readmodel.ErrInvalidLimit {
			t.Fatalf("limit %d: %v", bad, err)
		}
	}
	if feed, _ := store.Activities(context.Background(), "bob", 20); feed == nil || len(feed) != 0 {
		t.Fatalf("bob: %#v", feed)
	}
}

func TestMalformedPayloadIsAnError(t *testing.T) {
	pool := newDB(t)
	p := readmodel.NewProjector(readmodel.ProjectorConfig{})
	bad := []events.Received{
		{ID: "x", Type: readmodel.TypeAgentCreated, Payload: []byte(`{not json`)},
		{ID: "y", Type: readmodel.TypeDocumentAdded, Payload: []byte(`{"name":"NoAgent"}`)},
		{ID: "z", Type: readmodel.TypeInteractionRecorded, Payload: []byte(`[]`)},
	}
	for _, e := range bad {
		err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error { return p.Handle(context.Background(), tx, e) })
		if err == nil {
			t.Errorf("%s: no error", e.Type)
		}
	}
	// Unknown types are fine (acknowledged).
	err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		return p.Handle(context.Background(), tx, events.Received{ID: "u", Type: "agentic.future.thing.v9", Payload: []byte(`garbage`)})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The usage payload is decoded as the generated eventsv1.InteractionRecorded:
// the producer's full message (tokens, cost, payer …) and the proto field
// names both project, and a payload without its ids is refused.
func TestInteractionRecordedIsTheGeneratedMessage(t *testing.T) {
	pool := newDB(t)
	p := readmodel.NewProjector(readmodel.ProjectorConfig{})
	ctx := context.Background()
	at := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	apply(t, pool, p,
		agentCreated("c1", "a1", "alice", "Math Tutor", at.Add(-time.Hour)),
		ev("x1", readmodel.TopicUsage, readmodel.TypeInteractionRecorded, at, &eventsv1.InteractionRecorded{
			InteractionId: "m1", AgentId: "a1", OwnerUid: "alice", AgentName: "Math Tutor", IconColor: "#10B981",
			DocumentReferences: []string{"Syllabus", "", "Notes"}, OccurredAt: ts(at), UserUid: "erin", PayerUid: "alice",
			Channel: "chat", ConversationId: "c9", Model: "sim-1", InputTokens: 700, OutputTokens: 112,
			CostMicros: 874, FeeMicros: 27, TotalMicros: 901, TransferId: "t1",
		}),
		// protojson also accepts the .proto names; a hand-written struct would not.
		events.Received{ID: "x2", Topic: readmodel.TopicUsage, Type: readmodel.TypeInteractionRecorded, Time: at,
			Payload: []byte(`{"interaction_id":"m2","agent_id":"a1","owner_uid":"alice","occurred_at":"2026-03-04T10:01:00Z","input_tokens":"5"}`)},
		// A re-applied event (same id) changes nothing.
		ev("x1", readmodel.TopicUsage, readmodel.TypeInteractionRecorded, at, &eventsv1.InteractionRecorded{
			InteractionId: "m1", AgentId: "a1", OwnerUid: "alice", OccurredAt: ts(at)}),
	)
	s, err := readmodel.NewStore(pool, func() time.Time { return at.Add(time.Hour) }).Stats(ctx, "alice")
	if err != nil || s.TotalInteractions != 2 {
		t.Fatalf("stats %+v %v", s, err)
	}
	feed, err := readmodel.NewStore(pool, nil).Activities(ctx, "alice", 20)
	if err != nil {
		t.Fatal(err)
	}
	var responses []readmodel.Activity
	for _, a := range feed {
		if a.ActivityType == "response" {
			responses = append(responses, a)
		}
	}
	if len(responses) != 2 {
		t.Fatalf("responses: %+v", feed)
	}
	// Newest first: x2 (10:01) has no references, x1 names its two documents.
	if responses[0].Metadata.DocumentReferences != nil || responses[1].Metadata.DocumentReferences == nil ||
		*responses[1].Metadata.DocumentReferences != "Syllabus, Notes" || responses[1].Description != "Math Tutor answered a question" {
		t.Fatalf("responses: %+v / %+v", responses[0], responses[1])
	}
	for _, payload := range []string{`{"agentId":"a1"}`, `{"ownerUid":"alice"}`, `{"agentId":"a1","ownerUid":"alice","inputTokens":"many"}`} {
		e := events.Received{ID: "bad", Type: readmodel.TypeInteractionRecorded, Payload: []byte(payload)}
		if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return p.Handle(ctx, tx, e) }); err == nil {
			t.Errorf("%s: no error", payload)
		}
	}
}

// TestPublishAndUnpublishAreActivities: the owner's feed says when an agent
// went on and off the marketplace (issue 27), once per event.
func TestPublishAndUnpublishAreActivities(t *testing.T) {
	pool := newDB(t)
	p := readmodel.NewProjector(readmodel.ProjectorConfig{})
	store := readmodel.NewStore(pool, func() time.Time { return t0.Add(time.Hour) })
	published := ev("p1", readmodel.TopicCatalog, readmodel.TypeAgentPublished, t0.Add(time.Minute), &eventsv1.AgentPublished{
		AgentId: "a1", OwnerUid: "alice", Name: "Tutor", IconColor: "#10B981", Slug: "tutor", OccurredAt: ts(t0.Add(time.Minute)),
	})
	apply(t, pool, p,
		agentCreated("e1", "a1", "alice", "Tutor", t0),
		published,
		published, // redelivered: no second activity
		ev("u1", readmodel.TopicCatalog, readmodel.TypeAgentUnpublished, t0.Add(2*time.Minute), &eventsv1.AgentUnpublished{
			AgentId: "a1", OwnerUid: "alice", Name: "Tutor", Slug: "tutor", OccurredAt: ts(t0.Add(2 * time.Minute)),
		}),
	)
	feed, err := store.Activities(context.Background(), "alice", 20)
	if err != nil || len(feed) != 3 {
		t.Fatalf("feed: %+v %v", feed, err)
	}
	if d := feed[0].Description; d != "Took Tutor off the marketplace" || feed[0].ActivityType != "update" {
		t.Fatalf("unpublish: %+v", feed[0])
	}
	if d := feed[1].Description; d != "Published Tutor on the marketplace" || feed[1].Metadata.Details == nil || *feed[1].Metadata.Details != "/marketplace/tutor" {
		t.Fatalf("publish: %+v", feed[1])
	}
	// A payload without its ids is an error (retried, then parked).
	err = pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		return p.Handle(context.Background(), tx, ev("p2", readmodel.TopicCatalog, readmodel.TypeAgentPublished, t0, &eventsv1.AgentPublished{Name: "x"}))
	})
	if err == nil {
		t.Fatal("published without ids: no error")
	}
}

// A creator's earnings from consumers' answers (issue 28) are revenue: they
// count towards Total Revenue like income, once per event, and belong to the
// creator, never to the consumer who paid.
func TestEarningsCreditedAreTheCreatorsRevenue(t *testing.T) {
	pool := newDB(t)
	p := readmodel.NewProjector(readmodel.ProjectorConfig{})
	ctx := context.Background()
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	earning := func(id string, micros int64) events.Received {
		return ev(id, readmodel.TopicWallet, readmodel.TypeEarningsCredited, at, &eventsv1.WalletEarningsCredited{
			CreatorUid: "carol", ConsumerUid: "dave", AgentId: "a1", AmountMicros: micros,
			MarkupMicros: micros, TransferId: "tr-" + id, OccurredAt: ts(at)})
	}
	e1 := earning("ec1", 1_234_567)
	apply(t, pool, p, e1, earning("ec2", 765_433), e1) // e1 delivered twice
	stats := func(uid string) readmodel.Stats {
		s, err := readmodel.NewStore(pool, func() time.Time { return at.Add(time.Hour) }).Stats(ctx, uid)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if got := stats("carol").TotalRevenue; got != 200 { // $2.00 in cents
		t.Fatalf("creator's revenue %d cents, want 200", got)
	}
	if got := stats("dave").TotalRevenue; got != 0 {
		t.Fatalf("consumer's revenue %d cents, want 0", got)
	}
}
