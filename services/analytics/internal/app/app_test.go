package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/analytics/readmodel"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/service/servicetest"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

func startKafka(t testing.TB) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.Ports(0), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3),
		kfake.SeedTopics(3, readmodel.Topics...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

type running struct {
	base  string
	dbURL string
}

// now is the clock of every test app: mid-February 2026.
var now = time.Date(2026, 2, 14, 12, 0, 0, 0, time.UTC)

func start(t testing.TB, brokers []string, dbURL, group string) running {
	t.Helper()
	app := servicetest.Start(t, func(ctx context.Context, ready servicetest.Ready) error {
		return Run(ctx, Config{
			Settings:             servicetest.Settings(dbURL, brokers, ready),
			ConsumerGroup:        group,
			Now:                  func() time.Time { return now },
			ConsumerRetryBackoff: 5 * time.Millisecond,
		}, nil)
	})
	return running{base: app.HTTP, dbURL: dbURL}
}

// producer publishes CloudEvents (binary mode) like the platform outbox relay.
type producer struct{ cl *kgo.Client }

func newProducer(t *testing.T, brokers []string) producer {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return producer{cl}
}

func (p producer) send(t *testing.T, topic, key, id, typ string, at time.Time, payload []byte) {
	t.Helper()
	r := &kgo.Record{Topic: topic, Key: []byte(key), Value: payload, Headers: []kgo.RecordHeader{
		{Key: "ce_specversion", Value: []byte("1.0")}, {Key: "ce_id", Value: []byte(id)},
		{Key: "ce_type", Value: []byte(typ)}, {Key: "ce_source", Value: []byte("/test")},
		{Key: "ce_subject", Value: []byte(key)}, {Key: "ce_time", Value: []byte(at.Format(time.RFC3339Nano))},
		{Key: "content-type", Value: []byte("application/json")},
	}}
	if err := p.cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

func (p producer) sendProto(t *testing.T, topic, key, id, typ string, at time.Time, m proto.Message) {
	t.Helper()
	b, err := protojson.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	p.send(t, topic, key, id, typ, at, b)
}

func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

type activityJSON struct {
	ID           string `json:"id"`
	ActivityType string `json:"activityType"`
	Description  string `json:"description"`
	CreatedAt    string `json:"createdAt"`
	Metadata     struct {
		Details            *string `json:"details"`
		DocumentReferences *string `json:"documentReferences"`
		FileType           *string `json:"fileType"`
	} `json:"metadata"`
	Agent struct {
		Name      string `json:"name"`
		IconColor string `json:"iconColor"`
	} `json:"agent"`
}

type statsJSON struct {
	AgentCount        int64   `json:"agentCount"`
	AgentGrowth       float64 `json:"agentGrowth"`
	TotalRevenue      int64   `json:"totalRevenue"`
	RevenueGrowth     float64 `json:"revenueGrowth"`
	TotalInteractions int64   `json:"totalInteractions"`
	InteractionGrowth float64 `json:"interactionGrowth"`
}

func activities(t *testing.T, r running, uid string) []activityJSON {
	t.Helper()
	code, body := get(t, r.base+"/api/activities", "token-"+uid)
	if code != 200 {
		t.Fatalf("activities: %d %s", code, body)
	}
	var out []activityJSON
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("activities body %q: %v", body, err)
	}
	return out
}

func stats(t *testing.T, r running, uid string) statsJSON {
	t.Helper()
	code, body := get(t, r.base+"/api/dashboard/stats", "token-"+uid)
	if code != 200 {
		t.Fatalf("stats: %d %s", code, body)
	}
	var out statsJSON
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

var waitOpts = []testwait.Option{testwait.Timeout(45 * time.Second), testwait.Every(100 * time.Millisecond)}

func count(t *testing.T, pool *pgxpool.Pool, q string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func connect(t *testing.T, url string) *pgxpool.Pool {
	pool, err := database.Connect(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func ts(t time.Time) *timestamppb.Timestamp { return timestamppb.New(t) }

// publishScenario publishes a mixed history on every topic, with the
// cross-topic reordering a real system can show: alice's document arrives
// before her agent exists, and an income before anything else.
func publishScenario(t *testing.T, p producer) {
	jan := time.Date(2026, 1, 20, 10, 0, 0, 0, time.UTC)
	feb := time.Date(2026, 2, 3, 10, 0, 0, 0, time.UTC)
	p.sendProto(t, readmodel.TopicWallet, "alice", "w1", readmodel.TypeIncomeCredited, jan, &eventsv1.WalletIncomeCredited{
		Uid: "alice", AmountMicros: 10_000_000, TransferId: "t1", OccurredAt: ts(jan)})
	p.sendProto(t, readmodel.TopicDocuments, "agent-a", "d1", readmodel.TypeDocumentAdded, feb.Add(time.Minute), &eventsv1.DocumentAdded{
		DocumentId: "doc1", AgentId: "agent-a", OwnerUid: "alice", Name: "Syllabus", FileType: "Google Docs", OccurredAt: ts(feb.Add(time.Minute))})
	p.sendProto(t, readmodel.TopicIdentity, "alice", "u1", "agentic.identity.user.onboarded.v1", jan, &eventsv1.UserOnboarded{Uid: "alice", Email: "alice@example.com"})
	p.sendProto(t, readmodel.TopicCatalog, "agent-a", "c1", readmodel.TypeAgentCreated, feb, &eventsv1.AgentCreated{
		AgentId: "agent-a", OwnerUid: "alice", Name: "Tutor", IconName: "ri-brain-line", IconColor: "#6767EC", Status: "active", OccurredAt: ts(feb)})
	p.sendProto(t, readmodel.TopicCatalog, "agent-b", "c2", readmodel.TypeAgentCreated, jan, &eventsv1.AgentCreated{
		AgentId: "agent-b", OwnerUid: "bob", Name: "Bob Bot", IconColor: "#EF4444", Status: "active", OccurredAt: ts(jan)})
	p.sendProto(t, readmodel.TopicCatalog, "agent-a", "c3", readmodel.TypeSubscriberActivated, feb.Add(2*time.Minute), &eventsv1.SubscriberActivated{
		AgentId: "agent-a", OwnerUid: "alice", AgentName: "Tutor", IconColor: "#6767EC", SubscriberId: "s1", Email: "erin@example.org", Name: "Erin E", Uid: "erin", SubscriberCount: 1, OccurredAt: ts(feb.Add(2 * time.Minute))})
	p.sendProto(t, readmodel.TopicCatalog, "agent-a", "c4", readmodel.TypeAgentUpdated, feb.Add(3*time.Minute), &eventsv1.AgentUpdated{
		AgentId: "agent-a", OwnerUid: "alice", Name: "Tutor", IconColor: "#6767EC", ChangedFields: []string{"instructions"}, Instructions: "Be kind", OccurredAt: ts(feb.Add(3 * time.Minute))})
	p.sendProto(t, readmodel.TopicWallet, "alice", "w2", readmodel.TypeIncomeCredited, feb, &eventsv1.WalletIncomeCredited{
		Uid: "alice", AmountMicros: 2_500_000, TransferId: "t2", OccurredAt: ts(feb)})
	p.sendProto(t, readmodel.TopicWallet, "alice", "w3", "agentic.wallet.deposit.credited.v1", feb, &eventsv1.WalletDepositCredited{Uid: "alice", AmountMicros: 99_000_000})
	p.send(t, readmodel.TopicUsage, "agent-a", "x1", readmodel.TypeInteractionRecorded, feb.Add(4*time.Minute),
		[]byte(`{"agentId":"agent-a","ownerUid":"alice","documentReferences":["Syllabus"],"occurredAt":"2026-02-03T10:04:00Z"}`))
	// Unknown type on a known topic, and a future service's event: ignored.
	p.send(t, readmodel.TopicDocuments, "agent-a", "f1", "agentic.documents.something.new.v1", feb, []byte(`{"whatever":1}`))
	// Last one: a marker telling the test the partitions were drained.
	p.sendProto(t, readmodel.TopicCatalog, "agent-b", "c-last", readmodel.TypeAgentStatusChanged, feb.Add(5*time.Minute), &eventsv1.AgentStatusChanged{
		AgentId: "agent-b", OwnerUid: "bob", Name: "Bob Bot", IconColor: "#EF4444", OldStatus: "active", NewStatus: "inactive", OccurredAt: ts(feb.Add(5 * time.Minute))})
}

const scenarioEvents = 12

func TestAnalyticsEndToEnd(t *testing.T) {
	brokers := startKafka(t)
	app := start(t, brokers, dbtest.NewURL(t, "analytics"), "analytics")
	pool := connect(t, app.dbURL)
	p := newProducer(t, brokers)

	// Auth and parameters before any data.
	if code, body := get(t, app.base+"/api/activities", ""); code != 401 || !strings.Contains(body, "unauthenticated") {
		t.Fatalf("no token: %d %s", code, body)
	}
	if code, _ := get(t, app.base+"/api/dashboard/stats", "bogus"); code != 401 {
		t.Fatalf("bad token: %d", code)
	}
	for _, q := range []string{"limit=0", "limit=51", "limit=abc", "limit=", "limit=1.5", "limit=-3", "limit=2&limit=3"} {
		code, body := get(t, app.base+"/api/activities?"+q, "token-alice")
		if code != 400 || !strings.Contains(body, `"invalid_query"`) {
			t.Fatalf("?%s: %d %s", q, code, body)
		}
	}
	if got := activities(t, app, "alice"); len(got) != 0 {
		t.Fatalf("new user feed: %+v", got)
	}
	if code, body := get(t, app.base+"/api/activities", "token-alice"); body != "[]\n" {
		t.Fatalf("empty feed body: %d %q", code, body)
	}
	if s := stats(t, app, "alice"); s != (statsJSON{}) {
		t.Fatalf("new user stats: %+v", s)
	}
	if code, body := get(t, app.base+"/api/dashboard/stats", "token-alice"); !strings.Contains(body, `"agentGrowth":0`) {
		t.Fatalf("stats body: %d %s", code, body)
	}

	publishScenario(t, p)
	// A duplicate (same ce_id re-delivered) and a poison message.
	jan := time.Date(2026, 1, 20, 10, 0, 0, 0, time.UTC)
	p.sendProto(t, readmodel.TopicWallet, "alice", "w1", readmodel.TypeIncomeCredited, jan, &eventsv1.WalletIncomeCredited{
		Uid: "alice", AmountMicros: 10_000_000, TransferId: "t1", OccurredAt: ts(jan)})
	p.send(t, readmodel.TopicCatalog, "agent-a", "poison", readmodel.TypeAgentCreated, jan, []byte(`{this is not json`))
	p.sendProto(t, readmodel.TopicCatalog, "agent-a", "after-poison", readmodel.TypeAgentStatusChanged, jan.Add(24*time.Hour*30), &eventsv1.AgentStatusChanged{
		AgentId: "agent-a", OwnerUid: "alice", Name: "Tutor", IconColor: "#6767EC", OldStatus: "active", NewStatus: "inactive",
		OccurredAt: ts(time.Date(2026, 2, 3, 10, 6, 0, 0, time.UTC))})

	testwait.Until(t, "all events settled", func() bool {
		return count(t, pool, `SELECT count(*) FROM processed_events WHERE consumer_group='analytics'`) == scenarioEvents+1 &&
			count(t, pool, `SELECT count(*) FROM parked_events`) == 1
	}, waitOpts...)
	if n := count(t, pool, `SELECT count(*) FROM parked_events WHERE event_id='poison' AND error LIKE '%decode%'`); n != 1 {
		t.Fatalf("poison not parked with its error")
	}

	feed := activities(t, app, "alice")
	var types, descs []string
	for _, a := range feed {
		types = append(types, a.ActivityType)
		descs = append(descs, a.Description)
		if a.Agent.Name != "Tutor" || a.Agent.IconColor != "#6767EC" {
			t.Fatalf("agent of %+v", a)
		}
	}
	wantTypes := []string{"update", "response", "update", "subscription", "upload", "create"}
	wantDescs := []string{"Tutor is now inactive", "Tutor answered a question", "Updated the instructions of Tutor",
		"Erin E subscribed to Tutor", `Document "Syllabus" added to Tutor`, "Created agent Tutor"}
	if !reflect.DeepEqual(types, wantTypes) || !reflect.DeepEqual(descs, wantDescs) {
		t.Fatalf("feed:\n%v\n%v", types, descs)
	}
	if ft := feed[4].Metadata.FileType; ft == nil || *ft != "Google Docs" {
		t.Fatalf("upload metadata: %+v", feed[4].Metadata)
	}
	if refs := feed[1].Metadata.DocumentReferences; refs == nil || *refs != "Syllabus" {
		t.Fatalf("response metadata: %+v", feed[1].Metadata)
	}
	if feed[5].CreatedAt != "2026-02-03T10:00:00Z" {
		t.Fatalf("createdAt %q", feed[5].CreatedAt)
	}
	code, body := get(t, app.base+"/api/activities?limit=2", "token-alice")
	var two []activityJSON
	_ = json.Unmarshal([]byte(body), &two)
	if code != 200 || len(two) != 2 || two[0].ID != feed[0].ID {
		t.Fatalf("limit=2: %d %s", code, body)
	}

	// Duplicate income applied once: $12.50 total, $10.00 at the end of January.
	want := statsJSON{AgentCount: 1, AgentGrowth: 100, TotalRevenue: 1250, RevenueGrowth: 25, TotalInteractions: 1, InteractionGrowth: 100}
	if s := stats(t, app, "alice"); s != want {
		t.Fatalf("alice stats: %+v, want %+v", s, want)
	}
	// Ownership: bob sees his agent only.
	if s := stats(t, app, "bob"); s != (statsJSON{AgentCount: 1, AgentGrowth: 0}) {
		t.Fatalf("bob stats: %+v", s)
	}
	bob := activities(t, app, "bob")
	if len(bob) != 2 || bob[0].Agent.Name != "Bob Bot" || bob[1].Description != "Created agent Bob Bot" {
		t.Fatalf("bob feed: %+v", bob)
	}
	if got := activities(t, app, "mallory"); len(got) != 0 {
		t.Fatalf("mallory: %+v", got)
	}

	// Metrics: lag gauge and freshness histogram are exported.
	_, metrics := get(t, app.base+"/metrics", "")
	for _, m := range []string{"events_consumer_lag{group=\"analytics\"}", "analytics_event_freshness_seconds_bucket", "events_parked_total", "events_duplicates_total"} {
		if !strings.Contains(metrics, m) {
			t.Errorf("metric %s missing", m)
		}
	}

	// Replay: a fresh consumer group into an empty database B rebuilds the
	// same read models from the start of every topic.
	replay := start(t, brokers, dbtest.NewURL(t, "analytics"), "analytics-replay")
	poolB := connect(t, replay.dbURL)
	testwait.Until(t, "replay settled", func() bool {
		return count(t, poolB, `SELECT count(*) FROM processed_events`) == scenarioEvents+1 &&
			count(t, poolB, `SELECT count(*) FROM parked_events`) == 1
	}, waitOpts...)
	a, b := dumpTables(t, pool), dumpTables(t, poolB)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("replayed read models differ:\nA=%v\nB=%v", a, b)
	}
	if !reflect.DeepEqual(activities(t, app, "alice"), activities(t, replay, "alice")) || stats(t, replay, "alice") != want {
		t.Fatal("replayed API answers differ")
	}
}

func dumpTables(t *testing.T, pool *pgxpool.Pool) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, table := range []string{"agents", "activities", "revenue_entries", "interactions", "spend_entries"} {
		rows, err := pool.Query(context.Background(), fmt.Sprintf(`SELECT to_jsonb(x)::text FROM %s x ORDER BY 1`, table))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out[table] = append(out[table], s)
		}
		rows.Close()
		if len(out[table]) == 0 {
			t.Fatalf("table %s is empty", table)
		}
	}
	return out
}

type agentUsageJSON struct {
	AgentID      string  `json:"agentId"`
	AgentName    string  `json:"agentName"`
	Amount       float64 `json:"amount"`
	Interactions int64   `json:"interactions"`
}

type usageJSON struct {
	From  string  `json:"from"`
	To    string  `json:"to"`
	Total float64 `json:"total"`
	Days  []struct {
		Date         string           `json:"date"`
		Total        float64          `json:"total"`
		Interactions int64            `json:"interactions"`
		Agents       []agentUsageJSON `json:"agents"`
	} `json:"days"`
	Agents []agentUsageJSON `json:"agents"`
}

func usage(t *testing.T, r running, uid, query string) usageJSON {
	t.Helper()
	code, body := get(t, r.base+"/api/usage"+query, "token-"+uid)
	if code != 200 {
		t.Fatalf("usage%s: %d %s", query, code, body)
	}
	var out usageJSON
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("usage body %q: %v", body, err)
	}
	return out
}

// TestUsageEndToEnd: usage and fee events through Kafka into GET /api/usage
// (dollars, a continuous axis of days, grouping, only the caller's spend,
// duplicates counted once, range validation).
func TestUsageEndToEnd(t *testing.T) {
	brokers := startKafka(t)
	app := start(t, brokers, dbtest.NewURL(t, "analytics"), "analytics")
	pool := connect(t, app.dbURL)
	p := newProducer(t, brokers)

	if code, body := get(t, app.base+"/api/usage", ""); code != 401 || !strings.Contains(body, "unauthenticated") {
		t.Fatalf("no token: %d %s", code, body)
	}
	for q, want := range map[string]string{
		"?from=2025-01-01&to=2026-02-14": `{"error":"invalid_range","message":"the range must be at most 366 days"}`,
		"?from=2025-02-13":               `{"error":"invalid_range","message":"the range must be at most 366 days"}`,
		"?from=2026-02-15":               `{"error":"invalid_range","message":"from must not be after to"}`,
		"?from=14.02.2026":               `{"error":"invalid_range","message":"from must be a date (YYYY-MM-DD)"}`,
		"?to=2026-02-30":                 `{"error":"invalid_range","message":"to must be a date (YYYY-MM-DD)"}`,
		"?to=2026-02-01&to=2026-02-02":   `{"error":"invalid_range","message":"to must be given once"}`,
		"?groupBy=month":                 `{"error":"invalid_query","message":"groupBy must be day or agent"}`,
	} {
		code, body := get(t, app.base+"/api/usage"+q, "token-alice")
		if code != 400 || strings.TrimSpace(body) != want {
			t.Fatalf("%s: %d %s", q, code, body)
		}
	}
	// A new user: 30 days of zeros ending today (the app's clock: 14 February).
	empty := usage(t, app, "alice", "")
	if empty.From != "2026-01-16" || empty.To != "2026-02-14" || len(empty.Days) != 30 || empty.Total != 0 ||
		empty.Agents == nil || len(empty.Agents) != 0 || empty.Days[0].Date != "2026-01-16" || empty.Days[0].Agents == nil {
		t.Fatalf("empty usage: %+v", empty)
	}
	if _, body := get(t, app.base+"/api/usage?from=2026-02-14", "token-alice"); body != `{"from":"2026-02-14","to":"2026-02-14","total":0,"fees":0,"days":[{"date":"2026-02-14","total":0,"interactions":0,"agents":[]}],"agents":[]}`+"\n" {
		t.Fatalf("empty body: %s", body)
	}

	feb12 := time.Date(2026, 2, 12, 15, 0, 0, 0, time.UTC)
	feb13 := time.Date(2026, 2, 13, 8, 0, 0, 0, time.UTC)
	answer := func(id, interaction, agent, owner, payer string, micros int64, at time.Time) {
		p.sendProto(t, readmodel.TopicUsage, agent, id, readmodel.TypeInteractionRecorded, at, &eventsv1.InteractionRecorded{
			InteractionId: interaction, AgentId: agent, OwnerUid: owner, PayerUid: payer, AgentName: "name-" + agent,
			OccurredAt: ts(at), Channel: "chat", CostMicros: micros, TotalMicros: micros, TransferId: "tr-" + interaction})
	}
	p.sendProto(t, readmodel.TopicCatalog, "agent-a", "c1", readmodel.TypeAgentCreated, feb12.Add(-time.Hour), &eventsv1.AgentCreated{
		AgentId: "agent-a", OwnerUid: "alice", Name: "Math Tutor", IconColor: "#6767EC", Status: "active", OccurredAt: ts(feb12.Add(-time.Hour))})
	answer("u1", "m1", "agent-a", "alice", "alice", 1_234_567, feb12)
	answer("u2", "m2", "agent-a", "alice", "alice", 765_433, feb13)
	answer("u3", "m3", "agent-b", "alice", "alice", 500_000, feb13)
	answer("u1", "m1", "agent-a", "alice", "alice", 1_234_567, feb12)     // re-delivered (same ce_id)
	answer("u1-bis", "m1", "agent-a", "alice", "alice", 1_234_567, feb12) // re-published (new ce_id)
	answer("v1", "n1", "agent-z", "bob", "bob", 42_000_000, feb13)        // bob's
	p.sendProto(t, readmodel.TopicWallet, "alice", "f1", readmodel.TypeChargeDebited, feb13, &eventsv1.WalletCharged{
		Uid: "alice", AmountMicros: 10_000_000, TransferId: "tr-fee-1", Description: "Agentic User fee · Math Tutor · Feb 13 – Mar 14",
		Metadata: map[string]string{"kind": "agent_fee", "agent_id": "agent-a", "agent_name": "Math Tutor",
			"period_start": "2026-02-13T08:00:00Z", "period_end": "2026-03-15T08:00:00Z"}, OccurredAt: ts(feb13)})
	// (The metadata above is the wallet's own: services/wallet/internal/wallet/postgres_fees.go.)
	// The wallet's capture of an answer (already counted from the usage event).
	p.sendProto(t, readmodel.TopicWallet, "alice", "f2", readmodel.TypeChargeDebited, feb13, &eventsv1.WalletCharged{
		Uid: "alice", AmountMicros: 765_433, TransferId: "tr-m2", Metadata: map[string]string{"agentId": "agent-a", "messageId": "m2"}, OccurredAt: ts(feb13)})
	testwait.Until(t, "usage settled", func() bool {
		return count(t, pool, `SELECT count(*) FROM processed_events`) == 8
	}, waitOpts...)

	u := usage(t, app, "alice", "?from=2026-02-11&to=2026-02-14")
	if u.From != "2026-02-11" || u.To != "2026-02-14" || u.Total != 12.5 || len(u.Days) != 4 {
		t.Fatalf("usage: %+v", u)
	}
	wantDays := []struct {
		date   string
		total  float64
		n      int64
		agents []agentUsageJSON
	}{
		{"2026-02-11", 0, 0, []agentUsageJSON{}},
		{"2026-02-12", 1.234567, 1, []agentUsageJSON{{"agent-a", "Math Tutor", 1.234567, 1}}},
		{"2026-02-13", 11.265433, 2, []agentUsageJSON{{"agent-a", "Math Tutor", 10.765433, 1}, {"agent-b", "name-agent-b", 0.5, 1}}},
		{"2026-02-14", 0, 0, []agentUsageJSON{}},
	}
	for i, w := range wantDays {
		d := u.Days[i]
		if d.Date != w.date || d.Total != w.total || d.Interactions != w.n || !reflect.DeepEqual(d.Agents, w.agents) {
			t.Fatalf("day %d: %+v, want %+v", i, d, w)
		}
	}
	wantAgents := []agentUsageJSON{{"agent-a", "Math Tutor", 12, 2}, {"agent-b", "name-agent-b", 0.5, 1}}
	if !reflect.DeepEqual(u.Agents, wantAgents) {
		t.Fatalf("agents: %+v", u.Agents)
	}
	byAgent := usage(t, app, "alice", "?from=2026-02-11&to=2026-02-14&groupBy=agent")
	if !reflect.DeepEqual(byAgent.Agents, wantAgents) || byAgent.Total != 12.5 || len(byAgent.Days) != 4 ||
		byAgent.Days[2].Total != 11.265433 || len(byAgent.Days[2].Agents) != 0 {
		t.Fatalf("by agent: %+v", byAgent)
	}
	// Only the caller's own spend.
	if b := usage(t, app, "bob", ""); b.Total != 42 || len(b.Agents) != 1 || b.Agents[0].AgentID != "agent-z" {
		t.Fatalf("bob: %+v", b.Agents)
	}
	if m := usage(t, app, "mallory", ""); m.Total != 0 || len(m.Agents) != 0 {
		t.Fatalf("mallory: %+v", m)
	}
	// The dashboard's interaction count is unchanged by the fee and the duplicates.
	if s := stats(t, app, "alice"); s.TotalInteractions != 3 {
		t.Fatalf("stats: %+v", s)
	}
}
