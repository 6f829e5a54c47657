package app

import (
	neturl "net/url"

	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	documentsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/documents/v1"
	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/documents/internal/documents"
	"github.com/agentic-app/agentic/services/documents/internal/drivesim"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
)

const syllabusDoc = `CS101 Introduction to Programming

Grading Policy
Your final grade is computed from the weekly homework (40%), the midterm exam (25%) and the final exam (35%).

Office Hours
Office hours are on Tuesdays from 2 to 4 pm in room 101.
`

const faqDoc = `Product FAQ

How do I reset my password?
Open the settings page, choose Security and follow the password reset link sent to your e-mail address.
`

func searchPath(base, agent string) string {
	return base + "/api/agents/" + agent + "/knowledge/search"
}

// waitDocs polls the list until every document's sync has finished.
func waitDocs(t *testing.T, base, agent, token string) map[string]map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := do(t, "GET", docsPath(base, agent), token, "")
		out := map[string]map[string]any{}
		done := true
		for _, v := range r.List() {
			d := v.(map[string]any)
			out[d["name"].(string)] = d
			if d["syncState"] != "synced" {
				done = false
			}
		}
		if done {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("documents not synced: %s", r.Raw)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

func TestKnowledge(t *testing.T) {
	catalogAddr, _ := startCatalog(t)
	sim, err := drivesim.New(drivesim.Config{DriveLikeExport: true})
	if err != nil {
		t.Fatal(err)
	}
	app := startWith(t, catalogAddr, options{drive: sim})
	base, alice := app.http, "token-alice"
	email := agentEmail(agentA)

	syl, _ := sim.CreateFile(drivesim.File{Title: "CS101 Syllabus", Text: syllabusDoc, SharedWith: []string{email}})
	private, _ := sim.CreateFile(drivesim.File{Title: "Private notes", Text: "The answer key is 42."})
	faq, _ := sim.CreateFile(drivesim.File{Title: "FAQ", Text: faqDoc, AnyoneWithLink: true})

	// Linking: the status starts as the client sent it, the sync is queued,
	// every sync field is present.
	r := do(t, "POST", docsPath(base, agentA), alice, docBody("Syllabus", drivesim.DocsURL(syl.ID), "course"))
	if r.Status != 201 {
		t.Fatalf("add: %d %s", r.Status, r.Raw)
	}
	d := r.Obj()
	for k, want := range map[string]any{"sharingStatus": "shared", "syncState": "queued", "syncError": nil, "driveTitle": nil,
		"syncedAt": nil, "modifiedTime": nil, "tokenCount": nil} {
		if v, ok := d[k]; !ok || v != want {
			t.Errorf("new document %s = %v (present %v), want %v", k, v, ok, want)
		}
	}
	sylID := d["id"].(string)
	r = do(t, "POST", docsPath(base, agentA), alice, docBody("Private", drivesim.DocsURL(private.ID)))
	privateID := r.Obj()["id"].(string)
	r = do(t, "POST", docsPath(base, agentA), alice, docBody("FAQ", drivesim.DocsURL(faq.ID), "faq"))
	faqID := r.Obj()["id"].(string)

	docs := waitDocs(t, base, agentA, alice)
	s := docs["Syllabus"]
	if s["sharingStatus"] != "shared" || s["driveTitle"] != "CS101 Syllabus" || s["syncError"] != nil ||
		s["tokenCount"].(float64) < 20 || s["syncedAt"] == nil || s["modifiedTime"] != syl.ModifiedTime.Format("2006-01-02T15:04:05.999Z07:00") {
		t.Errorf("syllabus = %v", s)
	}
	p := docs["Private"]
	if p["sharingStatus"] != "not_shared" || !strings.Contains(fmt.Sprint(p["syncError"]), email) || p["tokenCount"] != nil {
		t.Errorf("private = %v", p)
	}
	if docs["FAQ"]["sharingStatus"] != "shared" {
		t.Errorf("faq = %v", docs["FAQ"])
	}
	// The private document is linked but not readable.
	if c := countDocuments(t, app.grpc, agentA); c.GetTotal() != 3 || c.GetReady() != 2 {
		t.Errorf("CountDocuments with one unshared = %v, want 3 linked, 2 ready", c)
	}

	// Test retrieval.
	r = do(t, "POST", searchPath(base, agentA), alice, `{"query":"What is the grading policy?"}`)
	if r.Status != 200 || len(r.List()) == 0 {
		t.Fatalf("search: %d %s", r.Status, r.Raw)
	}
	top := r.List()[0].(map[string]any)
	if top["documentId"] != sylID || top["documentName"] != "Syllabus" || fmt.Sprint(top["labels"]) != "[course]" ||
		!strings.Contains(top["text"].(string), "Grading Policy") || top["score"].(float64) <= 0 ||
		top["url"] != drivesim.DocsURL(syl.ID) || top["tokenCount"].(float64) <= 0 || top["start"].(float64) != 0 ||
		top["end"].(float64) <= top["start"].(float64) {
		t.Fatalf("top passage: %v", top)
	}
	if r = do(t, "POST", searchPath(base, agentA), alice, `{"query":"answer key"}`); r.Status != 200 || r.Raw != "[]\n" {
		t.Fatalf("unshared text searchable: %s", r.Raw)
	}
	if r = do(t, "POST", searchPath(base, agentA), alice, `{"query":"password or grading or office","limit":1}`); len(r.List()) != 1 {
		t.Fatalf("limit 1: %s", r.Raw)
	}
	if r = do(t, "POST", searchPath(base, agentA), alice, `{"query":"`+strings.Repeat("a", 1000)+`"}`); r.Status != 200 {
		t.Fatalf("1000 characters: %d %s", r.Status, r.Raw)
	}
	for _, c := range []struct{ body, code string }{
		{`{"query":""}`, "invalid_query"},
		{`{"query":" \n\t "}`, "invalid_query"},
		{`{}`, "invalid_query"},
		{`{"query":"` + strings.Repeat("é", 1001) + `"}`, "invalid_query"},
		{`{"query":"grading","limit":0}`, "invalid_limit"},
		{`{"query":"grading","limit":21}`, "invalid_limit"},
		{`{"query":"grading","limit":"5"}`, "invalid_json"},
		{`{"query":5}`, "invalid_json"},
		{`nope`, "invalid_json"},
	} {
		if r := do(t, "POST", searchPath(base, agentA), alice, c.body); r.Status != 400 || r.Obj()["error"] != c.code || r.Obj()["message"] == "" {
			t.Errorf("%s: %d %s", truncate(c.body), r.Status, truncate(r.Raw))
		}
	}

	// Sync now: share the private document, ask, and it becomes readable.
	if err := sim.Share(private.ID, email); err != nil {
		t.Fatal(err)
	}
	r = do(t, "POST", docsPath(base, agentA)+"/"+privateID+"/sync", alice, "")
	if r.Status != 202 || r.Obj()["id"] != privateID || r.Obj()["syncState"] != "queued" || r.Obj()["name"] != "Private" {
		t.Fatalf("sync now: %d %s", r.Status, r.Raw)
	}
	docs = waitDocs(t, base, agentA, alice)
	if docs["Private"]["sharingStatus"] != "shared" || docs["Private"]["syncError"] != nil || docs["Private"]["driveTitle"] != "Private notes" {
		t.Fatalf("after sharing: %v", docs["Private"])
	}
	if r = do(t, "POST", searchPath(base, agentA), alice, `{"query":"answer key"}`); len(r.List()) != 1 {
		t.Fatalf("shared text not searchable: %s", r.Raw)
	}

	// Ownership: the new routes answer 404 like the others.
	for _, c := range []struct{ token, path, msg string }{
		{"token-bob", searchPath(base, agentA), "Agent not found"},
		{"token-bob", docsPath(base, agentA) + "/" + sylID + "/sync", "Agent not found"},
		{alice, searchPath(base, unknown), "Agent not found"},
		{alice, searchPath(base, "nope"), "Agent not found"},
		{alice, docsPath(base, agentB) + "/" + sylID + "/sync", "Agent not found"},
		{alice, docsPath(base, agentA2) + "/" + sylID + "/sync", "Document not found"},
		{alice, docsPath(base, agentA) + "/nope/sync", "Document not found"},
		{alice, docsPath(base, agentA) + "/" + unknown + "/sync", "Document not found"},
	} {
		// An invalid body does not matter: ownership is checked first.
		if r := do(t, "POST", c.path, c.token, `{"query":""}`); r.Status != 404 || r.Obj()["message"] != c.msg {
			t.Errorf("%s as %s: %d %s", c.path, c.token, r.Status, r.Raw)
		}
	}
	if r := do(t, "GET", searchPath(base, agentA), alice, ""); r.Status != 405 {
		t.Errorf("GET search: %d", r.Status)
	}
	if r := do(t, "POST", searchPath(base, agentA), "", `{"query":"x"}`); r.Status != 401 {
		t.Errorf("no token: %d", r.Status)
	}

	// gRPC KnowledgeService.
	conn, err := grpc.NewClient(app.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	kc := documentsv1.NewKnowledgeServiceClient(conn)
	ctx := context.Background()

	// CountDocuments (the catalog's publishing rule): every linked document,
	// and those the agent can read (shared, text indexed).
	var want documents.Counts
	for _, d := range waitDocs(t, base, agentA, alice) {
		want.Total++
		if d["sharingStatus"] == "shared" && d["tokenCount"] != nil {
			want.Ready++
		}
	}
	if cr, err := kc.CountDocuments(ctx, &documentsv1.CountDocumentsRequest{AgentId: agentA}); err != nil || want.Ready == 0 ||
		cr.GetTotal() != want.Total || cr.GetReady() != want.Ready {
		t.Fatalf("CountDocuments = %v %v, want %+v", cr, err, want)
	}
	for _, id := range []string{unknown, "nope"} {
		if cr, err := kc.CountDocuments(ctx, &documentsv1.CountDocumentsRequest{AgentId: id}); err != nil || cr.GetTotal() != 0 || cr.GetReady() != 0 {
			t.Errorf("CountDocuments(%s) = %v %v", id, cr, err)
		}
	}
	if _, err := kc.CountDocuments(ctx, &documentsv1.CountDocumentsRequest{}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("CountDocuments without agent_id = %v", err)
	}
	sr, err := kc.Search(ctx, &documentsv1.SearchRequest{AgentId: agentA, Query: "How do I reset my password or see my grade?", Labels: []string{"faq"}})
	if err != nil || len(sr.GetPassages()) == 0 {
		t.Fatalf("grpc search: %v %v", sr, err)
	}
	for _, p := range sr.GetPassages() {
		if p.GetDocumentId() != faqID || p.GetDocumentName() != "FAQ" || p.GetChunkId() == "" || p.GetUrl() != drivesim.DocsURL(faq.ID) {
			t.Fatalf("label filter: %v", p)
		}
	}
	sr, err = kc.Search(ctx, &documentsv1.SearchRequest{AgentId: agentA, Query: "grading", DocumentIds: []string{sylID}, TokenBudget: 3})
	if err != nil || len(sr.GetPassages()) != 1 || sr.GetPassages()[0].GetTokenCount() > 3 {
		t.Fatalf("budget 3: %v %v", sr, err)
	}
	if sr, err = kc.Search(ctx, &documentsv1.SearchRequest{AgentId: agentA, Query: "what is the"}); err != nil || len(sr.GetPassages()) != 0 {
		t.Fatalf("stop words: %v %v", sr, err)
	}
	if _, err := kc.Search(ctx, &documentsv1.SearchRequest{Query: "grading"}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("no agent: %v", err)
	}
	gp, err := kc.GetPassages(ctx, &documentsv1.GetPassagesRequest{AgentId: agentA, DocumentIds: []string{faqID, sylID}})
	if err != nil || len(gp.GetPassages()) < 2 || gp.GetPassages()[0].GetDocumentId() != faqID ||
		gp.GetPassages()[len(gp.GetPassages())-1].GetDocumentId() != sylID {
		t.Fatalf("get passages: %v %v", gp, err)
	}
	if _, err := kc.GetPassages(ctx, &documentsv1.GetPassagesRequest{DocumentIds: []string{faqID}}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("get passages without agent: %v", err)
	}

	// Events: added ×3, synced ×3 (each first readable text), none for the
	// first "not shared" of the private document (nothing changed).
	recs := eventstest.Consume(t, app.brokers, documents.Topic, 6, 30*time.Second, time.Second)
	synced := map[string]*eventsv1.DocumentSynced{}
	added := 0
	for _, rec := range recs {
		switch rec.Headers["ce_type"] {
		case documents.TypeDocumentAdded:
			added++
		case documents.TypeDocumentSynced:
			var m eventsv1.DocumentSynced
			if err := protojson.Unmarshal(rec.Value, &m); err != nil {
				t.Fatal(err)
			}
			synced[m.GetDocumentId()] = &m
			if rec.Key != agentA || rec.Headers["ce_subject"] != m.GetDocumentId() {
				t.Errorf("synced record key %q subject %q", rec.Key, rec.Headers["ce_subject"])
			}
		}
	}
	if added != 3 || len(recs) != 6 || len(synced) != 3 {
		t.Fatalf("events: %d records, %d added, %d synced", len(recs), added, len(synced))
	}
	if m := synced[sylID]; m.GetDriveTitle() != "CS101 Syllabus" || m.GetSharingStatus() != "shared" || m.GetFileType() != "Google Docs" ||
		m.GetTokenCount() == 0 || m.GetName() != "Syllabus" || m.GetOwnerUid() != "alice" {
		t.Errorf("syllabus synced = %v", m)
	}
}

// countDocuments asks KnowledgeService.CountDocuments.
func countDocuments(t *testing.T, addr, agentID string) *documentsv1.CountDocumentsResponse {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c, err := documentsv1.NewKnowledgeServiceClient(conn).CountDocuments(context.Background(), &documentsv1.CountDocumentsRequest{AgentId: agentID})
	if err != nil {
		t.Fatalf("CountDocuments: %v", err)
	}
	return c
}

// The add form's preview: the Google Docs title when the agent can open the
// document; no title and no error when it cannot (yet); a bad link is 400;
// another user's agent 404.
func TestDocumentPreview(t *testing.T) {
	catalogAddr, _ := startCatalog(t)
	sim, err := drivesim.New(drivesim.Config{DriveLikeExport: true})
	if err != nil {
		t.Fatal(err)
	}
	app := startWith(t, catalogAddr, options{drive: sim})
	base, alice := app.http, "token-alice"
	shared, _ := sim.CreateFile(drivesim.File{Title: "CS101 Syllabus", Text: syllabusDoc, SharedWith: []string{agentEmail(agentA)}})
	private, _ := sim.CreateFile(drivesim.File{Title: "Private notes", Text: "secret"})
	preview := func(agent, url string) resp {
		return do(t, "GET", docsPath(base, agent)+"/preview?url="+neturl.QueryEscape(url), alice, "")
	}
	if r := preview(agentA, drivesim.DocsURL(shared.ID)); r.Status != 200 || r.Obj()["title"] != "CS101 Syllabus" || r.Obj()["shared"] != true {
		t.Fatalf("shared preview: %d %s", r.Status, r.Raw)
	}
	if r := preview(agentA, drivesim.DocsURL(private.ID)); r.Status != 200 || r.Obj()["title"] != nil || r.Obj()["shared"] != false {
		t.Fatalf("private preview: %d %s", r.Status, r.Raw)
	}
	if r := preview(agentA, "https://example.com/x"); r.Status != 400 {
		t.Fatalf("bad link: %d %s", r.Status, r.Raw)
	}
	if r := preview(agentB, drivesim.DocsURL(shared.ID)); r.Status != 404 {
		t.Fatalf("bob's agent: %d %s", r.Status, r.Raw)
	}
	// Sharing it later: the title shows.
	if err := sim.Share(private.ID, agentEmail(agentA)); err != nil {
		t.Fatal(err)
	}
	if r := preview(agentA, drivesim.DocsURL(private.ID)); r.Obj()["title"] != "Private notes" {
		t.Fatalf("after sharing: %d %s", r.Status, r.Raw)
	}
}
