package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
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
	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/platform/apitest"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
	"github.com/agentic-app/agentic/services/platform/events/topics"
	"github.com/agentic-app/agentic/services/platform/service/servicetest"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

// fakeIdentity is identity's gRPC API with a fixed set of users.
type fakeIdentity struct {
	identityv1.UnimplementedIdentityServiceServer
	mu    sync.Mutex
	users map[string]*identityv1.User // by lower-case e-mail
	calls int
}

func (f *fakeIdentity) FindUsersByEmail(_ context.Context, req *identityv1.FindUsersByEmailRequest) (*identityv1.FindUsersByEmailResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	var out []*identityv1.User
	for _, e := range req.GetEmails() {
		if u, ok := f.users[strings.ToLower(e)]; ok {
			out = append(out, u)
		}
	}
	return &identityv1.FindUsersByEmailResponse{Users: out}, nil
}

func startIdentity(t testing.TB, users ...*identityv1.User) (string, *fakeIdentity) {
	t.Helper()
	f := &fakeIdentity{users: map[string]*identityv1.User{}}
	for _, u := range users {
		f.users[strings.ToLower(u.GetEmail())] = u
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	identityv1.RegisterIdentityServiceServer(srv, f)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return ln.Addr().String(), f
}

type running struct {
	http    string
	grpc    string
	brokers []string
}

func start(t testing.TB, identityAddr string) running {
	t.Helper()
	return startWith(t, identityAddr, nil)
}

// startWith starts the service with the test configuration, changed by
// configure when not nil (quotas). Redis is the real one at 127.0.0.1:6379;
// the quota keys are per agent id, which no other test shares.
func startWith(t testing.TB, identityAddr string, configure func(*Config)) running {
	t.Helper()
	dbURL := dbtest.NewURL(t, "catalog")
	brokers := eventstest.StartKafka(t)
	cfg := Config{
		Settings:         servicetest.Settings(dbURL, brokers, nil),
		AgentEmailDomain: "agents.test",
		IdentityGRPCAddr: identityAddr,
		RedisURL:         DefaultRedisURL,
	}
	if configure != nil {
		configure(&cfg)
	}
	app := servicetest.Start(t, func(ctx context.Context, ready servicetest.Ready) error {
		cfg.Ready = ready
		return Run(ctx, cfg, nil)
	})
	return running{http: app.HTTP, grpc: app.GRPC, brokers: brokers}
}

type resp = apitest.Response

func do(t *testing.T, method, url, token, body string) resp {
	t.Helper()
	return apitest.Do(t, method, url, token, body)
}

const validAgent = `{"name":"Math Tutor","description":"Helps with algebra homework","category":"Education",
	"isPublic":false,"iconName":"ri-brain-line","iconColor":"#10B981","userId":"someone-else","instructions":"","tags":[]}`

func createAgent(t *testing.T, base, token, body string) map[string]any {
	t.Helper()
	r := do(t, "POST", base+"/api/agents", token, body)
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	return r.Obj()
}

var emailPattern = regexp.MustCompile(`^math-tutor-[a-z2-9]{6}@agents\.test$`)

func TestAgentsHTTP(t *testing.T) {
	app := start(t, "")
	base := app.http

	if r := do(t, "GET", base+"/readyz", "", ""); r.Status != 200 {
		t.Fatalf("readyz: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "GET", base+"/api/agents", "", ""); r.Status != 401 || r.Obj()["error"] != "unauthenticated" {
		t.Fatalf("no token: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "GET", base+"/api/agents", "token-alice", ""); r.Status != 200 || r.Raw != "[]\n" {
		t.Fatalf("empty list: %d %q", r.Status, r.Raw)
	}

	// Create: owner from the token, defaults, e-mail, timestamps.
	a := createAgent(t, base, "token-alice", validAgent)
	want := map[string]any{
		"userId": "alice", "name": "Math Tutor", "description": "Helps with algebra homework", "category": "Education",
		"status": "active", "isPublic": false, "iconName": "ri-brain-line", "iconColor": "#10B981",
		"instructions": "", "subscribers": float64(0), "totalInteractions": float64(0),
	}
	for k, v := range want {
		if a[k] != v {
			t.Errorf("created %s = %v, want %v", k, a[k], v)
		}
	}
	if tags, ok := a["tags"].([]any); !ok || len(tags) != 0 {
		t.Errorf("tags = %v", a["tags"])
	}
	if !emailPattern.MatchString(a["email"].(string)) {
		t.Errorf("email = %v", a["email"])
	}
	for _, k := range []string{"createdAt", "updatedAt"} {
		if _, err := time.Parse(time.RFC3339Nano, a[k].(string)); err != nil {
			t.Errorf("%s = %v", k, a[k])
		}
	}
	id := a["id"].(string)

	// Defaults for missing icon/colour; tags normalised; trimmed strings.
	b := createAgent(t, base, "token-alice", `{"name":"  Écrivain Pro ","description":"Writes ISO 9001 documents","category":" Compliance ",
		"tags":[" iso ","", "iso", "docs", "  "]}`)
	if b["iconName"] != "ri-robot-line" || b["iconColor"] != "#FF3E00" || b["name"] != "Écrivain Pro" || b["category"] != "Compliance" {
		t.Fatalf("defaults: %v", b)
	}
	if fmt.Sprint(b["tags"]) != "[iso docs]" {
		t.Fatalf("tags = %v", b["tags"])
	}
	if !strings.HasPrefix(b["email"].(string), "ecrivain-pro-") {
		t.Fatalf("email = %v", b["email"])
	}

	// List: the caller's agents, newest first.
	l := do(t, "GET", base+"/api/agents", "token-alice", "").List()
	if len(l) != 2 || l[0].(map[string]any)["id"] != b["id"] || l[1].(map[string]any)["id"] != id {
		t.Fatalf("list = %v", l)
	}
	if r := do(t, "GET", base+"/api/agents", "token-bob", ""); len(r.List()) != 0 {
		t.Fatalf("bob sees %v", r.Raw)
	}
	if r := do(t, "GET", base+"/api/agents/"+id, "token-alice", ""); r.Status != 200 || r.Obj()["id"] != id || r.Obj()["email"] != a["email"] {
		t.Fatalf("get: %d %s", r.Status, r.Raw)
	}

	// Validation: every message, first message in "message", all in "fields".
	long := func(n int) string { return strings.Repeat("x", n) }
	cases := []struct {
		body, field, msg string
	}{
		{`{"name":"A","description":"long enough text","category":"c"}`, "name", "Name must be at least 2 characters"},
		{`{"name":" A ","description":"long enough text","category":"c"}`, "name", "Name must be at least 2 characters"},
		{`{"name":"` + long(101) + `","description":"long enough text","category":"c"}`, "name", "Name must be at most 100 characters"},
		{`{"name":"Ab","description":"too short","category":"c"}`, "description", "Description must be at least 10 characters"},
		{`{"name":"Ab","description":"` + long(1001) + `","category":"c"}`, "description", "Description must be at most 1000 characters"},
		{`{"name":"Ab","description":"long enough text","category":"  "}`, "category", "Category is required"},
		{`{"name":"Ab","description":"long enough text"}`, "category", "Category is required"},
		{`{"name":"Ab","description":"long enough text","category":"` + long(51) + `"}`, "category", "Category must be at most 50 characters"},
		{`{"name":"Ab","description":"long enough text","category":"c","isPublic":true}`, "isPublic", "Public agents are coming soon"},
		{`{"name":"Ab","description":"long enough text","category":"c","iconName":"ri-rocket-line"}`, "iconName", "Icon must be one of the available icons"},
		{`{"name":"Ab","description":"long enough text","category":"c","iconColor":"#000000"}`, "iconColor", "Colour must be one of the available colours"},
		{`{"name":"Ab","description":"long enough text","category":"c","instructions":"` + long(100001) + `"}`, "instructions", "Instructions must be at most 100000 characters"},
		{`{"name":"Ab","description":"long enough text","category":"c","tags":["` + long(41) + `"]}`, "tags", "Each tag must be at most 40 characters"},
		{`{"name":"Ab","description":"long enough text","category":"c","tags":[` + manyTags(21) + `]}`, "tags", "An agent can have at most 20 tags"},
	}
	for _, c := range cases {
		r := do(t, "POST", base+"/api/agents", "token-alice", c.body)
		fields, _ := r.Obj()["fields"].(map[string]any)
		if r.Status != 400 || r.Obj()["error"] != "validation_failed" || r.Obj()["message"] != c.msg || fields[c.field] != c.msg {
			t.Errorf("%s: %d %s", c.msg, r.Status, truncate(r.Raw))
		}
	}
	// Several problems: message is the first, fields has each.
	r := do(t, "POST", base+"/api/agents", "token-alice", `{"name":"A","description":"short","isPublic":true}`)
	fields, _ := r.Obj()["fields"].(map[string]any)
	if r.Status != 400 || r.Obj()["message"] != "Name must be at least 2 characters" || len(fields) != 4 ||
		fields["description"] != "Description must be at least 10 characters" || fields["category"] != "Category is required" ||
		fields["isPublic"] != "Public agents are coming soon" {
		t.Fatalf("many problems: %d %s", r.Status, r.Raw)
	}

	// Bad input is 4xx JSON, never 5xx.
	bad := []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"POST", "/api/agents", `{"name":`, 400, "invalid_json"},
		{"POST", "/api/agents", `not json`, 400, "invalid_json"},
		{"POST", "/api/agents", `[]`, 400, "invalid_json"},
		{"POST", "/api/agents", `{"name":5}`, 400, "invalid_json"},
		{"POST", "/api/agents", `{"tags":"a,b"}`, 400, "invalid_json"},
		{"POST", "/api/agents", `{"isPublic":"no"}`, 400, "invalid_json"},
		{"POST", "/api/agents", ``, 400, "invalid_json"},
		{"POST", "/api/agents", `{} {}`, 400, "invalid_json"},
		{"POST", "/api/agents", `{"name":"` + long(1<<20) + `"}`, 413, "body_too_large"},
		{"PATCH", "/api/agents/" + id, `{"status":1}`, 400, "invalid_json"},
		{"PATCH", "/api/agents/" + id, `{"tags":[1]}`, 400, "invalid_json"},
		{"PATCH", "/api/agents/" + id, `{"isPublic":"true"}`, 400, "invalid_json"},
		{"PATCH", "/api/agents/" + id, `{`, 400, "invalid_json"},
		{"POST", "/api/agents/" + id + "/subscribers", `{"email":["a@b.co"]}`, 400, "invalid_json"},
		{"POST", "/api/agents/" + id + "/subscribers", `{"email":"nope"}`, 400, "validation_failed"},
		{"PUT", "/api/agents/" + id, `{}`, 405, "method_not_allowed"},
		{"DELETE", "/api/agents", ``, 405, "method_not_allowed"},
		{"GET", "/api/agents/" + id + "/elsewhere", ``, 404, "not_found"},
	}
	for _, c := range bad {
		r := do(t, c.method, base+c.path, "token-alice", c.body)
		if r.Status != c.status || r.Obj()["error"] != c.code {
			t.Errorf("%s %s %s: %d %s", c.method, c.path, truncate(c.body), r.Status, truncate(r.Raw))
		}
	}

	// PATCH: partial updates; unknown fields ignored; null = not given.
	r = do(t, "PATCH", base+"/api/agents/"+id, "token-alice", `{"instructions":"Use @Syllabus","unknown":1,"description":null}`)
	p := r.Obj()
	if r.Status != 200 || p["instructions"] != "Use @Syllabus" || p["description"] != "Helps with algebra homework" ||
		p["status"] != "active" || p["name"] != "Math Tutor" || p["email"] != a["email"] {
		t.Fatalf("patch instructions: %d %s", r.Status, r.Raw)
	}
	if p["updatedAt"] == a["updatedAt"] || p["createdAt"] != a["createdAt"] {
		t.Fatalf("timestamps after patch: %v %v", p["createdAt"], p["updatedAt"])
	}
	r = do(t, "PATCH", base+"/api/agents/"+id, "token-alice", `{"status":"inactive","tags":["a"," b ","a",""],"description":"A new longer description","isPublic":false}`)
	p = r.Obj()
	if r.Status != 200 || p["status"] != "inactive" || fmt.Sprint(p["tags"]) != "[a b]" || p["description"] != "A new longer description" ||
		p["instructions"] != "Use @Syllabus" || p["isPublic"] != false {
		t.Fatalf("patch many: %d %s", r.Status, r.Raw)
	}
	// Rename, re-icon, re-colour (issue 29): checked like a create; the address stays.
	r = do(t, "PATCH", base+"/api/agents/"+id, "token-alice", `{"name":"  Algebra Coach ","iconName":"ri-brain-line","iconColor":"#10b981"}`)
	p = r.Obj()
	if r.Status != 200 || p["name"] != "Algebra Coach" || p["iconName"] != "ri-brain-line" || p["iconColor"] != "#10B981" ||
		p["email"] != a["email"] || p["status"] != "inactive" {
		t.Fatalf("rename: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "GET", base+"/api/agents/"+id, "token-alice", ""); r.Obj()["name"] != "Algebra Coach" || r.Obj()["iconColor"] != "#10B981" {
		t.Fatalf("rename not stored: %s", r.Raw)
	}
	for _, c := range []struct{ body, field, msg string }{
		{`{"name":" A "}`, "name", agents.MsgNameMin},
		{`{"iconName":"ri-nope"}`, "iconName", agents.MsgIcon},
		{`{"iconColor":"#123456"}`, "iconColor", agents.MsgColor},
		{`{"status":"archived"}`, "status", "Status must be one of active, inactive, pending"},
		{`{"isPublic":true}`, "isPublic", "Public agents are coming soon"},
		{`{"description":"short"}`, "description", "Description must be at least 10 characters"},
		{`{"tags":["` + long(41) + `"]}`, "tags", "Each tag must be at most 40 characters"},
	} {
		r := do(t, "PATCH", base+"/api/agents/"+id, "token-alice", c.body)
		fields, _ := r.Obj()["fields"].(map[string]any)
		if r.Status != 400 || r.Obj()["error"] != "validation_failed" || fields[c.field] != c.msg {
			t.Errorf("patch %s: %d %s", c.body, r.Status, r.Raw)
		}
	}
	if r := do(t, "GET", base+"/api/agents/"+id, "token-alice", ""); r.Obj()["status"] != "inactive" || r.Obj()["name"] != "Algebra Coach" {
		t.Fatalf("rejected patches changed the agent: %s", r.Raw)
	}
	// An empty PATCH changes nothing.
	if r := do(t, "PATCH", base+"/api/agents/"+id, "token-alice", ``); r.Status != 200 || r.Obj()["updatedAt"] != p["updatedAt"] {
		t.Fatalf("empty patch: %d %s", r.Status, r.Raw)
	}
}

func manyTags(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"tag%d"`, i)
	}
	return strings.Join(parts, ",")
}

func truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

func TestOwnershipEveryRouteIs404(t *testing.T) {
	app := start(t, "")
	base := app.http
	a := createAgent(t, base, "token-alice", validAgent)
	id := a["id"].(string)
	sub := do(t, "POST", base+"/api/agents/"+id+"/subscribers", "token-alice", `{"email":"carol@example.org"}`)
	if sub.Status != 201 {
		t.Fatalf("invite: %d %s", sub.Status, sub.Raw)
	}
	subID := sub.Obj()["id"].(string)

	for _, agentID := range []string{id, "00000000-0000-7000-8000-000000000000", "not-a-uuid"} {
		routes := []struct{ method, path, body string }{
			{"GET", "/api/agents/" + agentID, ""},
			{"PATCH", "/api/agents/" + agentID, `{"instructions":"mine now"}`},
			{"PATCH", "/api/agents/" + agentID, `{"status":"bogus"}`}, // 404 before validation
			{"GET", "/api/agents/" + agentID + "/subscribers", ""},
			{"POST", "/api/agents/" + agentID + "/subscribers", `{"email":"dave@example.org"}`},
			{"POST", "/api/agents/" + agentID + "/subscribers", `{"email":"invalid"}`},
			{"DELETE", "/api/agents/" + agentID + "/subscribers/" + subID, ""},
			{"DELETE", "/api/agents/" + agentID + "/subscribers/not-a-uuid", ""},
			{"POST", "/api/agents/" + agentID + "/subscribers/" + subID + "/resend-invitation", ""},
		}
		for _, rt := range routes {
			r := do(t, rt.method, base+rt.path, "token-bob", rt.body)
			if r.Status != 404 || r.Obj()["error"] != "not_found" || r.Obj()["message"] != "Agent not found" {
				t.Errorf("bob %s %s: %d %s", rt.method, rt.path, r.Status, r.Raw)
			}
		}
	}
	// Nothing changed for alice.
	if r := do(t, "GET", base+"/api/agents/"+id, "token-alice", ""); r.Obj()["instructions"] != "" {
		t.Fatalf("agent changed: %s", r.Raw)
	}
	if r := do(t, "GET", base+"/api/agents/"+id+"/subscribers", "token-alice", ""); len(r.List()) != 1 {
		t.Fatalf("subscribers changed: %s", r.Raw)
	}
	// Alice: unknown subscriber is 404 with its own message.
	for _, sid := range []string{"00000000-0000-7000-8000-000000000000", "nope"} {
		if r := do(t, "DELETE", base+"/api/agents/"+id+"/subscribers/"+sid, "token-alice", ""); r.Status != 404 || r.Obj()["message"] != "Subscriber not found" {
			t.Errorf("delete unknown subscriber: %d %s", r.Status, r.Raw)
		}
	}
}

func TestAgentEmailsAreUnique(t *testing.T) {
	app := start(t, "")
	const n = 40
	var wg sync.WaitGroup
	emails := make(chan string, n)
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := do(t, "POST", app.http+"/api/agents", fmt.Sprintf("token-u%d", i%3), validAgent)
			if r.Status != 201 {
				errs <- r.Raw
				return
			}
			emails <- r.Obj()["email"].(string)
		}()
	}
	wg.Wait()
	close(emails)
	close(errs)
	for e := range errs {
		t.Errorf("create failed: %s", e)
	}
	seen := map[string]bool{}
	for e := range emails {
		if seen[e] {
			t.Errorf("duplicate address %s", e)
		}
		if !emailPattern.MatchString(e) {
			t.Errorf("address %s", e)
		}
		seen[e] = true
	}
	if len(seen) != n {
		t.Fatalf("%d distinct addresses, want %d", len(seen), n)
	}
}

// publishOnboarded writes identity's user.onboarded event like identity's relay does.
func publishOnboarded(t *testing.T, brokers []string, eventID string, ev *eventsv1.UserOnboarded) {
	t.Helper()
	payload, err := protojson.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Topic: topics.Identity, Balancer: &kafka.Murmur2Balancer{},
		AllowAutoTopicCreation: true, BatchTimeout: 5 * time.Millisecond, RequiredAcks: kafka.RequireAll}
	defer w.Close()
	msg := kafka.Message{Key: []byte(ev.GetUid()), Value: payload, Headers: []kafka.Header{
		{Key: "ce_specversion", Value: []byte("1.0")},
		{Key: "ce_id", Value: []byte(eventID)},
		{Key: "ce_type", Value: []byte(topics.IdentityUserOnboarded)},
		{Key: "ce_source", Value: []byte("/agentic/identity")},
		{Key: "ce_subject", Value: []byte(ev.GetUid())},
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

var waitOpts = []testwait.Option{testwait.Timeout(30 * time.Second), testwait.Every(50 * time.Millisecond)}

func subscribersOf(t *testing.T, base, id string) map[string]map[string]any {
	t.Helper()
	r := do(t, "GET", base+"/api/agents/"+id+"/subscribers", "token-alice", "")
	if r.Status != 200 {
		t.Fatalf("subscribers: %d %s", r.Status, r.Raw)
	}
	out := map[string]map[string]any{}
	for _, s := range r.List() {
		m := s.(map[string]any)
		out[m["email"].(string)] = m
	}
	return out
}

func subscriberCount(t *testing.T, base, id string) float64 {
	t.Helper()
	return do(t, "GET", base+"/api/agents/"+id, "token-alice", "").Obj()["subscribers"].(float64)
}

func TestSubscribersInviteActivateRemoveAndEvents(t *testing.T) {
	identityAddr, fake := startIdentity(t,
		&identityv1.User{Uid: "erin", Email: "Erin@Example.org", DisplayName: "Erin E", Username: "erin"},
		&identityv1.User{Uid: "alice", Email: "alice.other@example.org"},
	)
	app := start(t, identityAddr)
	base := app.http
	a := createAgent(t, base, "token-alice", validAgent)
	id := a["id"].(string)
	path := base + "/api/agents/" + id + "/subscribers"

	if r := do(t, "GET", path, "token-alice", ""); r.Status != 200 || r.Raw != "[]\n" {
		t.Fatalf("empty subscribers: %d %q", r.Status, r.Raw)
	}

	// Known to identity at invite time: still only invited, and the answer is
	// the same as for an unknown address (no name from the profile), so
	// inviting does not reveal whether an address has an account.
	r := do(t, "POST", path, "token-alice", `{"email":"  ERIN@example.org "}`)
	s := r.Obj()
	if r.Status != 201 || s["email"] != "erin@example.org" || s["status"] != "invited" || s["name"] != "erin@example.org" || s["interactions"] != float64(0) {
		t.Fatalf("invite erin: %d %s", r.Status, r.Raw)
	}
	if _, err := time.Parse(time.RFC3339, s["joinedDate"].(string)); err != nil {
		t.Fatalf("joinedDate %v", s["joinedDate"])
	}
	erinKeys := fmt.Sprint(mapKeys(s))

	// Unknown address: invited, name = address; count unchanged.
	r = do(t, "POST", path, "token-alice", `{"email":"Frank@Example.org"}`)
	if r.Status != 201 || r.Obj()["status"] != "invited" || r.Obj()["name"] != "frank@example.org" || r.Obj()["email"] != "frank@example.org" {
		t.Fatalf("invite frank: %d %s", r.Status, r.Raw)
	}
	if got := fmt.Sprint(mapKeys(r.Obj())); got != erinKeys {
		t.Fatalf("answers differ for a known and an unknown address: %s vs %s", got, erinKeys)
	}
	frankID := r.Obj()["id"].(string)
	if subscriberCount(t, base, id) != 0 {
		t.Fatal("invited counted")
	}

	// Already on the list (any case): 409.
	for _, e := range []string{"frank@example.org", "FRANK@example.org", "erin@example.org"} {
		r := do(t, "POST", path, "token-alice", `{"email":"`+e+`"}`)
		if r.Status != 409 || r.Obj()["error"] != "conflict" || r.Obj()["message"] != "This person has already been invited." {
			t.Errorf("re-invite %s: %d %s", e, r.Status, r.Raw)
		}
	}
	// The owner's own address (token e-mail, or identity says it is the owner): 400.
	for _, e := range []string{"alice@example.com", "ALICE@example.com", "alice.other@example.org"} {
		r := do(t, "POST", path, "token-alice", `{"email":"`+e+`"}`)
		if r.Status != 400 || r.Obj()["error"] != "validation_failed" || r.Obj()["message"] != "You already own this agent." {
			t.Errorf("own address %s: %d %s", e, r.Status, r.Raw)
		}
	}
	for _, e := range []string{"", "plain", "a@b", "a b@c.de", "@x.org", "x@.org", "x@y..org", `x@y.org"`} {
		body, _ := json.Marshal(map[string]string{"email": e})
		r := do(t, "POST", path, "token-alice", string(body))
		if r.Status != 400 || r.Obj()["message"] != "Please enter a valid email address" || r.Obj()["fields"].(map[string]any)["email"] == nil {
			t.Errorf("email %q: %d %s", e, r.Status, r.Raw)
		}
	}
	if r := do(t, "POST", path, "token-alice", `{}`); r.Status != 400 || r.Obj()["message"] != "Please enter a valid email address" {
		t.Errorf("no email: %d %s", r.Status, r.Raw)
	}

	// Frank signs up: identity's user.onboarded (delivered twice) records his
	// name but activates nothing (the event does not say the address is
	// verified).
	onboarded := &eventsv1.UserOnboarded{Uid: "frank", Email: "FRANK@example.org", Username: "frankie", OnboardedAt: timestamppb.Now()}
	publishOnboarded(t, app.brokers, "evt-frank-1", onboarded)
	publishOnboarded(t, app.brokers, "evt-frank-1", onboarded)
	// An event for a stranger and a foreign type are harmless.
	publishOnboarded(t, app.brokers, "evt-zed-1", &eventsv1.UserOnboarded{Uid: "zed", Email: "zed@example.org"})
	testwait.Until(t, "both events applied", func() bool {
		return strings.Contains(metricsText(t, base), `events_consumed_total{group="catalog",topic="agentic.identity.v1"} 2`)
	}, waitOpts...)
	if st := subscribersOf(t, base, id)["frank@example.org"]["status"]; st != "invited" {
		t.Fatalf("frank %v after onboarding, want invited", st)
	}

	// Frank signs in with his address not verified yet: nothing is shared
	// with him and the invitation stays pending, on every visit.
	for _, tok := range []string{"token-frank~frank@example.org", "token-frank~FRANK@example.org"} {
		for _, p := range []string{"/api/agents/shared", "/api/agents"} {
			if r := do(t, "GET", base+p, tok, ""); r.Status != 200 || r.Raw != "[]\n" {
				t.Fatalf("unverified frank GET %s: %d %s", p, r.Status, r.Raw)
			}
		}
	}
	if st := subscribersOf(t, base, id)["frank@example.org"]["status"]; st != "invited" || subscriberCount(t, base, id) != 0 {
		t.Fatalf("unverified e-mail activated the invitation: %v", st)
	}
	// Someone else whose token claims frank's address, unverified: nothing either.
	if r := do(t, "GET", base+"/api/agents/shared", "token-mallory~frank@example.org", ""); r.Raw != "[]\n" {
		t.Fatalf("mallory: %d %s", r.Status, r.Raw)
	}

	// Once verified, his next visit activates it (once), with the name
	// identity's event gave.
	for i := 0; i < 2; i++ {
		ids, _ := sharedWith(t, base, "token-frank~Frank@example.org~verified")
		if len(ids) != 1 || ids[0] != id {
			t.Fatalf("verified frank sees %v", ids)
		}
	}
	frank := subscribersOf(t, base, id)["frank@example.org"]
	if frank["status"] != "active" || frank["name"] != "frankie" || frank["id"] != frankID {
		t.Fatalf("frank = %v", frank)
	}
	if subscriberCount(t, base, id) != 1 {
		t.Fatalf("count after activation = %v", subscriberCount(t, base, id))
	}
	// Erin verifies and visits My agents: active too.
	if r := do(t, "GET", base+"/api/agents", "token-erin~erin@example.org~verified", ""); r.Status != 200 {
		t.Fatalf("erin: %d %s", r.Status, r.Raw)
	}
	if erin := subscribersOf(t, base, id)["erin@example.org"]; erin["status"] != "active" || subscriberCount(t, base, id) != 2 {
		t.Fatalf("erin = %v", erin)
	}

	// Zed is known from the event: inviting him is still only an invitation.
	r = do(t, "POST", path, "token-alice", `{"email":"zed@example.org"}`)
	if r.Status != 201 || r.Obj()["status"] != "invited" || r.Obj()["name"] != "zed@example.org" {
		t.Fatalf("invite zed: %d %s", r.Status, r.Raw)
	}
	zedID := r.Obj()["id"].(string)
	if subscriberCount(t, base, id) != 2 {
		t.Fatal("count after zed")
	}

	// Remove: 204, count follows; again → 404.
	if r := do(t, "DELETE", path+"/"+zedID, "token-alice", ""); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "DELETE", path+"/"+zedID, "token-alice", ""); r.Status != 404 {
		t.Fatalf("delete again: %d %s", r.Status, r.Raw)
	}
	if subscriberCount(t, base, id) != 2 || len(subscribersOf(t, base, id)) != 2 {
		t.Fatal("count after delete")
	}
	// Removing an invited subscriber leaves the count alone.
	r = do(t, "POST", path, "token-alice", `{"email":"gina@example.org"}`)
	if r.Status != 201 || r.Obj()["status"] != "invited" {
		t.Fatalf("invite gina: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "DELETE", path+"/"+r.Obj()["id"].(string), "token-alice", ""); r.Status != 204 || subscriberCount(t, base, id) != 2 {
		t.Fatalf("delete gina: %d", r.Status)
	}

	// A status change and an update.
	do(t, "PATCH", base+"/api/agents/"+id, "token-alice", `{"status":"inactive"}`)
	do(t, "PATCH", base+"/api/agents/"+id, "token-alice", `{"instructions":"Be nice","tags":["x"],"status":"inactive"}`)
	do(t, "PATCH", base+"/api/agents/"+id, "token-alice", `{"instructions":"Be nice"}`) // no change → no event

	// Events: exactly one per change, in order, with the right payloads.
	wantTypes := []string{
		agents.TypeAgentCreated,
		agents.TypeSubscriberAdded,          // erin (invited)
		agents.TypeInvitationEmailRequested, // erin's invitation e-mail
		agents.TypeSubscriberAdded,          // frank (invited)
		agents.TypeInvitationEmailRequested, // frank's
		agents.TypeSubscriberActivated,      // frank (verified visit)
		agents.TypeSubscriberActivated,      // erin (verified visit)
		agents.TypeSubscriberAdded,          // zed (invited)
		agents.TypeInvitationEmailRequested, // zed's
		agents.TypeSubscriberRemoved,        // zed
		agents.TypeSubscriberAdded,          // gina
		agents.TypeInvitationEmailRequested, // gina's
		agents.TypeSubscriberRemoved,        // gina
		agents.TypeAgentStatusChanged,
		agents.TypeAgentUpdated,
	}
	recs := eventstest.Consume(t, app.brokers, agents.Topic, len(wantTypes), 30*time.Second, time.Second)
	var got []string
	for _, rec := range recs {
		got = append(got, rec.Headers["ce_type"])
		if rec.Key != id || rec.Headers["ce_subject"] != id || rec.Headers["ce_source"] != agents.Source || rec.Headers["ce_id"] == "" {
			t.Errorf("record %v", rec.Headers)
		}
	}
	if strings.Join(got, ",") != strings.Join(wantTypes, ",") {
		t.Fatalf("event types:\n got %v\nwant %v", got, wantTypes)
	}
	decode := func(i int, m proto.Message) {
		t.Helper()
		if err := protojson.Unmarshal(recs[i].Value, m); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	var created eventsv1.AgentCreated
	decode(0, &created)
	if created.GetAgentId() != id || created.GetOwnerUid() != "alice" || created.GetName() != "Math Tutor" ||
		created.GetIconColor() != "#10B981" || created.GetEmail() != a["email"] || created.GetOccurredAt() == nil {
		t.Errorf("created = %v", &created)
	}
	var invitation eventsv1.InvitationEmailRequested
	decode(2, &invitation)
	if invitation.GetEmail() != "erin@example.org" || invitation.GetAgentName() != "Math Tutor" || invitation.GetOwnerUid() != "alice" ||
		invitation.GetAgentId() != id || invitation.GetSubscriberId() == "" || invitation.GetResend() ||
		invitation.GetInviterName() != agents.DefaultInviterName || invitation.GetAgentDescription() != a["description"] ||
		invitation.GetOccurredAt() == nil {
		t.Errorf("invitation e-mail = %v", &invitation)
	}
	var activated eventsv1.SubscriberActivated
	decode(5, &activated)
	if activated.GetUid() != "frank" || activated.GetEmail() != "frank@example.org" || activated.GetSubscriberCount() != 1 ||
		activated.GetAgentName() != "Math Tutor" || activated.GetOwnerUid() != "alice" {
		t.Errorf("activated = %v", &activated)
	}
	var removed eventsv1.SubscriberRemoved
	decode(9, &removed)
	if removed.GetStatus() != "invited" || removed.GetSubscriberCount() != 2 || removed.GetSubscriberId() != zedID {
		t.Errorf("removed = %v", &removed)
	}
	var sc eventsv1.AgentStatusChanged
	decode(13, &sc)
	if sc.GetOldStatus() != "active" || sc.GetNewStatus() != "inactive" {
		t.Errorf("status changed = %v", &sc)
	}
	var upd eventsv1.AgentUpdated
	decode(14, &upd)
	if fmt.Sprint(upd.GetChangedFields()) != "[instructions tags]" || upd.GetInstructions() != "Be nice" || upd.GetName() != "Math Tutor" {
		t.Errorf("updated = %v", &upd)
	}
	fake.mu.Lock()
	calls := fake.calls
	fake.mu.Unlock()
	if calls == 0 {
		t.Error("identity was never asked")
	}

	// gRPC API.
	conn, err := grpc.NewClient(app.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cl := catalogv1.NewCatalogServiceClient(conn)
	ctx := context.Background()
	g, err := cl.GetAgent(ctx, &catalogv1.GetAgentRequest{AgentId: id})
	if err != nil || g.GetAgent().GetOwnerUid() != "alice" || g.GetAgent().GetSubscribers() != 2 || g.GetAgent().GetStatus() != "inactive" ||
		g.GetAgent().GetEmail() != a["email"] || fmt.Sprint(g.GetAgent().GetTags()) != "[x]" {
		t.Fatalf("GetAgent = %v %v", g, err)
	}
	for _, bad := range []string{"00000000-0000-7000-8000-000000000000", "junk"} {
		if _, err := cl.GetAgent(ctx, &catalogv1.GetAgentRequest{AgentId: bad}); status.Code(err) != codes.NotFound {
			t.Errorf("GetAgent(%s) = %v", bad, err)
		}
	}
	if _, err := cl.GetAgent(ctx, &catalogv1.GetAgentRequest{}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("GetAgent(\"\") = %v", err)
	}
	for _, c := range []struct {
		agent, uid    string
		owned, exists bool
	}{
		{id, "alice", true, true}, {id, "bob", false, true},
		{"00000000-0000-7000-8000-000000000000", "alice", false, false}, {"junk", "alice", false, false},
	} {
		o, err := cl.CheckOwnership(ctx, &catalogv1.CheckOwnershipRequest{AgentId: c.agent, Uid: c.uid})
		if err != nil || o.GetOwned() != c.owned || o.GetExists() != c.exists {
			t.Errorf("CheckOwnership(%s, %s) = %v %v", c.agent, c.uid, o, err)
		}
	}
	if _, err := cl.CheckOwnership(ctx, &catalogv1.CheckOwnershipRequest{AgentId: id}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("CheckOwnership without uid = %v", err)
	}
}

func TestInviteWhenIdentityIsDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there
	app := start(t, addr)
	a := createAgent(t, app.http, "token-alice", validAgent)
	started := time.Now()
	r := do(t, "POST", app.http+"/api/agents/"+a["id"].(string)+"/subscribers", "token-alice", `{"email":"erin@example.org"}`)
	if r.Status != 201 || r.Obj()["status"] != "invited" {
		t.Fatalf("invite: %d %s", r.Status, r.Raw)
	}
	if d := time.Since(started); d > 5*time.Second {
		t.Fatalf("invite took %v", d)
	}
}

// metricsText fetches /metrics.
func metricsText(t *testing.T, base string) string {
	t.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(res.Body)
	return buf.String()
}

func TestMetricsExposed(t *testing.T) {
	app := start(t, "")
	createAgent(t, app.http, "token-alice", validAgent)
	publishOnboarded(t, app.brokers, "evt-1", &eventsv1.UserOnboarded{Uid: "u1", Email: "u1@example.org"})
	testwait.Until(t, "event consumed and agent event published", func() bool {
		text := metricsText(t, app.http)
		return strings.Contains(text, `events_consumed_total{group="catalog",topic="agentic.identity.v1"} 1`) &&
			strings.Contains(text, `outbox_events_published_total{topic="agentic.catalog.v1"} 1`)
	}, waitOpts...)
	text := metricsText(t, app.http)
	for _, want := range []string{
		`catalog_requests_total{method="CreateAgent",outcome="success"} 1`,
		`events_consumer_lag{group="catalog"}`,
		`http_requests_total`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// mapKeys returns m's keys, sorted.
func mapKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
