package app

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	identityv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/identity/v1"
	"github.com/agentic-app/agentic/services/platform/events/topics"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

// publishEvent writes one CloudEvents (binary mode) record the way the
// platform relay does; payload is the protobuf JSON of msg, or raw when msg is
// a []byte.
func publishEvent(t *testing.T, brokers []string, topic, key, eventID, typ string, msg any) {
	t.Helper()
	var payload []byte
	switch m := msg.(type) {
	case []byte:
		payload = m
	case proto.Message:
		var err error
		if payload, err = protojson.Marshal(m); err != nil {
			t.Fatal(err)
		}
	}
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Topic: topic, Balancer: &kafka.Murmur2Balancer{},
		AllowAutoTopicCreation: true, BatchTimeout: 5 * time.Millisecond, RequiredAcks: kafka.RequireAll}
	defer w.Close()
	rec := kafka.Message{Key: []byte(key), Value: payload, Headers: []kafka.Header{
		{Key: "ce_specversion", Value: []byte("1.0")},
		{Key: "ce_id", Value: []byte(eventID)},
		{Key: "ce_type", Value: []byte(typ)},
		{Key: "ce_source", Value: []byte("/agentic/conversations")},
		{Key: "ce_subject", Value: []byte(key)},
		{Key: "ce_time", Value: []byte(time.Now().UTC().Format(time.RFC3339Nano))},
		{Key: "content-type", Value: []byte("application/json")},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for attempt := 0; ; attempt++ {
		if err := w.WriteMessages(ctx, rec); err == nil {
			return
		} else if attempt > 50 {
			t.Fatalf("publish: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func publishInteraction(t *testing.T, brokers []string, eventID string, m *eventsv1.InteractionRecorded) {
	t.Helper()
	publishEvent(t, brokers, topics.Usage, m.GetAgentId(), eventID, topics.UsageInteractionRecorded, m)
}

// sharedWith lists GET /api/agents/shared for token, by agent id, in order.
func sharedWith(t *testing.T, base, token string) ([]string, map[string]map[string]any) {
	t.Helper()
	r := do(t, "GET", base+"/api/agents/shared", token, "")
	if r.Status != 200 || r.Body == nil {
		t.Fatalf("shared for %s: %d %s", token, r.Status, r.Raw)
	}
	var ids []string
	byID := map[string]map[string]any{}
	for _, x := range r.List() {
		m := x.(map[string]any)
		ids = append(ids, m["id"].(string))
		byID[m["id"].(string)] = m
	}
	return ids, byID
}

func TestAccessSharedAgentsAndUsage(t *testing.T) {
	identityAddr, _ := startIdentity(t,
		&identityv1.User{Uid: "erin", Email: "erin@example.org", DisplayName: "Erin E"},
	)
	app := start(t, identityAddr)
	base := app.http

	// Alice is known from identity's event (so her name can be shown); bob is not.
	publishOnboarded(t, app.brokers, "evt-alice", &eventsv1.UserOnboarded{Uid: "alice", Email: "alice@example.com", DisplayName: "Alice A", OnboardedAt: timestamppb.Now()})
	testwait.Until(t, "alice known", func() bool {
		return strings.Contains(metricsText(t, base), `events_consumed_total{group="catalog",topic="agentic.identity.v1"} 1`)
	}, waitOpts...)

	a1 := createAgent(t, base, "token-alice", validAgent)["id"].(string)
	a2 := createAgent(t, base, "token-alice", validAgent)["id"].(string)
	b1 := createAgent(t, base, "token-bob", validAgent)["id"].(string)
	if r := do(t, "PATCH", base+"/api/agents/"+a1, "token-alice", `{"instructions":"Secret sauce","tags":["algebra"]}`); r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Raw)
	}
	invite := func(token, agent, email, wantStatus string) string {
		t.Helper()
		r := do(t, "POST", base+"/api/agents/"+agent+"/subscribers", token, `{"email":"`+email+`"}`)
		if r.Status != 201 || r.Obj()["status"] != wantStatus {
			t.Fatalf("invite %s to %s: %d %s", email, agent, r.Status, r.Raw)
		}
		return r.Obj()["id"].(string)
	}
	// Identity knows erin, yet every invitation starts invited (activating at
	// invite time would reveal that the address has an account).
	invite("token-alice", a1, "erin@example.org", "invited")
	invite("token-alice", a1, "frank@example.org", "invited")
	invite("token-alice", a1, "gina@example.org", "invited")
	removed := invite("token-alice", a2, "erin@example.org", "invited")
	if r := do(t, "DELETE", base+"/api/agents/"+a2+"/subscribers/"+removed, "token-alice", ""); r.Status != 204 {
		t.Fatalf("remove: %d %s", r.Status, r.Raw)
	}
	time.Sleep(5 * time.Millisecond) // b1's subscription is strictly newer
	invite("token-bob", b1, "erin@example.org", "invited")
	// Erin's next visit with a verified address activates both.
	if ids, _ := sharedWith(t, base, "token-erin~erin@example.org~verified"); len(ids) != 2 {
		t.Fatalf("erin's verified visit: shared %v", ids)
	}

	// --- gRPC CheckAccess ---
	conn, err := grpc.NewClient(app.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cl := catalogv1.NewCatalogServiceClient(conn)
	ctx := context.Background()
	for _, c := range []struct {
		name, agent, uid string
		role             string // "" = not allowed
		payer            string
	}{
		{"owner", a1, "alice", "owner", "alice"},
		{"active subscriber", a1, "erin", "subscriber", "alice"},
		{"active subscriber of another owner", b1, "erin", "subscriber", "bob"},
		{"invited (pending) subscriber", a1, "gina", "", ""},
		{"removed subscriber", a2, "erin", "", ""},
		{"stranger", a1, "bob", "", ""},
		{"owner of another agent", b1, "alice", "", ""},
		{"unknown agent", "00000000-0000-7000-8000-000000000000", "alice", "", ""},
		{"not a uuid", "junk", "alice", "", ""},
	} {
		res, err := cl.CheckAccess(ctx, &catalogv1.CheckAccessRequest{AgentId: c.agent, Uid: c.uid})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if c.role == "" {
			if res.GetAllowed() || res.GetRole() != "" || res.GetPayerUid() != "" || res.GetAgent() != nil {
				t.Errorf("%s: %v, want not allowed and nothing else", c.name, res)
			}
			continue
		}
		if !res.GetAllowed() || res.GetRole() != c.role || res.GetPayerUid() != c.payer ||
			res.GetAgent().GetId() != c.agent || res.GetAgent().GetOwnerUid() != c.payer {
			t.Errorf("%s: %v", c.name, res)
		}
	}
	// The caller (conversations) needs the prompt: the agent is complete.
	if res, _ := cl.CheckAccess(ctx, &catalogv1.CheckAccessRequest{AgentId: a1, Uid: "erin"}); res.GetAgent().GetInstructions() != "Secret sauce" ||
		res.GetAgent().GetName() != "Math Tutor" || res.GetAgent().GetSubscribers() != 1 {
		t.Errorf("agent in CheckAccess = %v", res.GetAgent())
	}
	for _, req := range []*catalogv1.CheckAccessRequest{{Uid: "alice"}, {AgentId: a1}, {}, {AgentId: " ", Uid: "alice"}} {
		if _, err := cl.CheckAccess(ctx, req); status.Code(err) != codes.InvalidArgument {
			t.Errorf("CheckAccess(%v) = %v, want InvalidArgument", req, err)
		}
	}

	// --- gRPC FindAgentByEmail (the mail service's inbound routing) ---
	a1Email := do(t, "GET", base+"/api/agents/"+a1, "token-alice", "").Obj()["email"].(string)
	b1Email := do(t, "GET", base+"/api/agents/"+b1, "token-bob", "").Obj()["email"].(string)
	for _, c := range []struct{ email, want string }{
		{a1Email, a1},
		{strings.ToUpper(a1Email), a1}, // addresses are case-insensitive
		{"  " + b1Email + " ", b1},
	} {
		res, err := cl.FindAgentByEmail(ctx, &catalogv1.FindAgentByEmailRequest{Email: c.email})
		if err != nil || res.GetAgent().GetId() != c.want || res.GetAgent().GetEmail() != strings.ToLower(strings.TrimSpace(c.email)) {
			t.Errorf("FindAgentByEmail(%q) = %v, %v; want agent %s", c.email, res, err, c.want)
		}
	}
	// The complete agent (the mail service checks its owner and status).
	if res, _ := cl.FindAgentByEmail(ctx, &catalogv1.FindAgentByEmailRequest{Email: a1Email}); res.GetAgent().GetOwnerUid() != "alice" || res.GetAgent().GetStatus() != "active" {
		t.Errorf("FindAgentByEmail agent = %v", res.GetAgent())
	}
	for _, email := range []string{"nobody-aaaaaa@agents.agentic.local", "alice@example.com", "no-at-sign", strings.Repeat("x", 300) + "@x.test"} {
		if _, err := cl.FindAgentByEmail(ctx, &catalogv1.FindAgentByEmailRequest{Email: email}); status.Code(err) != codes.NotFound {
			t.Errorf("FindAgentByEmail(%q) = %v, want NotFound", email, err)
		}
	}
	for _, email := range []string{"", "   "} {
		if _, err := cl.FindAgentByEmail(ctx, &catalogv1.FindAgentByEmailRequest{Email: email}); status.Code(err) != codes.InvalidArgument {
			t.Errorf("FindAgentByEmail(%q) = %v, want InvalidArgument", email, err)
		}
	}

	// --- GET /api/agents/shared ---
	if r := do(t, "GET", base+"/api/agents/shared", "", ""); r.Status != 401 || r.Obj()["error"] != "unauthenticated" {
		t.Fatalf("no token: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "GET", base+"/api/agents/shared", "bad", ""); r.Status != 401 || r.Obj()["error"] != "invalid_token" {
		t.Fatalf("bad token: %d %s", r.Status, r.Raw)
	}
	ids, byID := sharedWith(t, base, "token-erin")
	if strings.Join(ids, ",") != b1+","+a1 {
		t.Fatalf("erin's shared agents = %v, want [%s %s] (newest subscription first; removed a2 absent)", ids, b1, a1)
	}
	got := byID[a1]
	// Same shape as GET /api/agents items, plus ownerName/sharedAt/interactions.
	own := do(t, "GET", base+"/api/agents/"+a1, "token-alice", "").Obj()
	var ownKeys, sharedKeys []string
	for k := range own {
		ownKeys = append(ownKeys, k)
	}
	for k := range got {
		if k != "ownerName" && k != "sharedAt" && k != "interactions" {
			sharedKeys = append(sharedKeys, k)
		}
	}
	sort.Strings(ownKeys)
	sort.Strings(sharedKeys)
	if strings.Join(ownKeys, ",") != strings.Join(sharedKeys, ",") {
		t.Errorf("shape: shared %v, owner's %v", sharedKeys, ownKeys)
	}
	for k, v := range map[string]any{
		// userId is the owner's display name, never the uid (issue 30 item 8).
		"id": a1, "userId": "Alice A", "name": "Math Tutor", "description": "Helps with algebra homework", "category": "Education",
		"status": "active", "isPublic": false, "iconName": "ri-brain-line", "iconColor": "#10B981",
		"createdAt": own["createdAt"], "updatedAt": own["updatedAt"], "ownerName": "Alice A", "interactions": float64(0),
		// Owner-only, withheld.
		"instructions": "", "email": "", "subscribers": float64(0), "totalInteractions": float64(0),
		"subscriberMonthlyCapCents": nil,
	} {
		if got[k] != v {
			t.Errorf("shared a1 %s = %v, want %v", k, got[k], v)
		}
	}
	if tags, _ := got["tags"].([]any); len(tags) != 1 || tags[0] != "algebra" {
		t.Errorf("tags = %v", got["tags"])
	}
	if sa, err := time.Parse(time.RFC3339Nano, got["sharedAt"].(string)); err != nil || time.Since(sa) > time.Minute {
		t.Errorf("sharedAt = %v", got["sharedAt"])
	}
	if _, ok := byID[b1]["ownerName"]; ok || byID[b1]["userId"] != "" {
		t.Errorf("bob's name is unknown, ownerName should be omitted and userId empty: %v", byID[b1])
	}
	if v, ok := got["subscriberMonthlyCapCents"]; !ok || v != nil {
		t.Errorf("shared subscriberMonthlyCapCents = %v (present %v), want null", v, ok)
	}
	// The owners' uids appear nowhere in the answer, even with a default cap
	// set (the owner's setting is withheld too).
	if r := do(t, "PATCH", base+"/api/agents/"+a1, "token-alice", `{"subscriberMonthlyCapCents":1234}`); r.Status != 200 {
		t.Fatalf("set cap: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "GET", base+"/api/agents/shared", "token-erin", ""); r.Status != 200 ||
		strings.Contains(r.Raw, `"alice"`) || strings.Contains(r.Raw, `"bob"`) || strings.Contains(r.Raw, "1234") {
		t.Errorf("shared answer leaks an owner's uid or cap: %s", r.Raw)
	}
	// Invited only (frank), owner (alice, bob), stranger: nothing.
	for _, tok := range []string{"token-frank", "token-alice", "token-bob", "token-zoe"} {
		if r := do(t, "GET", base+"/api/agents/shared", tok, ""); r.Status != 200 || r.Raw != "[]\n" {
			t.Errorf("%s: %d %q", tok, r.Status, r.Raw)
		}
	}
	// Frank signs up (unverified): still nothing; once his address is
	// verified, his next visit shares it with him.
	publishOnboarded(t, app.brokers, "evt-frank", &eventsv1.UserOnboarded{Uid: "frank", Email: "frank@example.org", Username: "frankie"})
	testwait.Until(t, "frank known", func() bool {
		return strings.Contains(metricsText(t, base), `events_consumed_total{group="catalog",topic="agentic.identity.v1"} 2`)
	}, waitOpts...)
	if ids, _ := sharedWith(t, base, "token-frank~frank@example.org"); len(ids) != 0 {
		t.Fatalf("unverified frank sees %v", ids)
	}
	if ids, _ := sharedWith(t, base, "token-frank~frank@example.org~verified"); len(ids) != 1 || ids[0] != a1 {
		t.Fatalf("verified frank sees %v", ids)
	}
	// The route is not the {id} route: other methods are 405, not 404.
	for _, m := range []string{"PATCH", "POST", "DELETE", "PUT"} {
		if r := do(t, m, base+"/api/agents/shared", "token-erin", `{}`); r.Status != 405 || r.Obj()["error"] != "method_not_allowed" {
			t.Errorf("%s /api/agents/shared: %d %s", m, r.Status, r.Raw)
		}
	}
	// A subscriber still cannot read or change the owner's agent.
	for _, rt := range []struct{ method, path, body string }{
		{"GET", "/api/agents/" + a1, ""},
		{"PATCH", "/api/agents/" + a1, `{"instructions":"mine"}`},
		{"GET", "/api/agents/" + a1 + "/subscribers", ""},
		{"POST", "/api/agents/" + a1 + "/subscribers", `{"email":"x@example.org"}`},
	} {
		if r := do(t, rt.method, base+rt.path, "token-erin", rt.body); r.Status != 404 || r.Obj()["error"] != "not_found" {
			t.Errorf("erin %s %s: %d %s", rt.method, rt.path, r.Status, r.Raw)
		}
	}

	// --- usage counters from agentic.usage.v1 ---
	now := timestamppb.Now()
	rec := func(id, agent, user string) *eventsv1.InteractionRecorded {
		return &eventsv1.InteractionRecorded{InteractionId: id, AgentId: agent, OwnerUid: "alice", AgentName: "Math Tutor",
			UserUid: user, PayerUid: "alice", Channel: "chat", Model: "sim", InputTokens: 700, OutputTokens: 112,
			CostMicros: 874, FeeMicros: 27, TotalMicros: 901, OccurredAt: now}
	}
	publishInteraction(t, app.brokers, "u1", rec("m1", a1, "erin"))
	publishInteraction(t, app.brokers, "u1", rec("m1", a1, "erin")) // re-delivery: same event id
	publishInteraction(t, app.brokers, "u2", rec("m2", a1, "alice"))
	publishInteraction(t, app.brokers, "u3", rec("m3", a1, "erin"))
	publishInteraction(t, app.brokers, "u3b", rec("m3", a1, "erin")) // same answer under a second event id
	publishInteraction(t, app.brokers, "u4", rec("m4", "00000000-0000-7000-8000-00000000dead", "erin"))
	publishInteraction(t, app.brokers, "u5", rec("m5", b1, "erin"))
	publishInteraction(t, app.brokers, "u6", rec("m6", a1, "gina")) // invited only: the agent counts, no subscriber does
	publishEvent(t, app.brokers, topics.Usage, a1, "u7", "agentic.usage.something.else.v1", []byte(`{"x":1}`))
	testwait.Until(t, "usage events applied", func() bool {
		text := metricsText(t, base)
		return strings.Contains(text, `events_consumed_total{group="catalog-usage",topic="agentic.usage.v1"} 8`) &&
			strings.Contains(text, `events_duplicates_total{group="catalog-usage",topic="agentic.usage.v1"} 1`)
	}, waitOpts...)
	total := func(token, agent string) float64 {
		return do(t, "GET", base+"/api/agents/"+agent, token, "").Obj()["totalInteractions"].(float64)
	}
	if got := total("token-alice", a1); got != 4 { // m1, m2, m3, m6
		t.Errorf("a1 totalInteractions = %v, want 4", got)
	}
	if got := total("token-bob", b1); got != 1 {
		t.Errorf("b1 totalInteractions = %v, want 1", got)
	}
	if got := total("token-alice", a2); got != 0 {
		t.Errorf("a2 totalInteractions = %v, want 0", got)
	}
	subs := subscribersOf(t, base, a1)
	for email, want := range map[string]float64{"erin@example.org": 2, "frank@example.org": 0, "gina@example.org": 0} {
		if subs[email]["interactions"] != want {
			t.Errorf("%s interactions = %v, want %v", email, subs[email]["interactions"], want)
		}
	}
	_, byID = sharedWith(t, base, "token-erin")
	if byID[a1]["interactions"] != float64(2) || byID[b1]["interactions"] != float64(1) || byID[a1]["totalInteractions"] != float64(0) {
		t.Errorf("erin's shared view after usage: %v / %v", byID[a1], byID[b1])
	}
	if res, _ := cl.CheckAccess(ctx, &catalogv1.CheckAccessRequest{AgentId: a1, Uid: "alice"}); res.GetAgent().GetTotalInteractions() != 4 {
		t.Errorf("CheckAccess agent total = %d", res.GetAgent().GetTotalInteractions())
	}

	// A payload without agent_id is parked (after its retries), not counted,
	// and does not block the events behind it.
	publishEvent(t, app.brokers, topics.Usage, a1, "u8", topics.UsageInteractionRecorded, []byte(`{"interactionId":"m8","userUid":"erin"}`))
	publishInteraction(t, app.brokers, "u9", rec("m9", a1, "erin"))
	testwait.Until(t, "poison parked and next applied", func() bool {
		text := metricsText(t, base)
		return strings.Contains(text, `events_parked_total{group="catalog-usage",topic="agentic.usage.v1"} 1`) &&
			strings.Contains(text, `events_consumed_total{group="catalog-usage",topic="agentic.usage.v1"} 9`)
	}, waitOpts...)
	if got := total("token-alice", a1); got != 5 {
		t.Errorf("a1 totalInteractions after poison = %v, want 5", got)
	}
}
