package app

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	documentsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/documents/v1"
	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/platform/apitest"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
	"github.com/agentic-app/agentic/services/platform/ratelimit"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

// fakeKnowledge is the documents service's KnowledgeService.CountDocuments
// over counts a test sets (an unknown agent has none), like the fakes of
// services/conversations/internal/fakes.
type fakeKnowledge struct {
	documentsv1.UnimplementedKnowledgeServiceServer
	mu     sync.Mutex
	counts map[string]*documentsv1.CountDocumentsResponse
	down   bool
	calls  int
}

func (f *fakeKnowledge) CountDocuments(_ context.Context, req *documentsv1.CountDocumentsRequest) (*documentsv1.CountDocumentsResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.down {
		return nil, status.Error(codes.Unavailable, "documents is down")
	}
	if req.GetAgentId() == "" {
		return nil, status.Error(codes.InvalidArgument, "agent_id is required")
	}
	if c, ok := f.counts[req.GetAgentId()]; ok {
		return c, nil
	}
	return &documentsv1.CountDocumentsResponse{}, nil
}

func (f *fakeKnowledge) set(agentID string, total, ready int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counts[agentID] = &documentsv1.CountDocumentsResponse{Total: total, Ready: ready}
}

func (f *fakeKnowledge) setDown(down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = down
}

func (f *fakeKnowledge) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// listingApp is the catalog with the marketplace on, a fake documents
// service and a pool on its database.
type listingApp struct {
	running
	pool *pgxpool.Pool
	docs *fakeKnowledge
}

// startListing starts the catalog with the marketplace on, the fake
// documents service, no per-address limit and uncached categories, changed
// by configure.
func startListing(t *testing.T, configure func(*Config)) listingApp {
	t.Helper()
	docs := &fakeKnowledge{counts: map[string]*documentsv1.CountDocumentsResponse{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	documentsv1.RegisterKnowledgeServiceServer(srv, docs)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	var dbURL string
	app := startWith(t, "", func(c *Config) {
		c.MarketplaceEnabled = true
		c.DocumentsGRPCAddr = ln.Addr().String()
		c.MarketplaceRate = "0/1m"
		c.CategoriesTTL = -1
		// The listing cache as deployed: every change these tests make
		// (SQL included) must be seen through it.
		c.MarketplaceCacheTTL = agents.DefaultListingCacheTTL
		if configure != nil {
			configure(c)
		}
		dbURL = c.DatabaseURL
	})
	pool, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return listingApp{running: app, pool: pool, docs: docs}
}

func (l listingApp) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := l.pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func (l listingApp) patch(t *testing.T, token, id, body string) resp {
	t.Helper()
	return do(t, "PATCH", l.http+"/api/agents/"+id, token, body)
}

// publishNew creates an agent of owner from body, gives it a readable
// document and publishes it.
func (l listingApp) publishNew(t *testing.T, owner, body string) map[string]any {
	t.Helper()
	id := createAgent(t, l.http, "token-"+owner, body)["id"].(string)
	l.docs.set(id, 1, 1)
	r := l.patch(t, "token-"+owner, id, `{"isPublic":true}`)
	if r.Status != 200 || r.Obj()["slug"] == nil {
		t.Fatalf("publish %s: %d %s", id, r.Status, r.Raw)
	}
	return r.Obj()
}

func wantField(t *testing.T, what string, r resp, field, msg string) {
	t.Helper()
	fields, _ := r.Obj()["fields"].(map[string]any)
	if r.Status != 400 || r.Obj()["error"] != "validation_failed" || fields[field] != msg {
		t.Errorf("%s: %d %s, want 400 validation_failed %s=%q", what, r.Status, truncate(r.Raw), field, msg)
	}
}

func wantCode(t *testing.T, what string, r resp, status int, code string) {
	t.Helper()
	if r.Status != status || r.Obj()["error"] != code || r.Obj()["message"] == "" {
		t.Errorf("%s: %d %s, want %d %s", what, r.Status, truncate(r.Raw), status, code)
	}
}

// The publishing rules: a new agent cannot be public; publishing needs an
// active agent and a readable document (documents down: 503); the listing
// fields' bounds; the slug; unpublishing hides the agent at once and keeps
// its slug; deactivating keeps it listed as unavailable.
func TestPublishingRules(t *testing.T) {
	l := startListing(t, nil)
	base := l.http
	r := do(t, "POST", base+"/api/agents", "token-alice", strings.Replace(validAgent, `"isPublic":false`, `"isPublic":true`, 1))
	wantField(t, "create public", r, "isPublic", agents.MsgPublishNeedsDocuments)

	a := createAgent(t, base, "token-alice", validAgent)
	id := a["id"].(string)
	for k, want := range map[string]any{"slug": nil, "publishedAt": nil, "markupPercent": float64(20), "greetingCostCents": float64(0),
		"greeting": "", "memoryTokens": float64(4000), "showSources": true, "isPublic": false} {
		if v, ok := a[k]; !ok || v != want {
			t.Errorf("new agent %s = %v (present %v), want %v", k, v, ok, want)
		}
	}

	// No readable document: none linked, or linked but not shared and synced.
	wantField(t, "no documents", l.patch(t, "token-alice", id, `{"isPublic":true}`), "isPublic", agents.MsgPublishNeedsDocuments)
	l.docs.set(id, 2, 0)
	wantField(t, "documents not ready", l.patch(t, "token-alice", id, `{"isPublic":true}`), "isPublic", agents.MsgPublishNeedsDocuments)

	// Not active: refused before the documents are counted.
	l.docs.set(id, 2, 1)
	if r := l.patch(t, "token-alice", id, `{"status":"inactive"}`); r.Status != 200 {
		t.Fatalf("deactivate: %d %s", r.Status, r.Raw)
	}
	calls := l.docs.callCount()
	wantField(t, "inactive", l.patch(t, "token-alice", id, `{"isPublic":true}`), "isPublic", agents.MsgPublishNeedsActive)
	wantField(t, "pending", l.patch(t, "token-alice", id, `{"isPublic":true,"status":"pending"}`), "isPublic", agents.MsgPublishNeedsActive)
	if l.docs.callCount() != calls {
		t.Errorf("documents asked for an inactive agent")
	}

	// The documents service down: 503, nothing changed.
	l.docs.setDown(true)
	wantCode(t, "documents down", l.patch(t, "token-alice", id, `{"isPublic":true,"status":"active"}`), 503, "knowledge_unavailable")
	l.docs.setDown(false)
	if g := do(t, "GET", base+"/api/agents/"+id, "token-alice", ""); g.Obj()["status"] != "inactive" || g.Obj()["isPublic"] != false {
		t.Fatalf("refused publish changed the agent: %s", g.Raw)
	}

	// Bounds: each field's message; a wrong type is invalid_json.
	for _, c := range []struct{ body, field, msg string }{
		{`{"markupPercent":301}`, "markupPercent", agents.MsgMarkup},
		{`{"markupPercent":-1}`, "markupPercent", agents.MsgMarkup},
		{`{"markupPercent":1.5}`, "markupPercent", agents.MsgMarkup},
		{`{"greetingCostCents":501}`, "greetingCostCents", agents.MsgGreetingCost},
		{`{"greetingCostCents":0.5}`, "greetingCostCents", agents.MsgGreetingCost},
		{`{"greeting":"` + strings.Repeat("é", 501) + `"}`, "greeting", agents.MsgGreeting},
		{`{"memoryTokens":32001}`, "memoryTokens", agents.MsgMemoryTokens},
		{`{"memoryTokens":-5}`, "memoryTokens", agents.MsgMemoryTokens},
	} {
		wantField(t, c.body[:min(len(c.body), 40)], l.patch(t, "token-alice", id, c.body), c.field, c.msg)
	}
	for _, body := range []string{`{"markupPercent":"20"}`, `{"showSources":"yes"}`, `{"greeting":5}`, `{"memoryTokens":[1]}`} {
		wantCode(t, body, l.patch(t, "token-alice", id, body), 400, "invalid_json")
	}

	// Activated and published in one PATCH, with the listing fields.
	r = l.patch(t, "token-alice", id, `{"status":"active","isPublic":true,"markupPercent":50,"greetingCostCents":25,
		"greeting":"  Hi! Ask me about algebra.  ","memoryTokens":2000,"showSources":false}`)
	p := r.Obj()
	if r.Status != 200 || p["isPublic"] != true || p["slug"] != "math-tutor" || p["markupPercent"] != float64(50) ||
		p["greetingCostCents"] != float64(25) || p["greeting"] != "Hi! Ask me about algebra." || p["memoryTokens"] != float64(2000) ||
		p["showSources"] != false || p["status"] != "active" {
		t.Fatalf("publish: %d %s", r.Status, r.Raw)
	}
	if at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(p["publishedAt"])); err != nil || time.Since(at) > time.Minute {
		t.Fatalf("publishedAt %v", p["publishedAt"])
	}
	// Publishing a listed agent again changes nothing and asks nobody.
	calls = l.docs.callCount()
	if r := l.patch(t, "token-alice", id, `{"isPublic":true}`); r.Status != 200 || r.Obj()["updatedAt"] != p["updatedAt"] || l.docs.callCount() != calls {
		t.Fatalf("publish again: %d %s", r.Status, r.Raw)
	}
	profile := base + "/api/marketplace/agents/math-tutor"
	if r := do(t, "GET", profile, "", ""); r.Status != 200 || r.Obj()["id"] != id || r.Obj()["available"] != true {
		t.Fatalf("profile: %d %s", r.Status, r.Raw)
	}

	// Deactivated: still listed, unavailable.
	l.patch(t, "token-alice", id, `{"status":"inactive"}`)
	if r := do(t, "GET", profile, "", ""); r.Status != 200 || r.Obj()["available"] != false {
		t.Fatalf("inactive profile: %d %s", r.Status, r.Raw)
	}
	if items := listItems(t, do(t, "GET", base+"/api/marketplace/agents", "", "")); len(items) != 1 || items[0]["available"] != false {
		t.Fatalf("inactive in the list: %v", items)
	}

	// Unpublished: off every list and profile at once; the slug is kept.
	r = l.patch(t, "token-alice", id, `{"isPublic":false}`)
	if r.Status != 200 || r.Obj()["isPublic"] != false || r.Obj()["slug"] != "math-tutor" || r.Obj()["publishedAt"] != nil {
		t.Fatalf("unpublish: %d %s", r.Status, r.Raw)
	}
	wantCode(t, "unpublished profile", do(t, "GET", profile, "", ""), 404, "not_found")
	if items := listItems(t, do(t, "GET", base+"/api/marketplace/agents", "", "")); len(items) != 0 {
		t.Fatalf("unpublished in the list: %v", items)
	}
	if items := listItems(t, do(t, "GET", base+"/api/marketplace/agents?q=math", "", "")); len(items) != 0 {
		t.Fatalf("unpublished in a search: %v", items)
	}
	if r := do(t, "GET", base+"/api/marketplace/categories", "", ""); r.Status != 200 || r.Raw != "[]\n" {
		t.Fatalf("categories after unpublish: %d %s", r.Status, r.Raw)
	}
	// Published again: the same slug.
	if r := l.patch(t, "token-alice", id, `{"isPublic":true,"status":"active"}`); r.Status != 200 || r.Obj()["slug"] != "math-tutor" {
		t.Fatalf("republish: %d %s", r.Status, r.Raw)
	}
	// Another agent of the same name gets the next slug; another user's
	// agent is 404 whatever the body.
	b := l.publishNew(t, "bob", validAgent)
	if b["slug"] != "math-tutor-2" {
		t.Fatalf("second slug %v", b["slug"])
	}
	wantCode(t, "bob publishes alice's agent", l.patch(t, "token-bob", id, `{"isPublic":false}`), 404, "not_found")
}

// Publishing, the listing fields and unpublishing emit catalog events.
func TestPublishEvents(t *testing.T) {
	l := startListing(t, nil)
	a := createAgent(t, l.http, "token-alice", validAgent)
	id := a["id"].(string)
	l.docs.set(id, 1, 1)
	if r := l.patch(t, "token-alice", id, `{"isPublic":true,"markupPercent":35,"greetingCostCents":50}`); r.Status != 200 {
		t.Fatalf("publish: %d %s", r.Status, r.Raw)
	}
	if r := l.patch(t, "token-alice", id, `{"greeting":"Hello","memoryTokens":100,"showSources":false}`); r.Status != 200 {
		t.Fatalf("listing fields: %d %s", r.Status, r.Raw)
	}
	if r := l.patch(t, "token-alice", id, `{"isPublic":false}`); r.Status != 200 {
		t.Fatalf("unpublish: %d %s", r.Status, r.Raw)
	}
	want := []string{agents.TypeAgentCreated, agents.TypeAgentUpdated, agents.TypeAgentPublished, agents.TypeAgentUpdated, agents.TypeAgentUnpublished}
	recs := eventstest.Consume(t, l.brokers, agents.Topic, len(want), 30*time.Second, time.Second)
	var got []string
	for _, rec := range recs {
		got = append(got, rec.Headers["ce_type"])
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	var upd eventsv1.AgentUpdated
	if err := protojson.Unmarshal(recs[1].Value, &upd); err != nil || fmt.Sprint(upd.GetChangedFields()) != "[greetingCostCents markupPercent]" && fmt.Sprint(upd.GetChangedFields()) != "[markupPercent greetingCostCents]" {
		t.Errorf("updated with the publish = %v %v", &upd, err)
	}
	var pub eventsv1.AgentPublished
	if err := protojson.Unmarshal(recs[2].Value, &pub); err != nil || pub.GetAgentId() != id || pub.GetOwnerUid() != "alice" || pub.GetSlug() != "math-tutor" ||
		pub.GetMarkupPercent() != 35 || pub.GetGreetingCostCents() != 50 || pub.GetName() != "Math Tutor" || pub.GetIconColor() != "#10B981" ||
		pub.GetOccurredAt() == nil {
		t.Errorf("published = %v %v", &pub, err)
	}
	if err := protojson.Unmarshal(recs[3].Value, &upd); err != nil || fmt.Sprint(upd.GetChangedFields()) != "[greeting memoryTokens showSources]" {
		t.Errorf("updated = %v %v", &upd, err)
	}
	var unpub eventsv1.AgentUnpublished
	if err := protojson.Unmarshal(recs[4].Value, &unpub); err != nil || unpub.GetAgentId() != id || unpub.GetSlug() != "math-tutor" || unpub.GetOwnerUid() != "alice" {
		t.Errorf("unpublished = %v %v", &unpub, err)
	}
}

func listItems(t *testing.T, r resp) []map[string]any {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("list: %d %s", r.Status, r.Raw)
	}
	var out []map[string]any
	for _, v := range r.Obj()["items"].([]any) {
		out = append(out, v.(map[string]any))
	}
	return out
}

// listAll pages through the list at query (with limit per page) and
// returns the slugs in order, failing on a duplicate.
func listAll(t *testing.T, base, query string, limit int) []string {
	t.Helper()
	var slugs []string
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		u := base + "/api/marketplace/agents?limit=" + strconv.Itoa(limit) + "&" + query
		if cursor != "" {
			u += "&cursor=" + url.QueryEscape(cursor)
		}
		r := do(t, "GET", u, "", "")
		items := listItems(t, r)
		if len(items) > limit {
			t.Fatalf("%s: %d items for limit %d", query, len(items), limit)
		}
		for _, it := range items {
			s := it["slug"].(string)
			if seen[s] {
				t.Fatalf("%s: %s on two pages", query, s)
			}
			seen[s] = true
			slugs = append(slugs, s)
		}
		next, _ := r.Obj()["nextCursor"].(string)
		if next == "" {
			if r.Obj()["nextCursor"] != nil {
				t.Fatalf("nextCursor %v", r.Obj()["nextCursor"])
			}
			return slugs
		}
		if len(items) != limit {
			t.Fatalf("%s: a short page (%d) with a next cursor", query, len(items))
		}
		if page > 100 {
			t.Fatal("no end")
		}
		cursor = next
	}
}

func agentBody(name, description, category string, tags ...string) string {
	b, _ := json.Marshal(map[string]any{"name": name, "description": description, "category": category, "tags": tags,
		"instructions": "SECRET-INSTRUCTIONS of " + name})
	return string(b)
}

// Discovery: the public list's sorts, filters, search ranking and paging
// (no duplicates, no gaps, ties broken by id), limits and bad queries, the
// profile, the categories, and what is never shown.
func TestMarketplaceDiscovery(t *testing.T) {
	l := startListing(t, nil)
	base := l.http
	if r := do(t, "GET", base+"/api/marketplace/status", "", ""); r.Status != 200 || r.Obj()["enabled"] != true {
		t.Fatalf("status while on: %d %s", r.Status, r.Raw)
	}
	owners := []string{"uid-alice-41x", "uid-bob-77y", "uid-carol-93z"}
	ids := map[string]string{} // slug → id
	publish := func(owner, body string) string {
		a := l.publishNew(t, owner, body)
		ids[a["slug"].(string)] = a["id"].(string)
		return a["slug"].(string)
	}
	math := publish(owners[0], agentBody("Math Tutor", "Helps with algebra homework and exam preparation", "Education", "algebra", "homework"))
	physics := publish(owners[0], agentBody("Physics Coach", "Explains mechanics step by step", "Education", "physics"))
	iso := publish(owners[1], agentBody("ISO 9001 Writer", "Writes quality manuals for audits", "Compliance", "iso", "quality"))
	contract := publish(owners[1], agentBody("Contract Reviewer", "Reads contracts and flags risky clauses in tutoring agreements", "Legal", "contracts"))
	python := publish(owners[2], agentBody("Python Helper", "Answers questions about code", "Programming", "python", "code"))
	var fillers []string
	for i := range 25 {
		fillers = append(fillers, publish(owners[i%3], agentBody(fmt.Sprintf("Filler Agent %d", i), "A generic assistant for everything", "Misc", "filler")))
	}
	if math != "math-tutor" || python != "python-helper" || fillers[0] != "filler-agent-0" {
		t.Fatalf("slugs %s %s %s", math, python, fillers[0])
	}
	// A private agent (with a subscriber) and an unpublished one never show.
	private := createAgent(t, base, "token-"+owners[2], agentBody("Math Tutor Private", "Private algebra helper", "Education", "algebra"))
	do(t, "POST", base+"/api/agents/"+private["id"].(string)+"/subscribers", "token-"+owners[2], `{"email":"subscriber-x@example.org"}`)
	gone := publish(owners[2], agentBody("Gone Agent", "Was listed once, algebra too", "Education", "algebra"))
	l.patch(t, "token-"+owners[2], ids[gone], `{"isPublic":false}`)

	// Figures the sorts read: answers, ratings (kept by the review
	// transactions), typical answers (kept by the usage consumer).
	l.exec(t, `UPDATE agents SET total_interactions = 100, rating_sum = 13, rating_count = 3, typical_answer_micros = 900 WHERE id = $1`, ids[math])
	l.exec(t, `UPDATE agents SET total_interactions = 50, rating_sum = 5, rating_count = 1, typical_answer_micros = 300 WHERE id = $1`, ids[physics])
	l.exec(t, `UPDATE agents SET total_interactions = 75, rating_sum = 18, rating_count = 4, typical_answer_micros = 5000 WHERE id = $1`, ids[iso])
	l.exec(t, `UPDATE agents SET total_interactions = 75, rating_sum = 9, rating_count = 2, typical_answer_micros = 100 WHERE id = $1`, ids[contract])
	l.exec(t, `INSERT INTO known_users (uid, email, name) VALUES ($1, 'alice.private@example.com', 'Alice A')`, owners[0])

	// Popular (the default): answers, then id (descending) for the ties.
	all := listAll(t, base, "", 50)
	if len(all) != 30 || !slices.Equal(all[:4], []string{math, later(ids, iso, contract), earlier(ids, iso, contract), physics}) {
		t.Fatalf("popular: %v", all)
	}
	for _, sort := range []string{"popular", "rating", "newest", "price"} {
		whole := listAll(t, base, "sort="+sort, 50)
		for _, limit := range []int{1, 7, 29, 30} {
			if paged := listAll(t, base, "sort="+sort, limit); !slices.Equal(paged, whole) {
				t.Errorf("%s by %d: %v, want %v", sort, limit, paged, whole)
			}
		}
		switch sort {
		case "rating": // 5.0 (1 rating), 4.5 (4), 4.5 (2), 4.33 (3); then the unrated
			if !slices.Equal(whole[:4], []string{physics, iso, contract, math}) {
				t.Errorf("rating: %v", whole[:4])
			}
		case "newest":
			if whole[0] != fillers[24] || whole[29] != math {
				t.Errorf("newest: %v", whole)
			}
		case "price": // cheapest first; the estimated ones (499 µ$ at 20%) in between
			if !slices.Equal(whole[:2], []string{contract, physics}) || whole[28] != math || whole[29] != iso {
				t.Errorf("price: %v", whole)
			}
		}
	}
	// A search: ranked (name before description, stemming: "tutoring"),
	// the last word a prefix; sorts and filters apply to the matches.
	for q, want := range map[string][]string{
		"tutor":                {math, contract},
		"TUTORS":               {math, contract},
		"math tut":             {math},
		"algebra":              {math},
		"compliance":           {iso},
		"quality manual":       {iso},
		"generic assistant 12": {"filler-agent-12"},
		"zebra":                nil,
		"!!!":                  all, // no word: no search
	} {
		if got := listAll(t, base, "q="+url.QueryEscape(q), 50); !slices.Equal(got, want) {
			t.Errorf("q=%q: %v, want %v", q, got, want)
		}
	}
	if got := listAll(t, base, "q=filler&sort=newest", 4); len(got) != 25 || got[0] != fillers[24] {
		t.Errorf("search sorted by newest: %v", got)
	}
	if got := listAll(t, base, "q=filler", 4); len(got) != 25 {
		t.Errorf("search paged by relevance: %d", len(got))
	}
	for query, want := range map[string][]string{
		"category=Education":             {math, physics},
		"category=education":             nil, // exact
		"tag=python":                     {python},
		"tag=algebra&category=Education": {math},
		"tag=filler&q=number":            nil,
	} {
		if got := listAll(t, base, query, 50); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", query, got, want)
		}
	}

	// Limits and bad queries.
	if items := listItems(t, do(t, "GET", base+"/api/marketplace/agents", "", "")); len(items) != 20 {
		t.Errorf("default limit: %d", len(items))
	}
	for _, q := range []string{"limit=0", "limit=51", "limit=-1", "limit=abc", "limit=1.5", "limit="} {
		wantCode(t, q, do(t, "GET", base+"/api/marketplace/agents?"+q, "", ""), 400, "invalid_limit")
	}
	popularCursor := do(t, "GET", base+"/api/marketplace/agents?limit=1", "", "").Obj()["nextCursor"].(string)
	for _, q := range []string{"sort=cheapest", "sort=relevance", "cursor=nope", "sort=newest&cursor=" + url.QueryEscape(popularCursor),
		"q=" + strings.Repeat("a", 201), "category=" + strings.Repeat("c", 51), "tag=" + strings.Repeat("t", 41)} {
		wantCode(t, q[:min(len(q), 30)], do(t, "GET", base+"/api/marketplace/agents?"+q, "", ""), 400, "invalid_query")
	}
	// Text PostgreSQL cannot take is refused by the platform's middleware.
	for _, q := range []string{"q=%FF%FE", "q=a%00b", "tag=%C0"} {
		wantCode(t, q, do(t, "GET", base+"/api/marketplace/agents?"+q, "", ""), 400, "validation_failed")
	}

	// The item and profile shapes; nothing owner-only anywhere.
	itemKeys := []string{"answers", "available", "category", "creatorName", "description", "greetingCostCents", "iconColor", "iconName", "id",
		"markupPercent", "memoryTokens", "name", "rating", "slug", "tags", "typicalAnswerMicros"}
	items := listItems(t, do(t, "GET", base+"/api/marketplace/agents?limit=50", "", ""))
	for _, it := range items {
		if got := mapKeys(it); !slices.Equal(got, itemKeys) {
			t.Fatalf("item keys %v", got)
		}
	}
	l.docs.set(ids[math], 4, 3)
	pr := do(t, "GET", base+"/api/marketplace/agents/"+math, "", "")
	p := pr.Obj()
	profileKeys := append(slices.Clone(itemKeys), "createdAt", "documentsCount", "greeting")
	slices.Sort(profileKeys)
	if got := mapKeys(p); !slices.Equal(got, profileKeys) {
		t.Fatalf("profile keys %v", got)
	}
	rating := p["rating"].(map[string]any)
	if pr.Status != 200 || p["id"] != ids[math] || p["name"] != "Math Tutor" || p["creatorName"] != "Alice A" || rating["average"] != 4.3 ||
		rating["count"] != float64(3) || p["answers"] != float64(100) || p["documentsCount"] != float64(3) || p["greeting"] != "" ||
		p["markupPercent"] != float64(20) || p["memoryTokens"] != float64(4000) || p["typicalAnswerMicros"] != float64(900) ||
		fmt.Sprint(p["tags"]) != "[algebra homework]" || p["available"] != true || p["createdAt"] == nil {
		t.Fatalf("profile: %d %s", pr.Status, pr.Raw)
	}
	if py := do(t, "GET", base+"/api/marketplace/agents/"+python, "", "").Obj(); py["creatorName"] != agents.UnknownCreator ||
		py["rating"].(map[string]any)["average"] != float64(0) || py["typicalAnswerMicros"] != float64(499) {
		t.Errorf("unknown creator, no rating, estimated answer: %v", py)
	}
	everything := do(t, "GET", base+"/api/marketplace/agents?limit=50", "", "").Raw + pr.Raw +
		do(t, "GET", base+"/api/marketplace/agents?q=algebra", "", "").Raw + do(t, "GET", base+"/api/marketplace/categories", "", "").Raw
	for _, secret := range append(owners, "SECRET-INSTRUCTIONS", "@example", "@agents.test", "subscriber-x", "alice.private", private["id"].(string),
		ids[gone], "Math Tutor Private", "Gone Agent", "instructions", "email", "userId", "subscribers") {
		if strings.Contains(everything, secret) {
			t.Errorf("a public answer contains %q", secret)
		}
	}
	// The documents service down: the profile shows the count at publish.
	l.docs.setDown(true)
	if p := do(t, "GET", base+"/api/marketplace/agents/"+physics, "", "").Obj(); p["documentsCount"] != float64(1) {
		t.Errorf("documents down: %v", p["documentsCount"])
	}
	l.docs.setDown(false)

	// Unknown, unlisted, private, malformed: 404.
	for _, slug := range []string{"no-such-agent", gone, "Math-Tutor", "math_tutor", strings.Repeat("a", 80), private["id"].(string)} {
		wantCode(t, slug, do(t, "GET", base+"/api/marketplace/agents/"+slug, "", ""), 404, "not_found")
	}
	// Categories: listed agents only, most first.
	r := do(t, "GET", base+"/api/marketplace/categories", "", "")
	if r.Status != 200 || r.Raw != `[{"category":"Misc","count":25},{"category":"Education","count":2},{"category":"Compliance","count":1},`+
		`{"category":"Legal","count":1},{"category":"Programming","count":1}]`+"\n" {
		t.Fatalf("categories: %d %s", r.Status, r.Raw)
	}
	// Other methods: 405.
	for _, p := range []string{"/api/marketplace/agents", "/api/marketplace/agents/" + math, "/api/marketplace/categories"} {
		wantCode(t, "POST "+p, do(t, "POST", base+p, "token-"+owners[0], `{}`), 405, "method_not_allowed")
	}
}

// later and earlier order two ids as the list breaks ties (id descending).
func later(ids map[string]string, a, b string) string {
	if ids[a] > ids[b] {
		return a
	}
	return b
}

func earlier(ids map[string]string, a, b string) string {
	if later(ids, a, b) == a {
		return b
	}
	return a
}

// The typical answer follows the usage events: the estimate before any
// answer, then the median of the answers' price with the markup.
func TestTypicalAnswerFromUsage(t *testing.T) {
	l := startListing(t, func(c *Config) { c.EstimateInputPrice, c.EstimateOutputPrice = 500_000, 1_500_000 })
	a := l.publishNew(t, "alice", validAgent)
	id := a["id"].(string)
	profile := l.http + "/api/marketplace/agents/math-tutor"
	if p := do(t, "GET", profile, "", "").Obj(); p["typicalAnswerMicros"] != float64(1476) || p["answers"] != float64(0) {
		t.Fatalf("estimate: %v", p)
	}
	for i, cost := range []int64{1000, 3000, 2000} {
		publishInteraction(t, l.brokers, fmt.Sprintf("usage-%d", i), &eventsv1.InteractionRecorded{
			InteractionId: fmt.Sprintf("m%d", i), AgentId: id, OwnerUid: "alice", UserUid: "alice",
			CostMicros: cost, FeeMicros: cost * 3 / 100, TotalMicros: cost + cost*3/100,
		})
	}
	// The median answer: 2,000 + 60 fee + 20% markup (400).
	testwait.Until(t, "the answers counted", func() bool {
		p := do(t, "GET", profile, "", "").Obj()
		return p["answers"] == float64(3) && p["typicalAnswerMicros"] == float64(2460)
	}, waitOpts...)
	// A new markup re-prices them.
	if r := l.patch(t, "token-alice", id, `{"markupPercent":100}`); r.Status != 200 {
		t.Fatalf("markup: %d %s", r.Status, r.Raw)
	}
	if p := do(t, "GET", profile, "", "").Obj(); p["typicalAnswerMicros"] != float64(4060) || p["markupPercent"] != float64(100) {
		t.Fatalf("after the markup: %v", p)
	}
	// Consumers' answers (issue 28) count at cost + fee: their total's
	// markup and greeting are not added twice. Three at 1,000 → the
	// median of 2,030 ×4, 4,060, 6,090 is 2,030.
	for i := range 3 {
		publishInteraction(t, l.brokers, fmt.Sprintf("usage-consumer-%d", i), &eventsv1.InteractionRecorded{
			InteractionId: fmt.Sprintf("c%d", i), AgentId: id, OwnerUid: "alice", UserUid: "zed", PayerUid: "zed", PayerRole: "consumer",
			CostMicros: 1000, FeeMicros: 30, MarkupMicros: 1000, GreetingMicros: 20_000, TotalMicros: 22_030,
		})
	}
	testwait.Until(t, "the consumers' answers counted", func() bool {
		p := do(t, "GET", profile, "", "").Obj()
		return p["answers"] == float64(6) && p["typicalAnswerMicros"] == float64(2030)
	}, waitOpts...)
}

// Off (MARKETPLACE_ENABLED=false): the public routes are 404 and publishing
// is "coming soon", as before the marketplace; the listing fields are
// ignored.
func TestMarketplaceSwitchOff(t *testing.T) {
	app := start(t, "")
	base := app.http
	for _, p := range []string{"/api/marketplace/agents", "/api/marketplace/agents?q=x&limit=0", "/api/marketplace/agents/math-tutor", "/api/marketplace/categories"} {
		wantCode(t, p, do(t, "GET", base+p, "", ""), 404, "not_found")
	}
	// The status route answers in both states (the web app reads it).
	if r := do(t, "GET", base+"/api/marketplace/status", "", ""); r.Status != 200 || r.Obj()["enabled"] != false {
		t.Fatalf("status while off: %d %s", r.Status, r.Raw)
	}
	a := createAgent(t, base, "token-alice", validAgent)
	r := do(t, "PATCH", base+"/api/agents/"+a["id"].(string), "token-alice", `{"isPublic":true}`)
	wantField(t, "publish while off", r, "isPublic", agents.MsgPublicComingSoon)
	r = do(t, "PATCH", base+"/api/agents/"+a["id"].(string), "token-alice", `{"markupPercent":999,"greeting":"hi"}`)
	if r.Status != 200 || r.Obj()["markupPercent"] != float64(20) || r.Obj()["greeting"] != "" || r.Obj()["updatedAt"] != a["updatedAt"] {
		t.Fatalf("listing fields while off: %d %s", r.Status, r.Raw)
	}
	r = do(t, "POST", base+"/api/agents", "token-alice", strings.Replace(validAgent, `"isPublic":false`, `"isPublic":true`, 1))
	wantField(t, "create public while off", r, "isPublic", agents.MsgPublicComingSoon)
}

// randomIPv4 is an address no other run of the test shares (the quota's
// Redis keys outlive a run).
func randomIPv4(t *testing.T) string {
	t.Helper()
	var parts []string
	for range 3 {
		n, err := rand.Int(rand.Reader, big.NewInt(256))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, n.String())
	}
	return "10." + strings.Join(parts, ".")
}

func doFrom(t *testing.T, u, forwardedFor string) (resp, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("X-Forwarded-For", forwardedFor)
	r := apitest.Send(t, req)
	return r, r.Header
}

// RATE_LIMIT_MARKETPLACE per client address (here 3 a minute): the routes
// share one counter; the fourth request is 429 with Retry-After and the
// limit in its message; another address is not affected.
func TestMarketplaceRateLimitPerAddress(t *testing.T) {
	l := startListing(t, func(c *Config) { c.MarketplaceRate = "3/1m" })
	l.publishNew(t, "alice", validAgent)
	addr, other := randomIPv4(t), randomIPv4(t)
	for _, p := range []string{"/api/marketplace/agents", "/api/marketplace/agents/math-tutor", "/api/marketplace/categories"} {
		// A client-sent first entry is not trusted: the last one is the gateway's peer.
		if r, _ := doFrom(t, l.http+p, "203.0.113.9, "+addr); r.Status != 200 {
			t.Fatalf("%s: %d %s", p, r.Status, r.Raw)
		}
	}
	r, h := doFrom(t, l.http+"/api/marketplace/agents?q=math", "198.51.100.1,"+addr)
	rule, _ := marketplaceRule("3/1m")
	secs, _ := strconv.Atoi(h.Get("Retry-After"))
	if r.Status != 429 || r.Obj()["error"] != "rate_limited" || secs < 1 || r.Obj()["message"] != ratelimit.LimitMessage(rule, secs) {
		t.Fatalf("fourth request: %d %s (Retry-After %q)", r.Status, r.Raw, h.Get("Retry-After"))
	}
	if r, _ := doFrom(t, l.http+"/api/marketplace/agents", other); r.Status != 200 {
		t.Fatalf("another address: %d %s", r.Status, r.Raw)
	}
	// The owner's routes are not counted against an address.
	for range 4 {
		if r := do(t, "GET", l.http+"/api/agents", "token-alice", ""); r.Status != 200 {
			t.Fatalf("owner list: %d", r.Status)
		}
	}
}

// Redis unreachable: the marketplace is served (the quota fails open).
func TestMarketplaceRateLimitFailsOpen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	rdb := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: 100 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	rule, err := marketplaceRule("1/1m")
	if err != nil {
		t.Fatal(err)
	}
	served := 0
	h := marketplaceGate(ratelimit.New(rdb, ratelimit.Options{Service: ServiceName}), rule, 0)(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		served++
		w.WriteHeader(http.StatusNoContent)
	}))
	for range 3 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/marketplace/agents", nil))
		if rec.Code != http.StatusNoContent {
			t.Fatalf("Redis down: %d %s", rec.Code, rec.Body)
		}
	}
	if served != 3 {
		t.Fatalf("served %d", served)
	}
}

func TestClientAddress(t *testing.T) {
	for _, c := range []struct {
		xff, remote string
		hops        int
		want        string
	}{
		{"", "192.0.2.7:5555", 0, "192.0.2.7"},
		{"198.51.100.4", "10.0.0.1:80", 0, "198.51.100.4"},
		{"1.1.1.1, 198.51.100.4", "10.0.0.1:80", 0, "198.51.100.4"}, // the client's own entry is ignored
		{"1.1.1.1, 198.51.100.4, 10.1.2.3", "10.0.0.1:80", 1, "198.51.100.4"},
		{"198.51.100.4", "10.0.0.1:80", 3, "198.51.100.4"}, // fewer entries than hops: the leftmost
		{"2001:db8:1:2:3:4:5:6", "10.0.0.1:80", 0, "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff::1", "10.0.0.1:80", 0, "2001:db8:1:2::/64"},
		{"::ffff:198.51.100.4", "10.0.0.1:80", 0, "198.51.100.4"},
		{"198.51.100.4:1234", "10.0.0.1:80", 0, "198.51.100.4"},
		{"garbage", "[2001:db8::1]:443", 0, "2001:db8::/64"},
	} {
		r := httptest.NewRequest("GET", "/api/marketplace/agents", nil)
		r.RemoteAddr = c.remote
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := ClientAddress(r, c.hops); got != c.want {
			t.Errorf("XFF %q remote %q hops %d: %q, want %q", c.xff, c.remote, c.hops, got, c.want)
		}
	}
}

// The settings: defaults, and a malformed value stops the service at start
// naming the variable.
func TestMarketplaceSettings(t *testing.T) {
	t.Setenv("APP_ENV", "development")
	for _, k := range []string{"DOCUMENTS_GRPC_ADDR", "RATE_LIMIT_MARKETPLACE", "TRUSTED_PROXY_HOPS", "MARKETPLACE_ESTIMATE_INPUT_PRICE", "MARKETPLACE_ESTIMATE_OUTPUT_PRICE"} {
		t.Setenv(k, "")
	}
	c, err := LoadConfig()
	if err != nil {
		t.Fatal(err)
	}
	if c.DocumentsGRPCAddr != "127.0.0.1:9103" || c.MarketplaceRate != "120/1m" || c.TrustedProxyHops != 0 ||
		answerEstimate(c).ForMarkup(20) != 499 {
		t.Errorf("defaults: %+v", c)
	}
	rule, err := marketplaceRule(c.MarketplaceRate)
	if err != nil || rule.Limit != 120 || rule.Window != time.Minute || rule.Mode != ratelimit.FailOpen || rule.Class != MarketplaceClass {
		t.Errorf("rule %+v %v", rule, err)
	}
	for k, v := range map[string]string{"RATE_LIMIT_MARKETPLACE": "lots", "TRUSTED_PROXY_HOPS": "-1", "MARKETPLACE_ESTIMATE_INPUT_PRICE": "-5"} {
		t.Run(k, func(t *testing.T) {
			t.Setenv(k, v)
			if _, err := LoadConfig(); err == nil || !strings.Contains(err.Error(), strings.TrimSuffix(k, "_INPUT_PRICE")) {
				t.Errorf("%s=%q: %v", k, v, err)
			}
		})
	}
}
