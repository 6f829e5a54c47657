package app

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
)

// Issue 27: GET /api/library lists the agents a user talked to from the
// marketplace (their consumer conversations), most recent first, with their
// latest conversations; an agent no longer listed still shows.

func libraryOf(t *testing.T, e *env, uid string) []map[string]any {
	t.Helper()
	r := e.do(t, "GET", "/api/library", uid, "")
	if r.Status != 200 {
		t.Fatalf("library of %s: %d %s", uid, r.Status, r.Raw)
	}
	raw, ok := r.Obj()["agents"].([]any)
	if !ok {
		t.Fatalf("library of %s: no agents array: %s", uid, r.Raw)
	}
	out := make([]map[string]any, len(raw))
	for i, a := range raw {
		out[i] = a.(map[string]any)
	}
	return out
}

func convIDs(a map[string]any) []string {
	var ids []string
	for _, c := range a["conversations"].([]any) {
		ids = append(ids, c.(map[string]any)["id"].(string))
	}
	return ids
}

func TestLibraryListsConsumerConversations(t *testing.T) {
	e := start(t, options{})
	e.listAgentA(t, true)
	e.catalog.AddAgent(&catalogv1.Agent{Id: agentB, OwnerUid: e.dave, Name: "Chef", IconName: "chef-hat", IconColor: "#f97316",
		Status: "active", IsPublic: true, Listed: true, Slug: "chef", MarkupPercent: 20})
	e.wallet.SetBalance(e.carol, 10*dollar)
	tick := func() { time.Sleep(5 * time.Millisecond) } // distinct creation times

	// No token: 401. Nothing yet: an empty list.
	if r := e.do(t, "GET", "/api/library", "", ""); r.Status != 401 {
		t.Fatalf("no token: %d %s", r.Status, r.Raw)
	}
	if lib := libraryOf(t, e, e.carol); len(lib) != 0 {
		t.Fatalf("empty library: %v", lib)
	}

	// carol (a consumer of both): one conversation with A, six with B, then
	// another with A; one of B's is deleted.
	a1 := e.newConversation(t, e.carol, agentA)
	tick()
	var bs []string
	for range 6 {
		bs = append(bs, e.newConversation(t, e.carol, agentB))
		tick()
	}
	if r := e.do(t, "DELETE", "/api/conversations/"+bs[5], e.carol, ""); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	a2 := e.newConversation(t, e.carol, agentA)
	tick()
	// The owner's and a subscriber's conversations are not marketplace ones.
	e.newConversation(t, e.alice, agentA)
	e.newConversation(t, e.bob, agentA)

	lib := libraryOf(t, e, e.carol)
	if len(lib) != 2 || lib[0]["agentId"] != agentA || lib[1]["agentId"] != agentB {
		t.Fatalf("library order: %v", lib)
	}
	a := lib[0]
	if a["name"] != "Math Tutor" || a["iconColor"] != "#4f46e5" || a["slug"] != "math-tutor" || a["listed"] != true {
		t.Fatalf("agent A: %v", a)
	}
	if ids := convIDs(a); len(ids) != 2 || ids[0] != a2 || ids[1] != a1 {
		t.Fatalf("A's conversations %v, want [%s %s]", ids, a2, a1)
	}
	c0 := a["conversations"].([]any)[0].(map[string]any)
	if c0["title"] != "New conversation" || c0["updatedAt"] == "" || len(c0) != 3 {
		t.Fatalf("conversation entry %v", c0)
	}
	if last, _ := time.Parse(time.RFC3339Nano, a["lastActivityAt"].(string)); last.IsZero() {
		t.Fatalf("lastActivityAt %v", a["lastActivityAt"])
	}
	b := lib[1]
	if b["name"] != "Chef" || b["iconName"] != "chef-hat" || b["slug"] != "chef" || b["listed"] != true {
		t.Fatalf("agent B: %v", b)
	}
	// At most 5 per agent, newest first; the deleted one left out.
	if ids := convIDs(b); len(ids) != 5 || ids[0] != bs[4] || ids[4] != bs[0] {
		t.Fatalf("B's conversations %v (created %v)", ids, bs)
	}

	// Others see only their own: alice (owner) and bob (subscriber) have none.
	if lib := libraryOf(t, e, e.alice); len(lib) != 0 {
		t.Fatalf("owner's library: %v", lib)
	}
	if lib := libraryOf(t, e, e.bob); len(lib) != 0 {
		t.Fatalf("subscriber's library: %v", lib)
	}

	// A message moves B's oldest conversation, and B, to the top.
	if r := e.sendJSON(t, e.carol, bs[0], question, "lib-1"); r.Status != 200 {
		t.Fatalf("send: %d %s", r.Status, r.Raw)
	}
	lib = libraryOf(t, e, e.carol)
	if lib[0]["agentId"] != agentB || convIDs(lib[0])[0] != bs[0] {
		t.Fatalf("after a message: %v", lib)
	}

	// Conversations from before the role was recorded (NULL) are not listed.
	pool, err := pgxpool.New(context.Background(), e.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(context.Background(), `UPDATE conversations SET access_role = NULL WHERE id = $1`, a1); err != nil {
		t.Fatal(err)
	}
	var roles []string
	rows, _ := pool.Query(context.Background(), `SELECT COALESCE(access_role, 'null') FROM conversations WHERE user_uid = $1 ORDER BY created_at`, e.carol)
	for rows.Next() {
		var r string
		_ = rows.Scan(&r)
		roles = append(roles, r)
	}
	rows.Close()
	if len(roles) != 8 || roles[0] != "null" || roles[1] != "consumer" {
		t.Fatalf("stored roles %v", roles)
	}
	var owner string
	if err := pool.QueryRow(context.Background(), `SELECT access_role FROM conversations WHERE user_uid = $1`, e.alice).Scan(&owner); err != nil || owner != "owner" {
		t.Fatalf("owner's role %q %v", owner, err)
	}
	if ids := convIDs(libraryOf(t, e, e.carol)[1]); len(ids) != 1 || ids[0] != a2 {
		t.Fatalf("A's conversations with a NULL role: %v", ids)
	}

	// Unpublished: still shown, not listed, its conversations readable.
	e.listAgentA(t, false)
	lib = libraryOf(t, e, e.carol)
	if len(lib) != 2 || lib[1]["agentId"] != agentA || lib[1]["listed"] != false || lib[1]["name"] != "Math Tutor" {
		t.Fatalf("unlisted agent: %v", lib)
	}
	if r := e.do(t, "GET", "/api/conversations/"+a2, e.carol, ""); r.Status != 200 {
		t.Fatalf("read an unlisted agent's conversation: %d %s", r.Status, r.Raw)
	}

	// Deleted from the catalog: shown by id, without name or slug.
	e.catalog.RemoveAgent(agentB)
	lib = libraryOf(t, e, e.carol)
	if lib[0]["agentId"] != agentB || lib[0]["name"] != "" || lib[0]["slug"] != "" || lib[0]["listed"] != false {
		t.Fatalf("deleted agent: %v", lib[0])
	}

	// The catalog away: 503 catalog_unavailable.
	e.catalog.SetDown(true)
	if r := e.do(t, "GET", "/api/library", e.carol, ""); r.Status != 503 || r.Obj()["error"] != "catalog_unavailable" {
		t.Fatalf("catalog down: %d %s", r.Status, r.Raw)
	}
	e.catalog.SetDown(false)
}

// At most 20 agents, the most recent first.
func TestLibraryKeepsTheTwentyMostRecentAgents(t *testing.T) {
	e := start(t, options{})
	var ids []string
	for i := range 22 {
		id := "01900000-0000-7000-8000-0000000001" + strconv.Itoa(10+i)
		ids = append(ids, id)
		e.catalog.AddAgent(&catalogv1.Agent{Id: id, OwnerUid: e.dave, Name: "Agent " + strconv.Itoa(i), Status: "active",
			IsPublic: true, Listed: true, Slug: "agent-" + strconv.Itoa(i)})
		e.newConversation(t, e.carol, id)
		time.Sleep(2 * time.Millisecond)
	}
	lib := libraryOf(t, e, e.carol)
	if len(lib) != 20 || lib[0]["agentId"] != ids[21] || lib[19]["agentId"] != ids[2] {
		t.Fatalf("%d agents, first %v last %v", len(lib), lib[0]["agentId"], lib[len(lib)-1]["agentId"])
	}
}
