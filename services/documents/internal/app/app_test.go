package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/documents/internal/documents"
	"github.com/agentic-app/agentic/services/documents/internal/drivesim"
	"github.com/agentic-app/agentic/services/documents/internal/embeddings/embeddingstest"
	"github.com/agentic-app/agentic/services/platform/apitest"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
	"github.com/agentic-app/agentic/services/platform/service/servicetest"
)

// Agents of the fake catalog.
const (
	agentA  = "01900000-0000-7000-8000-00000000000a" // alice
	agentA2 = "01900000-0000-7000-8000-0000000000a2" // alice
	agentB  = "01900000-0000-7000-8000-00000000000b" // bob
	unknown = "01900000-0000-7000-8000-0000000000ff" // nobody
)

// fakeCatalog is the catalog's gRPC API with fixed agents; down makes every
// call fail with UNAVAILABLE.
type fakeCatalog struct {
	catalogv1.UnimplementedCatalogServiceServer
	mu     sync.Mutex
	owners map[string]string
	down   bool
	calls  int
}

func (f *fakeCatalog) CheckOwnership(_ context.Context, req *catalogv1.CheckOwnershipRequest) (*catalogv1.CheckOwnershipResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.down {
		return nil, status.Error(codes.Unavailable, "catalog is down")
	}
	if req.GetAgentId() == "" || req.GetUid() == "" {
		return nil, status.Error(codes.InvalidArgument, "agent_id and uid are required")
	}
	owner, ok := f.owners[req.GetAgentId()]
	return &catalogv1.CheckOwnershipResponse{Owned: ok && owner == req.GetUid(), Exists: ok}, nil
}

// GetAgent answers with the agent's address, <last 4 hex digits>@agents.example.
func (f *fakeCatalog) GetAgent(_ context.Context, req *catalogv1.GetAgentRequest) (*catalogv1.GetAgentResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return nil, status.Error(codes.Unavailable, "catalog is down")
	}
	owner, ok := f.owners[req.GetAgentId()]
	if !ok {
		return nil, status.Error(codes.NotFound, "agent not found")
	}
	return &catalogv1.GetAgentResponse{Agent: &catalogv1.Agent{Id: req.GetAgentId(), OwnerUid: owner, Email: agentEmail(req.GetAgentId())}}, nil
}

func agentEmail(agentID string) string {
	return "agent-" + agentID[len(agentID)-4:] + "@agents.example"
}

func (f *fakeCatalog) set(down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = down
}

func (f *fakeCatalog) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func startCatalog(t testing.TB) (string, *fakeCatalog) {
	t.Helper()
	f := &fakeCatalog{owners: map[string]string{agentA: "alice", agentA2: "alice", agentB: "bob"}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	catalogv1.RegisterCatalogServiceServer(srv, f)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return ln.Addr().String(), f
}

type running struct {
	http    string
	grpc    string
	brokers []string
}

// options of a test instance.
type options struct {
	cacheTTL time.Duration
	// drive, when set, is the Drive simulator the service reads from (dev
	// tokens); otherwise Drive access is not configured.
	drive *drivesim.Server
	// maxDocuments is MAX_DOCUMENTS_PER_AGENT (0: the default).
	maxDocuments int
	// searchRate is RATE_LIMIT_KNOWLEDGE_SEARCH; "" turns it off, so that
	// tests searching as the same user in one minute do not meet it.
	searchRate string
	// embeddingsURL, when set, is EMBEDDINGS_BASE_URL (model: the simulator's).
	embeddingsURL string
}

func start(t testing.TB, catalogAddr string, cacheTTL time.Duration) running {
	t.Helper()
	return startWith(t, catalogAddr, options{cacheTTL: cacheTTL})
}

func startWith(t testing.TB, catalogAddr string, o options) running {
	t.Helper()
	dbURL := dbtest.NewURL(t, "documents")
	brokers := eventstest.StartKafka(t)
	cfg := Config{
		Settings:             servicetest.Settings(dbURL, brokers, nil),
		CatalogGRPCAddr:      catalogAddr,
		OwnershipCacheTTL:    o.cacheTTL,
		CatalogTimeout:       time.Second,
		SyncInterval:         time.Hour,
		SyncConcurrency:      2,
		SyncLease:            time.Minute,
		SyncPoll:             20 * time.Millisecond,
		SyncRetryBase:        50 * time.Millisecond,
		SyncConfirmDelay:     time.Hour,
		SyncMaxAttempts:      2,
		DriveBaseDelay:       10 * time.Millisecond,
		DriveMaxAttempts:     2,
		RedisURL:             "redis://127.0.0.1:6379/0",
		MaxDocumentsPerAgent: o.maxDocuments,
		KnowledgeSearchRate:  "0/1m",
	}
	if o.searchRate != "" {
		cfg.KnowledgeSearchRate = o.searchRate
	}
	if o.embeddingsURL != "" {
		cfg.EmbeddingsBaseURL, cfg.EmbeddingsModel = o.embeddingsURL, embeddingstest.Model
	}
	if o.drive != nil {
		srv := httptest.NewServer(o.drive.Handler())
		t.Cleanup(srv.Close)
		cfg.DriveEndpoint, cfg.DriveDevTokens = srv.URL+"/drive/v3/", true
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
	r := apitest.Do(t, method, url, token, body)
	if r.Status >= 500 && r.Status != http.StatusServiceUnavailable {
		t.Errorf("%s %s: %d %s", method, url, r.Status, r.Raw)
	}
	return r
}

func truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

const (
	fileID  = "1aBcD_eFgH-iJkLmNoPqRsTuVwXyZ0123456789abcde"
	fileID2 = "1zYxW_vUtS-rQpOnMlKjIhGfEdCbA9876543210edcba"
)

var (
	fileURL  = "https://docs.google.com/document/d/" + fileID + "/edit"
	fileURL2 = "https://docs.google.com/document/d/" + fileID2 + "/edit?usp=sharing"
)

func docBody(name, url string, labels ...string) string {
	b, _ := json.Marshal(map[string]any{"name": name, "url": url, "driveFileId": "", "labels": append([]string{}, labels...), "sharingStatus": "shared"})
	return string(b)
}

func docsPath(base, agent string) string { return base + "/api/agents/" + agent + "/documents" }

func TestDocumentsHTTP(t *testing.T) {
	catalogAddr, _ := startCatalog(t)
	app := start(t, catalogAddr, 0)
	base := app.http
	alice := "token-alice"

	if r := do(t, "GET", base+"/readyz", "", ""); r.Status != 200 {
		t.Fatalf("readyz: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "GET", docsPath(base, agentA), "", ""); r.Status != 401 || r.Obj()["error"] != "unauthenticated" {
		t.Fatalf("no token: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "GET", docsPath(base, agentA), "bogus", ""); r.Status != 401 || r.Obj()["error"] != "invalid_token" {
		t.Fatalf("bad token: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "GET", docsPath(base, agentA), alice, ""); r.Status != 200 || r.Raw != "[]\n" {
		t.Fatalf("empty list: %d %q", r.Status, r.Raw)
	}

	// Add: the server computes driveFileId; labels normalised; the client's
	// matching driveFileId is accepted.
	r := do(t, "POST", docsPath(base, agentA), alice, `{"name":"Syllabus","url":" `+fileURL+` ","driveFileId":"`+fileID+`",
		"labels":[" week1 ","","week1","exam"],"sharingStatus":"shared","unknown":true}`)
	if r.Status != 201 {
		t.Fatalf("add: %d %s", r.Status, r.Raw)
	}
	d := r.Obj()
	want := map[string]any{"agentId": agentA, "name": "Syllabus", "url": fileURL, "driveFileId": fileID, "sharingStatus": "shared"}
	for k, v := range want {
		if d[k] != v {
			t.Errorf("added %s = %v, want %v", k, d[k], v)
		}
	}
	if fmt.Sprint(d["labels"]) != "[week1 exam]" {
		t.Errorf("labels = %v", d["labels"])
	}
	for _, k := range []string{"createdAt", "updatedAt"} {
		if _, err := time.Parse(time.RFC3339Nano, fmt.Sprint(d[k])); err != nil {
			t.Errorf("%s = %v", k, d[k])
		}
	}
	id := d["id"].(string)

	// A second document: sharingStatus defaults to shared; labels may be absent.
	r = do(t, "POST", docsPath(base, agentA), alice, `{"name":"Notes","url":"`+fileURL2+`"}`)
	if r.Status != 201 || r.Obj()["sharingStatus"] != "shared" || r.Obj()["driveFileId"] != fileID2 || r.Raw == "" ||
		fmt.Sprint(r.Obj()["labels"]) != "[]" {
		t.Fatalf("add second: %d %s", r.Status, r.Raw)
	}
	id2 := r.Obj()["id"].(string)

	// List: oldest first; only the agent's documents.
	l := do(t, "GET", docsPath(base, agentA), alice, "").List()
	if len(l) != 2 || l[0].(map[string]any)["id"] != id || l[1].(map[string]any)["id"] != id2 {
		t.Fatalf("list = %v", l)
	}
	if l := do(t, "GET", docsPath(base, agentA2), alice, "").List(); len(l) != 0 {
		t.Fatalf("other agent lists %v", l)
	}
	// Upper-case agent ids are the same agent.
	if l := do(t, "GET", docsPath(base, strings.ToUpper(agentA)), alice, "").List(); len(l) != 2 {
		t.Fatalf("upper-case agent id lists %v", l)
	}

	// Validation: every message, first message in "message", all in "fields".
	long := func(n int) string { return strings.Repeat("x", n) }
	manyLabels := make([]string, 31)
	for i := range manyLabels {
		manyLabels[i] = fmt.Sprintf("l%d", i)
	}
	cases := []struct {
		body, field, msg string
	}{
		{docBody("", fileURL), "name", "Document name is required"},
		{`{"url":"` + fileURL + `"}`, "name", "Document name is required"},
		{docBody("My Syllabus", fileURL), "name", "Document name cannot contain spaces."},
		{docBody(long(101), fileURL), "name", "Document name must be at most 100 characters"},
		{docBody("Doc\u0007", fileURL), "name", "Document name cannot contain control characters."},
		// NUL is refused by the platform's JSON decoding, for every service alike.
		{docBody("Doc\u0000", fileURL), "name", "name must not contain NUL characters"},
		{docBody("Doc", ""), "url", "Document URL is required"},
		{`{"name":"Doc"}`, "url", "Document URL is required"},
		{docBody("Doc", "not a url"), "url", "Please enter a valid URL"},
		{docBody("Doc", "https://docs.google.com/spreadsheets/d/"+fileID), "url", "URL must be a document URL (docs.google.com/document/...)"},
		{docBody("Doc", "https://docs.google.com/document/d/tooshort/edit"), "url", "Invalid Google Docs URL: Could not extract document ID from the provided URL."},
		{docBody("Doc", "https://evil.example/docs.google.com/document/d/"+fileID), "url", "Invalid URL: Only Google Docs URLs (docs.google.com/document/) are supported."},
		{docBody("Doc", "https://docs.google.com/document/d/"+fileID+"/"+long(2048)), "url", "Document URL must be at most 2048 characters"},
		{`{"name":"Doc","url":"` + fileURL + `","driveFileId":"` + fileID2 + `"}`, "driveFileId", "driveFileId does not match the document URL"},
		{docBody("Doc", fileURL, "ok", "two words"), "labels", "Invalid label: Labels cannot contain spaces."},
		{docBody("Doc", fileURL, long(41)), "labels", "Each label must be at most 40 characters"},
		{docBody("Doc", fileURL, manyLabels...), "labels", "A document can have at most 30 labels"},
		{`{"name":"Doc","url":"` + fileURL + `","sharingStatus":"public"}`, "sharingStatus", "sharingStatus must be one of shared, not_shared, error"},
	}
	for _, c := range cases {
		r := do(t, "POST", docsPath(base, agentA), alice, c.body)
		fields, _ := r.Obj()["fields"].(map[string]any)
		if r.Status != 400 || r.Obj()["error"] != "validation_failed" || r.Obj()["message"] != c.msg || fields[c.field] != c.msg {
			t.Errorf("%s: %d %s", c.msg, r.Status, truncate(r.Raw))
		}
	}
	// Several problems: message is the first, fields has each.
	r = do(t, "POST", docsPath(base, agentA), alice, `{"name":"a b","url":"nope","labels":["c d"]}`)
	fields, _ := r.Obj()["fields"].(map[string]any)
	if r.Status != 400 || r.Obj()["message"] != "Document name cannot contain spaces." || len(fields) != 3 ||
		fields["url"] != "Please enter a valid URL" || fields["labels"] != "Invalid label: Labels cannot contain spaces." {
		t.Fatalf("many problems: %d %s", r.Status, r.Raw)
	}

	// Uniqueness within the agent, case-insensitive; other agents are free.
	for _, name := range []string{"Syllabus", "SYLLABUS"} {
		r = do(t, "POST", docsPath(base, agentA), alice, docBody(name, fileURL2))
		if r.Status != 409 || r.Obj()["error"] != "conflict" || r.Obj()["message"] != "A document with this name already exists for this agent." ||
			r.Obj()["fields"].(map[string]any)["name"] != "A document with this name already exists for this agent." {
			t.Fatalf("duplicate %s: %d %s", name, r.Status, r.Raw)
		}
	}
	r = do(t, "POST", docsPath(base, agentA2), alice, docBody("Syllabus", fileURL))
	if r.Status != 201 {
		t.Fatalf("same name on another agent: %d %s", r.Status, r.Raw)
	}
	otherAgentDoc := r.Obj()["id"].(string)

	// PUT: the full document with name and labels changed.
	full := d
	full["name"] = "Syllabus2026"
	full["labels"] = []any{"week1", " week2 ", "week2"}
	put, _ := json.Marshal(full)
	r = do(t, "PUT", docsPath(base, agentA)+"/"+id, alice, string(put))
	u := r.Obj()
	if r.Status != 200 || u["name"] != "Syllabus2026" || fmt.Sprint(u["labels"]) != "[week1 week2]" || u["url"] != fileURL ||
		u["driveFileId"] != fileID || u["createdAt"] != d["createdAt"] || u["updatedAt"] == d["updatedAt"] || u["id"] != id {
		t.Fatalf("put: %d %s", r.Status, r.Raw)
	}
	// The same body again changes nothing (no event, updatedAt kept).
	put, _ = json.Marshal(u)
	if r = do(t, "PUT", docsPath(base, agentA)+"/"+id, alice, string(put)); r.Status != 200 || r.Obj()["updatedAt"] != u["updatedAt"] {
		t.Fatalf("noop put: %d %s", r.Status, r.Raw)
	}
	// Case-only rename of itself is fine; renaming onto another document is not.
	if r = do(t, "PUT", docsPath(base, agentA)+"/"+id, alice, `{"name":"syllabus2026","labels":["week1","week2"]}`); r.Status != 200 || r.Obj()["name"] != "syllabus2026" {
		t.Fatalf("case rename: %d %s", r.Status, r.Raw)
	}
	if r = do(t, "PUT", docsPath(base, agentA)+"/"+id, alice, `{"name":"NOTES","labels":[]}`); r.Status != 409 || r.Obj()["message"] != documents.MsgNameTaken {
		t.Fatalf("rename onto another: %d %s", r.Status, r.Raw)
	}
	// The URL cannot change; driveFileId must match; name rules apply.
	putCases := []struct{ body, field, msg string }{
		{`{"name":"Doc","url":"` + fileURL2 + `"}`, "url", "The document URL cannot be changed."},
		{`{"name":"Doc","url":""}`, "url", "The document URL cannot be changed."},
		{`{"name":"Doc","driveFileId":"` + fileID2 + `"}`, "driveFileId", "driveFileId does not match the document URL"},
		{`{"name":"","url":"` + fileURL + `"}`, "name", "Document name is required"},
		{`{"name":"Two words"}`, "name", "Document name cannot contain spaces."},
		{`{"name":"Doc","labels":["a b"]}`, "labels", "Invalid label: Labels cannot contain spaces."},
		{`{"name":"Doc","sharingStatus":"x"}`, "sharingStatus", "sharingStatus must be one of shared, not_shared, error"},
	}
	for _, c := range putCases {
		r := do(t, "PUT", docsPath(base, agentA)+"/"+id, alice, c.body)
		fields, _ := r.Obj()["fields"].(map[string]any)
		if r.Status != 400 || r.Obj()["error"] != "validation_failed" || r.Obj()["message"] != c.msg || fields[c.field] != c.msg {
			t.Errorf("put %s: %d %s", c.msg, r.Status, truncate(r.Raw))
		}
	}
	if r = do(t, "GET", docsPath(base, agentA), alice, ""); r.List()[0].(map[string]any)["url"] != fileURL ||
		r.List()[0].(map[string]any)["name"] != "syllabus2026" {
		t.Fatalf("after rejected puts: %s", r.Raw)
	}
	// sharingStatus in a PUT is validated (above) but not applied: it is the
	// sync's finding, and the client sends back what it last read.
	if r = do(t, "PUT", docsPath(base, agentA)+"/"+id2, alice, `{"name":"Notes","sharingStatus":"error","labels":null}`); r.Status != 200 ||
		r.Obj()["updatedAt"] != r.Obj()["createdAt"] {
		t.Fatalf("put sharingStatus: %d %s", r.Status, r.Raw)
	}

	// Bad input is 4xx JSON, never 5xx.
	bad := []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"POST", docsPath(base, agentA), `{"name":`, 400, "invalid_json"},
		{"POST", docsPath(base, agentA), `not json`, 400, "invalid_json"},
		{"POST", docsPath(base, agentA), `[]`, 400, "invalid_json"},
		{"POST", docsPath(base, agentA), `{"name":5}`, 400, "invalid_json"},
		{"POST", docsPath(base, agentA), `{"labels":"a,b"}`, 400, "invalid_json"},
		{"POST", docsPath(base, agentA), `{"labels":[1]}`, 400, "invalid_json"},
		{"POST", docsPath(base, agentA), `{"url":{"x":1}}`, 400, "invalid_json"},
		{"POST", docsPath(base, agentA), ``, 400, "invalid_json"},
		{"POST", docsPath(base, agentA), `{} {}`, 400, "invalid_json"},
		{"POST", docsPath(base, agentA), `{}`, 400, "validation_failed"},
		{"POST", docsPath(base, agentA), `{"name":"` + long(1<<20) + `"}`, 413, "body_too_large"},
		{"PUT", docsPath(base, agentA) + "/" + id, `{"name":[]}`, 400, "invalid_json"},
		{"PUT", docsPath(base, agentA) + "/" + id, ``, 400, "invalid_json"},
		{"PUT", docsPath(base, agentA) + "/" + id, `{"url":5}`, 400, "invalid_json"},
		{"PUT", docsPath(base, agentA), `{}`, 405, "method_not_allowed"},
		{"GET", docsPath(base, agentA) + "/" + id, ``, 405, "method_not_allowed"},
		{"PATCH", docsPath(base, agentA) + "/" + id, `{}`, 405, "method_not_allowed"},
		{"GET", docsPath(base, agentA) + "/" + id + "/x", ``, 404, "not_found"},
	}
	for _, c := range bad {
		r := do(t, c.method, c.path, alice, c.body)
		if r.Status != c.status || r.Obj()["error"] != c.code {
			t.Errorf("%s %s %s: %d %s", c.method, c.path, truncate(c.body), r.Status, truncate(r.Raw))
		}
	}

	// Delete: 204, then gone (404), and the name is free again.
	if r = do(t, "DELETE", docsPath(base, agentA)+"/"+id2, alice, ""); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	if r = do(t, "DELETE", docsPath(base, agentA)+"/"+id2, alice, ""); r.Status != 404 || r.Obj()["message"] != "Document not found" {
		t.Fatalf("delete again: %d %s", r.Status, r.Raw)
	}
	if r = do(t, "PUT", docsPath(base, agentA)+"/"+id2, alice, `{"name":"Notes"}`); r.Status != 404 || r.Obj()["message"] != "Document not found" {
		t.Fatalf("put deleted: %d %s", r.Status, r.Raw)
	}
	if r = do(t, "POST", docsPath(base, agentA), alice, docBody("notes", fileURL2)); r.Status != 201 {
		t.Fatalf("re-add freed name: %d %s", r.Status, r.Raw)
	}
	id3 := r.Obj()["id"].(string)

	// Events: added ×3 (A, A, A2), updated ×2 (rename, case rename), removed, added.
	wantTypes := []string{
		documents.TypeDocumentAdded, documents.TypeDocumentAdded, documents.TypeDocumentAdded,
		documents.TypeDocumentUpdated, documents.TypeDocumentUpdated,
		documents.TypeDocumentRemoved, documents.TypeDocumentAdded,
	}
	recs := eventstest.Consume(t, app.brokers, documents.Topic, len(wantTypes), 30*time.Second, time.Second)
	// Records are keyed by agent: order holds within an agent (partition), not across.
	var gotA []string
	byDoc := map[string][]eventstest.Record{}
	for _, rec := range recs {
		if rec.Headers["ce_source"] != documents.Source || rec.Headers["ce_id"] == "" || rec.Headers["ce_specversion"] != "1.0" {
			t.Errorf("record headers %v", rec.Headers)
		}
		byDoc[rec.Headers["ce_subject"]] = append(byDoc[rec.Headers["ce_subject"]], rec)
		if rec.Key == agentA {
			gotA = append(gotA, rec.Headers["ce_type"])
		} else if rec.Key != agentA2 {
			t.Errorf("record key %q", rec.Key)
		}
	}
	wantA := append(append([]string{}, wantTypes[:2]...), wantTypes[3:]...)
	if len(recs) != len(wantTypes) || strings.Join(gotA, ",") != strings.Join(wantA, ",") {
		t.Fatalf("agent A event types:\n got %v (%d records)\nwant %v", gotA, len(recs), wantA)
	}
	decode := func(rec eventstest.Record, m proto.Message) {
		t.Helper()
		if err := protojson.Unmarshal(rec.Value, m); err != nil {
			t.Fatalf("decode %s: %v", rec.Headers["ce_type"], err)
		}
	}
	var added eventsv1.DocumentAdded
	decode(byDoc[id][0], &added)
	if added.GetDocumentId() != id || added.GetAgentId() != agentA || added.GetOwnerUid() != "alice" || added.GetName() != "Syllabus" ||
		added.GetUrl() != fileURL || added.GetDriveFileId() != fileID || fmt.Sprint(added.GetLabels()) != "[week1 exam]" ||
		added.GetFileType() != "Google Docs" || added.GetSharingStatus() != "shared" || added.GetOccurredAt() == nil {
		t.Errorf("added = %v", &added)
	}
	var updated eventsv1.DocumentUpdated
	decode(byDoc[id][1], &updated)
	if strings.Join(updated.GetChangedFields(), ",") != "name,labels" || updated.GetName() != "Syllabus2026" ||
		updated.GetPreviousName() != "Syllabus" || fmt.Sprint(updated.GetLabels()) != "[week1 week2]" || updated.GetOwnerUid() != "alice" {
		t.Errorf("updated = %v", &updated)
	}
	var removed eventsv1.DocumentRemoved
	decode(byDoc[id2][1], &removed)
	if removed.GetDocumentId() != id2 || removed.GetName() != "Notes" || removed.GetDriveFileId() != fileID2 || removed.GetAgentId() != agentA {
		t.Errorf("removed = %v", &removed)
	}
	if len(byDoc[otherAgentDoc]) != 1 || byDoc[otherAgentDoc][0].Key != agentA2 || len(byDoc[id3]) != 1 {
		t.Errorf("other records: %v %v", byDoc[otherAgentDoc], byDoc[id3])
	}
}

func TestOwnership(t *testing.T) {
	catalogAddr, _ := startCatalog(t)
	app := start(t, catalogAddr, 0)
	base := app.http

	r := do(t, "POST", docsPath(base, agentA), "token-alice", docBody("Syllabus", fileURL))
	if r.Status != 201 {
		t.Fatalf("add: %d %s", r.Status, r.Raw)
	}
	docA := r.Obj()["id"].(string)
	r = do(t, "POST", docsPath(base, agentB), "token-bob", docBody("Bobs", fileURL2))
	if r.Status != 201 {
		t.Fatalf("bob add: %d %s", r.Status, r.Raw)
	}
	docB := r.Obj()["id"].(string)
	put := docBody("Renamed", fileURL)

	type call struct{ method, path, body string }
	routes := func(agent, doc string) []call {
		return []call{
			{"GET", docsPath(base, agent), ""},
			{"POST", docsPath(base, agent), docBody("Other", fileURL)},
			{"POST", docsPath(base, agent), `{}`}, // 404 even with an invalid body
			{"PUT", docsPath(base, agent) + "/" + doc, put},
			{"PUT", docsPath(base, agent) + "/" + doc, `{"name":"a b"}`},
			{"DELETE", docsPath(base, agent) + "/" + doc, ""},
		}
	}
	agentMissing := func(who string, calls []call) {
		t.Helper()
		for _, c := range calls {
			r := do(t, c.method, c.path, who, c.body)
			if r.Status != 404 || r.Obj()["error"] != "not_found" || r.Obj()["message"] != "Agent not found" {
				t.Errorf("%s %s %s as %s: %d %s", c.method, c.path, c.body, who, r.Status, r.Raw)
			}
		}
	}
	// Another user's agent (and its document): 404 on every route.
	agentMissing("token-bob", routes(agentA, docA))
	agentMissing("token-alice", routes(agentB, docB))
	// Unknown agent, non-UUID agent id.
	agentMissing("token-alice", routes(unknown, docA))
	agentMissing("token-alice", routes("not-a-uuid", docA))
	// A document of agent A addressed through alice's other agent A2: 404 document.
	for _, c := range routes(agentA2, docA)[3:] {
		r := do(t, c.method, c.path, "token-alice", c.body)
		if r.Status != 404 || r.Obj()["message"] != "Document not found" {
			t.Errorf("%s %s via other agent: %d %s", c.method, c.path, r.Status, r.Raw)
		}
	}
	// Bob's document through alice's own agent, and bad document ids.
	for _, doc := range []string{docB, "nope", unknown} {
		for _, m := range []string{"PUT", "DELETE"} {
			r := do(t, m, docsPath(base, agentA)+"/"+doc, "token-alice", put)
			if r.Status != 404 || r.Obj()["message"] != "Document not found" {
				t.Errorf("%s %s: %d %s", m, doc, r.Status, r.Raw)
			}
		}
	}
	// Nothing changed.
	if l := do(t, "GET", docsPath(base, agentA), "token-alice", "").List(); len(l) != 1 || l[0].(map[string]any)["name"] != "Syllabus" {
		t.Fatalf("alice's documents: %v", l)
	}
	if l := do(t, "GET", docsPath(base, agentB), "token-bob", "").List(); len(l) != 1 || l[0].(map[string]any)["name"] != "Bobs" {
		t.Fatalf("bob's documents: %v", l)
	}
}

func TestCatalogUnavailable(t *testing.T) {
	catalogAddr, cat := startCatalog(t)
	// A closed port stands for a catalog that is not running at all.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()

	t.Run("down", func(t *testing.T) {
		app := start(t, closed, 0)
		for _, c := range []struct{ method, path, body string }{
			{"GET", docsPath(app.http, agentA), ""},
			{"POST", docsPath(app.http, agentA), docBody("Doc", fileURL)},
			{"PUT", docsPath(app.http, agentA) + "/" + unknown, docBody("Doc", fileURL)},
			{"DELETE", docsPath(app.http, agentA) + "/" + unknown, ""},
		} {
			r := do(t, c.method, c.path, "token-alice", c.body)
			if r.Status != 503 || r.Obj()["error"] != "catalog_unavailable" || r.Obj()["message"] == "" {
				t.Errorf("%s %s: %d %s", c.method, c.path, r.Status, r.Raw)
			}
		}
		// Not-a-UUID agents never reach the catalog: still 404.
		if r := do(t, "GET", docsPath(app.http, "x"), "token-alice", ""); r.Status != 404 {
			t.Errorf("bad id with catalog down: %d %s", r.Status, r.Raw)
		}
		// The service stays ready: the catalog is not one of its checks.
		if r := do(t, "GET", app.http+"/readyz", "", ""); r.Status != 200 {
			t.Errorf("readyz: %d %s", r.Status, r.Raw)
		}
	})

	t.Run("failing, with a cache of positive answers", func(t *testing.T) {
		app := start(t, catalogAddr, time.Minute)
		path := docsPath(app.http, agentA)
		if r := do(t, "GET", path, "token-alice", ""); r.Status != 200 {
			t.Fatalf("list: %d %s", r.Status, r.Raw)
		}
		if r := do(t, "GET", path, "token-bob", ""); r.Status != 404 {
			t.Fatalf("bob: %d %s", r.Status, r.Raw)
		}
		calls := cat.callCount()
		cat.set(true)
		defer cat.set(false)
		// Alice's positive answer is cached: she keeps working.
		if r := do(t, "POST", path, "token-alice", docBody("Doc", fileURL)); r.Status != 201 {
			t.Fatalf("cached add: %d %s", r.Status, r.Raw)
		}
		if cat.callCount() != calls {
			t.Fatalf("cached answer not used: %d calls, want %d", cat.callCount(), calls)
		}
		// Negative answers are not cached: bob needs the catalog, which fails.
		if r := do(t, "GET", path, "token-bob", ""); r.Status != 503 || r.Obj()["error"] != "catalog_unavailable" {
			t.Fatalf("bob with catalog down: %d %s", r.Status, r.Raw)
		}
		if r := do(t, "GET", docsPath(app.http, agentA2), "token-alice", ""); r.Status != 503 {
			t.Fatalf("uncached agent with catalog down: %d %s", r.Status, r.Raw)
		}
		cat.set(false)
		if r := do(t, "GET", docsPath(app.http, agentA2), "token-alice", ""); r.Status != 200 {
			t.Fatalf("catalog back: %d %s", r.Status, r.Raw)
		}
	})
}
