package app

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/timestamppb"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	"github.com/agentic-app/agentic/services/platform/ratelimit"
)

const (
	msgCap     = "Enter a monthly cap between $0.01 and $100,000.00, or leave it empty for no cap."
	msgCapMode = "Choose default, none or custom."
)

func catalogClient(t *testing.T, addr string) catalogv1.CatalogServiceClient {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return catalogv1.NewCatalogServiceClient(conn)
}

// inviteActive invites email to the agent and activates it with a verified
// visit of uid.
func inviteActive(t *testing.T, base, agent, uid, email string) string {
	t.Helper()
	r := do(t, "POST", base+"/api/agents/"+agent+"/subscribers", "token-alice", `{"email":"`+email+`"}`)
	if r.Status != 201 {
		t.Fatalf("invite %s: %d %s", email, r.Status, r.Raw)
	}
	if ids, _ := sharedWith(t, base, "token-"+uid+"~"+email+"~verified"); len(ids) == 0 {
		t.Fatalf("%s not activated", uid)
	}
	return r.Obj()["id"].(string)
}

// Item 6: the default cap on the agent, the per-subscriber cap (default,
// none, custom) and what CheckAccess carries.
func TestSubscriberCaps(t *testing.T) {
	app := start(t, "")
	base := app.http
	cl := catalogClient(t, app.grpc)
	ctx := context.Background()

	a := createAgent(t, base, "token-alice", validAgent)
	id := a["id"].(string)
	if v, ok := a["subscriberMonthlyCapCents"]; !ok || v != nil {
		t.Fatalf("new agent's subscriberMonthlyCapCents = %v (present %v), want null", v, ok)
	}
	erinID := inviteActive(t, base, id, "erin", "erin@example.org")
	r := do(t, "POST", base+"/api/agents/"+id+"/subscribers", "token-alice", `{"email":"frank@example.org"}`)
	if r.Status != 201 || r.Obj()["capMode"] != "default" || r.Obj()["effectiveCapCents"] != nil {
		t.Fatalf("invite frank: %d %s", r.Status, r.Raw)
	}
	frankID := r.Obj()["id"].(string)

	capMicros := func(uid string) int64 {
		t.Helper()
		res, err := cl.CheckAccess(ctx, &catalogv1.CheckAccessRequest{AgentId: id, Uid: uid})
		if err != nil || !res.GetAllowed() {
			t.Fatalf("CheckAccess(%s) = %v %v", uid, res, err)
		}
		return res.GetSubscriberCapMicros()
	}
	erin := func() map[string]any { return subscribersOf(t, base, id)["erin@example.org"] }
	wantSub := func(what string, s map[string]any, mode string, custom, effective any) {
		t.Helper()
		if s["capMode"] != mode || s["monthlyCapCents"] != custom || s["effectiveCapCents"] != effective {
			t.Errorf("%s: capMode %v monthlyCapCents %v effectiveCapCents %v, want %v %v %v", what,
				s["capMode"], s["monthlyCapCents"], s["effectiveCapCents"], mode, custom, effective)
		}
		for _, k := range []string{"monthlyCapCents", "effectiveCapCents"} {
			if _, ok := s[k]; !ok {
				t.Errorf("%s: %s missing (null expected when none)", what, k)
			}
		}
	}
	patchAgent := func(body string) map[string]any {
		t.Helper()
		r := do(t, "PATCH", base+"/api/agents/"+id, "token-alice", body)
		if r.Status != 200 {
			t.Fatalf("PATCH agent %s: %d %s", body, r.Status, r.Raw)
		}
		return r.Obj()
	}
	patchSub := func(subID, body string) map[string]any {
		t.Helper()
		r := do(t, "PATCH", base+"/api/agents/"+id+"/subscribers/"+subID, "token-alice", body)
		if r.Status != 200 {
			t.Fatalf("PATCH subscriber %s: %d %s", body, r.Status, r.Raw)
		}
		return r.Obj()
	}

	// No cap anywhere: CheckAccess says 0 (no cap).
	wantSub("initially", erin(), "default", nil, nil)
	if got := capMicros("erin"); got != 0 {
		t.Errorf("no cap: %d micros", got)
	}
	// A default cap of $5.00 applies to erin (default mode), never to the owner.
	if p := patchAgent(`{"subscriberMonthlyCapCents":500}`); p["subscriberMonthlyCapCents"] != float64(500) {
		t.Fatalf("default cap = %v", p["subscriberMonthlyCapCents"])
	}
	wantSub("default $5", erin(), "default", nil, float64(500))
	if got := capMicros("erin"); got != 5_000_000 {
		t.Errorf("default cap: %d micros, want 5000000", got)
	}
	if got := capMicros("alice"); got != 0 {
		t.Errorf("owner: %d micros, want 0", got)
	}
	// Other fields leave the cap alone; absent is not null.
	if p := patchAgent(`{"instructions":"Be brief"}`); p["subscriberMonthlyCapCents"] != float64(500) {
		t.Fatalf("cap after an instructions PATCH = %v", p["subscriberMonthlyCapCents"])
	}
	// Custom $2.00.
	wantSub("custom", patchSub(erinID, `{"capMode":"custom","monthlyCapCents":200}`), "custom", float64(200), float64(200))
	wantSub("custom listed", erin(), "custom", float64(200), float64(200))
	if got := capMicros("erin"); got != 2_000_000 {
		t.Errorf("custom cap: %d micros, want 2000000", got)
	}
	// None: no cap although the agent has a default; the custom amount is dropped.
	wantSub("none", patchSub(erinID, `{"capMode":"none","monthlyCapCents":300}`), "none", nil, nil)
	if got := capMicros("erin"); got != 0 {
		t.Errorf("none: %d micros, want 0", got)
	}
	// Back to the default (case-insensitive mode).
	wantSub("default again", patchSub(erinID, `{"capMode":" Default "}`), "default", nil, float64(500))
	if got := capMicros("erin"); got != 5_000_000 {
		t.Errorf("default again: %d micros", got)
	}
	// The default removed (null): no cap for default-mode subscribers.
	if p := patchAgent(`{"subscriberMonthlyCapCents":null}`); p["subscriberMonthlyCapCents"] != nil {
		t.Fatalf("cap after null = %v", p["subscriberMonthlyCapCents"])
	}
	wantSub("default, none set", erin(), "default", nil, nil)
	if got := capMicros("erin"); got != 0 {
		t.Errorf("default removed: %d micros", got)
	}
	// The bounds are accepted.
	for _, v := range []string{"1", "10000000", "1e3"} {
		want, _ := strconv.ParseFloat(v, 64)
		if p := patchAgent(`{"subscriberMonthlyCapCents":` + v + `}`); p["subscriberMonthlyCapCents"] != want {
			t.Errorf("cap %s = %v", v, p["subscriberMonthlyCapCents"])
		}
	}
	// An invited subscriber's cap can be set too (it applies once active).
	wantSub("invited custom", patchSub(frankID, `{"capMode":"custom","monthlyCapCents":1}`), "custom", float64(1), float64(1))

	// Validation of the agent's default cap.
	before := patchAgent(`{}`)
	for _, v := range []string{"0", "-1", "10000001", "1.5", "1e999", "9223372036854775808"} {
		r := do(t, "PATCH", base+"/api/agents/"+id, "token-alice", `{"subscriberMonthlyCapCents":`+v+`}`)
		fields, _ := r.Obj()["fields"].(map[string]any)
		if r.Status != 400 || r.Obj()["error"] != "validation_failed" || r.Obj()["message"] != msgCap || fields["subscriberMonthlyCapCents"] != msgCap {
			t.Errorf("cap %s: %d %s", v, r.Status, r.Raw)
		}
	}
	for _, v := range []string{`"500"`, `true`, `[500]`, `{}`} {
		r := do(t, "PATCH", base+"/api/agents/"+id, "token-alice", `{"subscriberMonthlyCapCents":`+v+`}`)
		if r.Status != 400 || r.Obj()["error"] != "invalid_json" {
			t.Errorf("cap %s: %d %s", v, r.Status, r.Raw)
		}
	}
	if after := patchAgent(`{}`); after["subscriberMonthlyCapCents"] != before["subscriberMonthlyCapCents"] {
		t.Errorf("refused PATCHes changed the cap: %v → %v", before["subscriberMonthlyCapCents"], after["subscriberMonthlyCapCents"])
	}

	// Validation of a subscriber's cap.
	subPath := base + "/api/agents/" + id + "/subscribers/" + erinID
	for _, c := range []struct{ body, field, msg string }{
		{`{}`, "capMode", msgCapMode},
		{`{"capMode":""}`, "capMode", msgCapMode},
		{`{"capMode":"unlimited"}`, "capMode", msgCapMode},
		{`{"monthlyCapCents":200}`, "capMode", msgCapMode},
		{`{"capMode":"custom"}`, "monthlyCapCents", msgCap},
		{`{"capMode":"custom","monthlyCapCents":null}`, "monthlyCapCents", msgCap},
		{`{"capMode":"custom","monthlyCapCents":0}`, "monthlyCapCents", msgCap},
		{`{"capMode":"custom","monthlyCapCents":10000001}`, "monthlyCapCents", msgCap},
		{`{"capMode":"custom","monthlyCapCents":2.5}`, "monthlyCapCents", msgCap},
	} {
		r := do(t, "PATCH", subPath, "token-alice", c.body)
		fields, _ := r.Obj()["fields"].(map[string]any)
		if r.Status != 400 || r.Obj()["error"] != "validation_failed" || r.Obj()["message"] != c.msg || fields[c.field] != c.msg {
			t.Errorf("subscriber %s: %d %s", c.body, r.Status, r.Raw)
		}
	}
	for _, body := range []string{`{"capMode":5}`, `{"capMode":"custom","monthlyCapCents":"200"}`, ``, `[]`} {
		if r := do(t, "PATCH", subPath, "token-alice", body); r.Status != 400 || r.Obj()["error"] != "invalid_json" {
			t.Errorf("subscriber %q: %d %s", body, r.Status, r.Raw)
		}
	}
	wantSub("after refused PATCHes", erin(), "default", nil, float64(1000)) // the last accepted default: 1e3

	// Not the caller's agent: 404 Agent not found whatever the body; an
	// unknown subscriber of one's own agent: 404 Subscriber not found.
	b := createAgent(t, base, "token-bob", validAgent)["id"].(string)
	for _, c := range []struct{ token, agent, sub, body, msg string }{
		{"token-bob", id, erinID, `{"capMode":"none"}`, "Agent not found"},
		{"token-bob", id, erinID, `{"capMode":"bogus"}`, "Agent not found"},
		{"token-erin", id, erinID, `{"capMode":"none"}`, "Agent not found"}, // a subscriber is not the owner
		{"token-alice", "00000000-0000-7000-8000-000000000000", erinID, `{"capMode":"none"}`, "Agent not found"},
		{"token-alice", "junk", erinID, `{"capMode":"none"}`, "Agent not found"},
		{"token-alice", id, "00000000-0000-7000-8000-000000000000", `{"capMode":"none"}`, "Subscriber not found"},
		{"token-alice", id, "junk", `{"capMode":"none"}`, "Subscriber not found"},
		{"token-bob", b, erinID, `{"capMode":"none"}`, "Subscriber not found"}, // erin is on alice's agent, not bob's
	} {
		r := do(t, "PATCH", base+"/api/agents/"+c.agent+"/subscribers/"+c.sub, c.token, c.body)
		if r.Status != 404 || r.Obj()["error"] != "not_found" || r.Obj()["message"] != c.msg {
			t.Errorf("%s PATCH %s/%s %s: %d %s", c.token, c.agent, c.sub, c.body, r.Status, r.Raw)
		}
	}
	if r := do(t, "PATCH", base+"/api/agents/"+id, "token-bob", `{"subscriberMonthlyCapCents":5}`); r.Status != 404 {
		t.Errorf("bob sets alice's cap: %d %s", r.Status, r.Raw)
	}
	wantSub("after foreign PATCHes", erin(), "default", nil, float64(1000))
}

type change struct{ agent, uid string }

func changesOf(res *catalogv1.AccessChangesSinceResponse) []change {
	var out []change
	for _, c := range res.GetChanges() {
		out = append(out, change{c.GetAgentId(), c.GetUid()})
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

// Item 5: the access changes a removal, a deactivation, an edit and cap
// changes record, and AccessChangesSince's since/margin semantics.
func TestAccessChangesSince(t *testing.T) {
	app := start(t, "")
	base := app.http
	cl := catalogClient(t, app.grpc)
	ctx := context.Background()
	since := func(from *timestamppb.Timestamp, margin time.Duration) *catalogv1.AccessChangesSinceResponse {
		t.Helper()
		res, err := cl.AccessChangesSince(ctx, &catalogv1.AccessChangesSinceRequest{Since: from, MarginMs: margin.Milliseconds()})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	expect := func(what string, res *catalogv1.AccessChangesSinceResponse, want ...change) {
		t.Helper()
		sort.Slice(want, func(i, j int) bool { return fmt.Sprint(want[i]) < fmt.Sprint(want[j]) })
		if got := changesOf(res); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: changes %v, want %v", what, got, want)
		}
	}

	id := createAgent(t, base, "token-alice", validAgent)["id"].(string)
	erinID := inviteActive(t, base, id, "erin", "erin@example.org")
	inviteActive(t, base, id, "frank", "frank@example.org")
	r0 := since(nil, 0)
	if d := time.Since(r0.GetNow().AsTime()); d < -5*time.Second || d > 5*time.Second {
		t.Fatalf("now = %v, %v from this clock", r0.GetNow().AsTime(), d)
	}
	// Creating and inviting end nobody's access; activating changes the
	// activated user's (a consumer of a listed agent who paid for
	// themselves becomes a subscriber the owner pays for; issue 28).
	expect("creation, invitations and activations", since(nil, time.Minute), change{id, "erin"}, change{id, "frank"})

	// Removing an active subscriber: that uid.
	if r := do(t, "DELETE", base+"/api/agents/"+id+"/subscribers/"+erinID, "token-alice", ""); r.Status != 204 {
		t.Fatalf("remove: %d %s", r.Status, r.Raw)
	}
	r1 := since(r0.GetNow(), 0)
	expect("removal", r1, change{id, "erin"})
	// Asked again from the answer's now: nothing new.
	r2 := since(r1.GetNow(), 0)
	expect("nothing new", r2)

	// Removing an invited subscriber: nobody had access.
	r := do(t, "POST", base+"/api/agents/"+id+"/subscribers", "token-alice", `{"email":"gina@example.org"}`)
	if r.Status != 201 {
		t.Fatalf("invite gina: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "DELETE", base+"/api/agents/"+id+"/subscribers/"+r.Obj()["id"].(string), "token-alice", ""); r.Status != 204 {
		t.Fatalf("remove gina: %d", r.Status)
	}
	// A PATCH that changes nothing records nothing.
	if r := do(t, "PATCH", base+"/api/agents/"+id, "token-alice", `{"status":"active"}`); r.Status != 200 {
		t.Fatalf("no-op patch: %d", r.Status)
	}
	r3 := since(r2.GetNow(), 0)
	expect("invited removal and no-op PATCH", r3)

	// Deactivation: every user of the agent (empty uid).
	if r := do(t, "PATCH", base+"/api/agents/"+id, "token-alice", `{"status":"inactive"}`); r.Status != 200 {
		t.Fatalf("deactivate: %d", r.Status)
	}
	r4 := since(r3.GetNow(), 0)
	expect("deactivation", r4, change{id, ""})

	// Margin: from r4's now nothing is new, but looking back far enough
	// finds the deactivation (and the removal and activations) again, each
	// (agent, uid) once.
	expect("margin 0", since(r4.GetNow(), 0))
	expect("margin 1m", since(r4.GetNow(), time.Minute), change{id, ""}, change{id, "erin"}, change{id, "frank"})
	// Without since: from the database's now minus the margin.
	expect("no since, margin 0", since(nil, 0))
	expect("no since, margin 1m", since(nil, time.Minute), change{id, ""}, change{id, "erin"}, change{id, "frank"})
	// A negative margin counts as 0; a huge one is bounded (no error).
	expect("negative margin", since(r4.GetNow(), -time.Hour))
	since(r4.GetNow(), 1<<62)

	// A subscriber's cap change: that uid; the default cap: everyone.
	subs := subscribersOf(t, base, id)
	frankID := subs["frank@example.org"]["id"].(string)
	if r := do(t, "PATCH", base+"/api/agents/"+id+"/subscribers/"+frankID, "token-alice", `{"capMode":"custom","monthlyCapCents":100}`); r.Status != 200 {
		t.Fatalf("frank's cap: %d %s", r.Status, r.Raw)
	}
	r5 := since(r4.GetNow(), 0)
	expect("subscriber cap", r5, change{id, "frank"})
	// The same cap again changes nothing.
	do(t, "PATCH", base+"/api/agents/"+id+"/subscribers/"+frankID, "token-alice", `{"capMode":"custom","monthlyCapCents":100}`)
	r6 := since(r5.GetNow(), 0)
	expect("same subscriber cap", r6)
	if r := do(t, "PATCH", base+"/api/agents/"+id, "token-alice", `{"subscriberMonthlyCapCents":250}`); r.Status != 200 {
		t.Fatalf("default cap: %d", r.Status)
	}
	r7 := since(r6.GetNow(), 0)
	expect("default cap", r7, change{id, ""})
	// An instructions edit (the cached agent's prompt): everyone.
	do(t, "PATCH", base+"/api/agents/"+id, "token-alice", `{"instructions":"New prompt"}`)
	expect("instructions", since(r7.GetNow(), 0), change{id, ""})
}

// Item 7: MAX_AGENTS_PER_USER, checked inside the create transaction:
// concurrent creates cannot exceed it.
func TestAgentsPerUserLimit(t *testing.T) {
	app := startWith(t, "", func(c *Config) { c.MaxAgentsPerUser = 3 })
	base := app.http
	createAgent(t, base, "token-alice", validAgent)
	const n = 8
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		created  int
		refusals []resp
	)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := do(t, "POST", base+"/api/agents", "token-alice", validAgent)
			mu.Lock()
			defer mu.Unlock()
			if r.Status == 201 {
				created++
			} else {
				refusals = append(refusals, r)
			}
		}()
	}
	wg.Wait()
	if created != 2 || len(refusals) != n-2 {
		t.Fatalf("%d created, %d refused; want 2 and %d", created, len(refusals), n-2)
	}
	for _, r := range refusals {
		if r.Status != 400 || r.Obj()["error"] != "limit_reached" || r.Obj()["message"] != "You can have at most 3 agents." {
			t.Errorf("refusal: %d %s", r.Status, r.Raw)
		}
	}
	if l := do(t, "GET", base+"/api/agents", "token-alice", "").List(); len(l) != 3 {
		t.Fatalf("alice has %d agents", len(l))
	}
	// Per user: bob is not affected.
	createAgent(t, base, "token-bob", validAgent)
	if !strings.Contains(metricsText(t, base), `catalog_requests_total{method="CreateAgent",outcome="client_error"} 6`) {
		t.Error("limit refusals are not counted as client errors")
	}
}

// The quotas' settings: defaults 100 agents and 50 invitations a day; bad
// values stop the service at start.
func TestQuotaSettings(t *testing.T) {
	t.Setenv("APP_ENV", "development")
	t.Setenv("MAX_AGENTS_PER_USER", "")
	t.Setenv("RATE_LIMIT_INVITATIONS", "")
	c, err := LoadConfig()
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxAgentsPerUser != 100 || c.InvitationRate != "50/24h" || c.RedisURL != "redis://127.0.0.1:6379/0" {
		t.Errorf("defaults: %d %q %q", c.MaxAgentsPerUser, c.InvitationRate, c.RedisURL)
	}
	rule, err := invitationRule(c.InvitationRate)
	if err != nil || rule.Limit != 50 || rule.Window != 24*time.Hour || rule.Mode != ratelimit.FailClosed || rule.Class != "invitations" {
		t.Errorf("invitation rule %+v %v", rule, err)
	}
	for k, v := range map[string]string{"MAX_AGENTS_PER_USER": "0", "RATE_LIMIT_INVITATIONS": "50 a day"} {
		t.Run(k, func(t *testing.T) {
			t.Setenv(k, v)
			if _, err := LoadConfig(); err == nil || !strings.Contains(err.Error(), k) {
				t.Errorf("%s=%q: %v", k, v, err)
			}
		})
	}
}

// Item 7: invitations per agent per day (RATE_LIMIT_INVITATIONS): the third
// invitation of an agent within the window is refused with 429, Retry-After
// and the limit in the message; another agent of the same owner is not
// affected, and requests on an agent that is not the caller's do not count.
func TestInvitationsPerAgentPerDay(t *testing.T) {
	app := startWith(t, "", func(c *Config) { c.InvitationRate = "2/24h" })
	base := app.http
	a := createAgent(t, base, "token-alice", validAgent)["id"].(string)
	b := createAgent(t, base, "token-alice", validAgent)["id"].(string)
	invite := func(token, agent, email string) resp {
		t.Helper()
		return do(t, "POST", base+"/api/agents/"+agent+"/subscribers", token, `{"email":"`+email+`"}`)
	}
	// Bob tries alice's agent a many times: 404, and none of it counts.
	for i := 0; i < 5; i++ {
		if r := invite("token-bob", a, fmt.Sprintf("spam%d@example.org", i)); r.Status != 404 {
			t.Fatalf("bob: %d %s", r.Status, r.Raw)
		}
	}
	for i := 0; i < 2; i++ {
		if r := invite("token-alice", a, fmt.Sprintf("a%d@example.org", i)); r.Status != 201 {
			t.Fatalf("invite %d to a: %d %s", i, r.Status, r.Raw)
		}
	}
	third := do(t, "POST", base+"/api/agents/"+a+"/subscribers", "token-alice", `{"email":"a2@example.org"}`)
	retry, err := strconv.Atoi(third.Header.Get("Retry-After"))
	if third.Status != 429 || third.Obj()["error"] != "rate_limited" || err != nil || retry < 1 || retry > 24*3600 {
		t.Fatalf("third invitation: %d Retry-After %q %s", third.Status, third.Header.Get("Retry-After"), third.Raw)
	}
	want := ratelimit.LimitMessage(ratelimit.Rule{Limit: 2, Window: 24 * time.Hour}, retry)
	if msg := third.Obj()["message"]; msg != want || !strings.Contains(want, "at most 2 per day") {
		t.Errorf("message %q, want %q", msg, want)
	}
	if r := invite("token-alice", a, "a3@example.org"); r.Status != 429 {
		t.Fatalf("fourth invitation: %d %s", r.Status, r.Raw)
	}
	// Nothing was added by the refused requests.
	if subs := subscribersOf(t, base, a); len(subs) != 2 {
		t.Errorf("agent a has %d subscribers, want 2", len(subs))
	}
	// Per agent: alice's other agent still has its own two.
	for i := 0; i < 2; i++ {
		if r := invite("token-alice", b, fmt.Sprintf("b%d@example.org", i)); r.Status != 201 {
			t.Fatalf("invite %d to b: %d %s", i, r.Status, r.Raw)
		}
	}
	if r := invite("token-alice", b, "b2@example.org"); r.Status != 429 {
		t.Fatalf("third invitation to b: %d %s", r.Status, r.Raw)
	}
	if !strings.Contains(metricsText(t, base), `agentic_ratelimit_rejected_total{class="invitations",service="catalog"} 3`) {
		t.Error("refusals not counted in agentic_ratelimit_rejected_total")
	}
}
