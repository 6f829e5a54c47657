package docsync

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"google.golang.org/protobuf/encoding/protojson"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/documents/internal/documents"
	"github.com/agentic-app/agentic/services/documents/internal/drive"
	"github.com/agentic-app/agentic/services/documents/internal/drivesim"
	"github.com/agentic-app/agentic/services/documents/internal/knowledge"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events"
)

const (
	agentA = "01900000-0000-7000-8000-00000000000a"
	emailA = "tutor-a@agents.example"
)

// agents is the catalog as the worker sees it: fixed addresses.
type agents map[string]string

var errUnknownAgent = errors.New("unknown agent")

func (a agents) AgentEmail(_ context.Context, id string) (string, error) {
	if e, ok := a[id]; ok {
		return e, nil
	}
	return "", errUnknownAgent
}

type env struct {
	pool  *pgxpool.Pool
	store *documents.PostgresStore
	index *knowledge.Index
	sim   *drivesim.Server
	w     *Worker
	reg   *prometheus.Registry
}

// newEnv: a fresh database, the Drive simulator over HTTP, the real Drive
// client with dev tokens, and a Worker (not running yet). Back-offs are
// short so that tests run in seconds.
func newEnv(t *testing.T, cfg Config) *env {
	t.Helper()
	pool, _ := dbtest.NewPool(t, "docsync")
	ctx := context.Background()
	if err := database.Migrate(ctx, pool, documents.Migrations, "migrations"); err != nil {
		t.Fatal(err)
	}
	if err := events.Migrate(ctx, pool, nil); err != nil {
		t.Fatal(err)
	}
	sim, err := drivesim.New(drivesim.Config{DriveLikeExport: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	reg := prometheus.NewRegistry()
	dc, err := drive.New(drive.Config{Endpoint: srv.URL + "/drive/v3/", DevTokens: true, BaseDelay: 20 * time.Millisecond,
		MaxAttempts: 3, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Pool, cfg.Drive, cfg.Registerer = pool, dc, reg
	cfg.Agents = agents{agentA: emailA}
	cfg.IsAgentNotFound = func(err error) bool { return errors.Is(err, errUnknownAgent) }
	if cfg.Poll == 0 {
		cfg.Poll = 20 * time.Millisecond
	}
	if cfg.RetryBase == 0 {
		cfg.RetryBase = 50 * time.Millisecond
	}
	if cfg.ConfirmDelay == 0 {
		cfg.ConfirmDelay = time.Hour // tests confirm with an explicit sync unless they ask
	}
	if cfg.Interval == 0 {
		cfg.Interval = time.Hour
	}
	if cfg.FastInterval == 0 {
		cfg.FastInterval = time.Hour // request counts stay exact unless a test asks
	}
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &env{pool: pool, store: documents.NewPostgresStore(pool), index: knowledge.NewIndex(pool), sim: sim, w: w, reg: reg}
}

// run starts the worker until the test ends.
func (e *env) run(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = e.w.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("worker did not stop")
		}
	})
}

func (e *env) file(t *testing.T, f drivesim.File) drivesim.File {
	t.Helper()
	f, err := e.sim.CreateFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// link adds a document for the file (queueing its first sync, as the API does).
func (e *env) link(t *testing.T, name, fileID string, labels ...string) documents.Document {
	t.Helper()
	now := time.Now().UTC()
	d, err := e.store.Add(context.Background(), documents.Document{
		ID: uuid.Must(uuid.NewV7()).String(), AgentID: agentA, OwnerUID: "alice", Name: name, URL: drivesim.DocsURL(fileID),
		DriveFileID: fileID, Labels: append([]string{}, labels...), SharingStatus: documents.SharingShared,
		CreatedAt: now, UpdatedAt: now,
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.SyncState != documents.SyncQueued {
		t.Fatalf("new document sync state %q", d.SyncState)
	}
	return d
}

func (e *env) get(t *testing.T, id string) documents.Document {
	t.Helper()
	d, err := e.store.Get(context.Background(), agentA, id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// syncNow queues a manual sync and waits until it has finished.
func (e *env) syncNow(t *testing.T, id string) documents.Document {
	t.Helper()
	before := e.get(t, id)
	if _, err := e.store.RequestSync(context.Background(), agentA, id); err != nil {
		t.Fatal(err)
	}
	return e.waitSynced(t, id, before)
}

// waitSynced waits until the document's job is gone and its state synced.
func (e *env) waitSynced(t *testing.T, id string, _ documents.Document) documents.Document {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var jobs int
		if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM sync_jobs WHERE document_id = $1 AND run_at <= now()`, id).Scan(&jobs); err != nil {
			t.Fatal(err)
		}
		d := e.get(t, id)
		if jobs == 0 && d.SyncState == documents.SyncSynced {
			return d
		}
		time.Sleep(20 * time.Millisecond)
	}
	d := e.get(t, id)
	t.Fatalf("document %s not synced: %+v", id, d)
	return d
}

func (e *env) search(t *testing.T, q string) []knowledge.Passage {
	t.Helper()
	ps, err := e.index.Search(context.Background(), knowledge.Query{AgentID: agentA, Text: q, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// syncedEvents returns the DocumentSynced payloads in the outbox (no relay
// runs in these tests, so every row is still there).
func (e *env) syncedEvents(t *testing.T, docID string) []*eventsv1.DocumentSynced {
	t.Helper()
	rows, err := e.pool.Query(context.Background(), `SELECT payload FROM outbox WHERE type = $1 AND subject = $2 ORDER BY id`,
		documents.TypeDocumentSynced, docID)
	if err != nil {
		t.Fatal(err)
	}
	payloads, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		t.Fatal(err)
	}
	var out []*eventsv1.DocumentSynced
	for _, p := range payloads {
		var m eventsv1.DocumentSynced
		if err := protojson.Unmarshal(p, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, &m)
	}
	return out
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

const syllabusText = `CS101 Syllabus

Grading Policy
Your final grade is computed from the weekly homework (40%), the midterm exam (25%) and the final exam (35%).

Office Hours
Office hours are on Tuesdays from 2 to 4 pm in room 101.
`

func TestSyncLifecycle(t *testing.T) {
	e := newEnv(t, Config{})
	e.run(t)
	f := e.file(t, drivesim.File{Title: "CS101 Syllabus (2026)", Text: syllabusText, SharedWith: []string{emailA}})
	d := e.link(t, "Syllabus", f.ID, "course")

	// Shared: readable, indexed, announced.
	d = e.waitSynced(t, d.ID, d)
	if d.SharingStatus != documents.SharingShared || d.SyncError != nil || str(d.DriveTitle) != "CS101 Syllabus (2026)" ||
		d.TokenCount == nil || *d.TokenCount < 20 || d.SyncedAt == nil || d.ModifiedTime == nil || !d.ModifiedTime.Equal(f.ModifiedTime) {
		t.Fatalf("after first sync: %+v", d)
	}
	ps := e.search(t, "What is the grading policy?")
	if len(ps) == 0 || !strings.Contains(ps[0].Text, "Grading Policy") || ps[0].DocumentName != "Syllabus" {
		t.Fatalf("search: %+v", ps)
	}
	// The simulator exports like Drive (BOM, CRLF); offsets are into the
	// normalised text.
	if strings.ContainsAny(ps[0].Text, "\r\ufeff") || ps[0].Start != 0 {
		t.Fatalf("not normalised: %q at %d", ps[0].Text, ps[0].Start)
	}
	evs := e.syncedEvents(t, d.ID)
	if len(evs) != 1 || evs[0].GetSharingStatus() != "shared" || evs[0].GetDriveTitle() != "CS101 Syllabus (2026)" ||
		evs[0].GetTokenCount() != int64(*d.TokenCount) || evs[0].GetFileType() != "Google Docs" || evs[0].GetName() != "Syllabus" ||
		evs[0].GetOwnerUid() != "alice" || fmt.Sprint(evs[0].GetLabels()) != "[course]" || evs[0].GetModifiedTime() == nil {
		t.Fatalf("synced events: %v", evs)
	}

	// Unchanged in Drive: the metadata is read, the text is not exported
	// again, nothing is announced, syncedAt moves on.
	gets, exports := e.sim.Requests(drivesim.OpGet), e.sim.Requests(drivesim.OpExport)
	again := e.syncNow(t, d.ID)
	if e.sim.Requests(drivesim.OpGet) != gets+1 || e.sim.Requests(drivesim.OpExport) != exports {
		t.Fatalf("unchanged sync: %d gets, %d exports", e.sim.Requests(drivesim.OpGet)-gets, e.sim.Requests(drivesim.OpExport)-exports)
	}
	if !again.SyncedAt.After(*d.SyncedAt) || len(e.syncedEvents(t, d.ID)) != 1 || again.SharingStatus != documents.SharingShared {
		t.Fatalf("unchanged sync: %+v", again)
	}

	// Edited in Drive: re-synced, the passages follow.
	edited := strings.Replace(syllabusText, "Tuesdays from 2 to 4 pm in room 101", "Wednesdays from 10 to 11 am in the library", 1)
	if _, err := e.sim.UpdateText(f.ID, edited); err != nil {
		t.Fatal(err)
	}
	d = e.syncNow(t, d.ID)
	if ps := e.search(t, "Tuesdays"); len(ps) != 0 {
		t.Fatalf("old text still found: %+v", ps)
	}
	if ps := e.search(t, "when are office hours in the library"); len(ps) == 0 || !strings.Contains(ps[0].Text, "Wednesdays") {
		t.Fatalf("new text not found: %+v", ps)
	}
	if n := len(e.syncedEvents(t, d.ID)); n != 2 {
		t.Fatalf("%d synced events after the edit", n)
	}

	// Unshared: the first refusal keeps the text (and says so), the second
	// one in a row removes it from retrieval (and says so).
	if err := e.sim.Unshare(f.ID, emailA); err != nil {
		t.Fatal(err)
	}
	d = e.syncNow(t, d.ID)
	if d.SharingStatus != documents.SharingNotShared || !strings.Contains(str(d.SyncError), "still used") ||
		!strings.Contains(str(d.SyncError), emailA) || d.TokenCount == nil {
		t.Fatalf("first refusal: %+v %s", d, str(d.SyncError))
	}
	if ps := e.search(t, "grading policy"); len(ps) == 0 {
		t.Fatal("text removed after one refusal")
	}
	var confirm string
	if err := e.pool.QueryRow(context.Background(), `SELECT reason FROM sync_jobs WHERE document_id = $1`, d.ID).Scan(&confirm); err != nil || confirm != documents.ReasonConfirm {
		t.Fatalf("confirmation job: %q %v", confirm, err)
	}
	d = e.syncNow(t, d.ID)
	if d.SharingStatus != documents.SharingNotShared || !strings.Contains(str(d.SyncError), "removed") || d.TokenCount != nil || d.ModifiedTime != nil {
		t.Fatalf("second refusal: %+v %s", d, str(d.SyncError))
	}
	if ps := e.search(t, "grading policy"); len(ps) != 0 {
		t.Fatalf("text still in retrieval: %+v", ps)
	}
	evs = e.syncedEvents(t, d.ID)
	if len(evs) != 3 || evs[2].GetSharingStatus() != "not_shared" || evs[2].GetTokenCount() != 0 {
		t.Fatalf("removal event: %v", evs)
	}

	// Shared again (anyone with the link): back, re-indexed.
	if err := e.sim.SetAnyoneWithLink(f.ID, true); err != nil {
		t.Fatal(err)
	}
	d = e.syncNow(t, d.ID)
	if d.SharingStatus != documents.SharingShared || d.SyncError != nil || d.TokenCount == nil {
		t.Fatalf("shared again: %+v", d)
	}
	if ps := e.search(t, "grading policy"); len(ps) == 0 {
		t.Fatal("text not back")
	}
	if got := testutil.ToFloat64(e.w.jobs.WithLabelValues(OutcomeIndexed)); got != 3 {
		t.Fatalf("indexed jobs metric = %v", got)
	}
}

func TestSyncNotSharedAndErrors(t *testing.T) {
	e := newEnv(t, Config{MaxAttempts: 2})
	e.run(t)

	// Never shared: not_shared at once (nothing to keep), with the address.
	private := e.file(t, drivesim.File{Title: "Private", Text: "secret"})
	d := e.link(t, "Private", private.ID)
	d = e.waitSynced(t, d.ID, d)
	if d.SharingStatus != documents.SharingNotShared || !strings.Contains(str(d.SyncError), "Share it with that address") ||
		!strings.Contains(str(d.SyncError), emailA) || d.TokenCount != nil {
		t.Fatalf("private: %+v %s", d, str(d.SyncError))
	}
	if len(e.syncedEvents(t, d.ID)) != 0 {
		t.Fatal("event for a document that never had text")
	}

	// Not a Google Doc.
	pdf := e.file(t, drivesim.File{Title: "Scan.pdf", Text: "%PDF", MimeType: "application/pdf", AnyoneWithLink: true})
	d = e.link(t, "Scan", pdf.ID)
	d = e.waitSynced(t, d.ID, d)
	if d.SharingStatus != documents.SharingError || str(d.SyncError) != "Only Google Docs documents can be read (this file is a PDF)." ||
		str(d.DriveTitle) != "Scan.pdf" {
		t.Fatalf("pdf: %+v %s", d, str(d.SyncError))
	}

	// Over 2 MB of text.
	big := e.file(t, drivesim.File{Title: "Big", Text: strings.Repeat("All work and no play. ", drive.MaxTextBytes/22+1), AnyoneWithLink: true})
	d = e.link(t, "Big", big.ID)
	d = e.waitSynced(t, d.ID, d)
	if d.SharingStatus != documents.SharingError || !strings.HasPrefix(str(d.SyncError), drive.MsgTooLarge) || d.TokenCount != nil {
		t.Fatalf("big: %+v %s", d, str(d.SyncError))
	}

	// Exactly 2 MB is fine (the limit is inclusive).
	exact := e.file(t, drivesim.File{Title: "Exact", Text: strings.Repeat("a", drive.MaxTextBytes-1) + "\n", AnyoneWithLink: true})
	d = e.link(t, "Exact", exact.ID)
	d = e.waitSynced(t, d.ID, d)
	if d.SharingStatus != documents.SharingShared {
		t.Fatalf("2 MB exactly: %+v %s", d, str(d.SyncError))
	}

	// A readable document, then Drive fails with 500 on every call: after
	// the client's retries and the job's attempts the error stays, and the
	// last good text is still used.
	f := e.file(t, drivesim.File{Title: "Syllabus", Text: syllabusText, AnyoneWithLink: true})
	d = e.link(t, "Syllabus", f.ID)
	d = e.waitSynced(t, d.ID, d)
	e.sim.InjectFault(drivesim.Fault{Status: 500, FileID: f.ID})
	gets := e.sim.Requests(drivesim.OpGet)
	d = e.syncNow(t, d.ID)
	if d.SharingStatus != documents.SharingError || !strings.Contains(str(d.SyncError), "HTTP 500") ||
		strings.Contains(str(d.SyncError), "Retrying") || !strings.Contains(str(d.SyncError), "still used") || d.TokenCount == nil {
		t.Fatalf("persistent 500: %+v %s", d, str(d.SyncError))
	}
	// 2 job attempts × 3 client attempts.
	if n := e.sim.Requests(drivesim.OpGet) - gets; n != 6 {
		t.Fatalf("%d get requests for a persistent 500", n)
	}
	if ps := e.search(t, "grading policy"); len(ps) == 0 {
		t.Fatal("a failing Drive removed the text")
	}
	if got := testutil.ToFloat64(e.w.jobs.WithLabelValues(OutcomeRetry)); got != 1 {
		t.Fatalf("retry outcomes = %v", got)
	}
	e.sim.ClearFaults()
	if d = e.syncNow(t, d.ID); d.SharingStatus != documents.SharingShared || d.SyncError != nil {
		t.Fatalf("recovered: %+v", d)
	}

	// 429 once with Retry-After: 1 → the client waits a second and succeeds.
	e.sim.InjectFault(drivesim.Fault{Status: 429, Count: 1, FileID: f.ID, Op: drivesim.OpGet, RetryAfter: "1"})
	gets = e.sim.Requests(drivesim.OpGet)
	start := time.Now()
	d = e.syncNow(t, d.ID)
	if d.SharingStatus != documents.SharingShared || d.SyncError != nil || e.sim.Requests(drivesim.OpGet)-gets != 2 {
		t.Fatalf("429 then success: %+v, %d gets", d, e.sim.Requests(drivesim.OpGet)-gets)
	}
	if el := time.Since(start); el < time.Second {
		t.Fatalf("Retry-After not honoured: done in %v", el)
	}

	// An agent the catalog does not know.
	if _, err := e.pool.Exec(context.Background(), `UPDATE documents SET agent_id = $2 WHERE id = $1`, d.ID, "01900000-0000-7000-8000-0000000000ff"); err != nil {
		t.Fatal(err)
	}
	if err := pgx.BeginFunc(context.Background(), e.pool, func(tx pgx.Tx) error {
		return documents.EnqueueSync(context.Background(), tx, d.ID, documents.ReasonManual)
	}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	var msg *string
	for time.Now().Before(deadline) {
		_ = e.pool.QueryRow(context.Background(), `SELECT sync_error FROM documents WHERE id = $1`, d.ID).Scan(&msg)
		if msg != nil && strings.HasPrefix(*msg, msgAgentGone) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if msg == nil || !strings.HasPrefix(*msg, msgAgentGone) {
		t.Fatalf("unknown agent: %s", str(msg))
	}
}

// One job per document: asking again while one waits changes nothing;
// asking while it runs makes it run once more afterwards.
func TestQueueDeduplicates(t *testing.T) {
	e := newEnv(t, Config{Lease: time.Minute})
	ctx := context.Background()
	f := e.file(t, drivesim.File{Title: "Doc", Text: syllabusText, AnyoneWithLink: true})
	d := e.link(t, "Doc", f.ID)
	for i := 0; i < 3; i++ {
		if _, err := e.store.RequestSync(ctx, agentA, d.ID); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := e.w.ScheduleDue(ctx); n != 0 {
		t.Fatalf("scheduler queued %d documents that have a job", n)
	}
	var jobs int
	_ = e.pool.QueryRow(ctx, `SELECT count(*) FROM sync_jobs`).Scan(&jobs)
	if jobs != 1 {
		t.Fatalf("%d jobs", jobs)
	}
	// A worker claims it; another claim finds nothing (leased).
	j, ok, err := e.w.claim(ctx)
	if err != nil || !ok || j.DocumentID != d.ID || j.Attempts != 1 {
		t.Fatalf("claim: %+v %v %v", j, ok, err)
	}
	if e.get(t, d.ID).SyncState != documents.SyncSyncing {
		t.Fatal("claimed document not syncing")
	}
	if _, ok, _ := e.w.claim(ctx); ok {
		t.Fatal("a leased job was claimed twice")
	}
	// Sync now while it runs: still one job, marked to run again.
	if got, err := e.store.RequestSync(ctx, agentA, d.ID); err != nil || got.SyncState != documents.SyncSyncing {
		t.Fatalf("sync while running: %+v %v", got, err)
	}
	e.w.process(ctx, j)
	var rerun bool
	var lease *string
	if err := e.pool.QueryRow(ctx, `SELECT rerun, lease_token::text FROM sync_jobs WHERE document_id = $1`, d.ID).Scan(&rerun, &lease); err != nil || rerun || lease != nil {
		t.Fatalf("after the run: rerun %v lease %v err %v", rerun, lease, err)
	}
	if st := e.get(t, d.ID); st.SyncState != documents.SyncQueued || st.SharingStatus != documents.SharingShared {
		t.Fatalf("after the run: %+v", st)
	}
	// The second run finishes it.
	j, ok, _ = e.w.claim(ctx)
	if !ok {
		t.Fatal("re-run not claimable")
	}
	e.w.process(ctx, j)
	_ = e.pool.QueryRow(ctx, `SELECT count(*) FROM sync_jobs`).Scan(&jobs)
	if jobs != 0 || e.get(t, d.ID).SyncState != documents.SyncSynced {
		t.Fatalf("%d jobs left, %+v", jobs, e.get(t, d.ID))
	}
}

// A worker that dies holding a job: nobody takes the job before its lease
// expires, then another worker does and finishes it; the dead worker's late
// result is discarded.
func TestLeaseExpiryRerunsDeadJob(t *testing.T) {
	lease := 1500 * time.Millisecond
	e := newEnv(t, Config{Lease: lease})
	ctx := context.Background()
	f := e.file(t, drivesim.File{Title: "Doc", Text: syllabusText, AnyoneWithLink: true})
	d := e.link(t, "Doc", f.ID)
	dead, ok, err := e.w.claim(ctx) // ...and this worker is never heard of again
	if err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	claimed := time.Now()
	gets := e.sim.Requests(drivesim.OpGet)
	e.run(t)
	time.Sleep(lease / 2)
	if e.sim.Requests(drivesim.OpGet) != gets || e.get(t, d.ID).SyncState != documents.SyncSyncing {
		t.Fatal("a leased job was run before its lease expired")
	}
	got := e.waitSynced(t, d.ID, d)
	if time.Since(claimed) < lease || got.SharingStatus != documents.SharingShared || got.TokenCount == nil {
		t.Fatalf("after lease expiry: %+v", got)
	}
	var attempts int
	_ = e.pool.QueryRow(ctx, `SELECT count(*) FROM sync_jobs`).Scan(&attempts)
	if attempts != 0 {
		t.Fatal("job left behind")
	}
	// The dead worker wakes up: its lease is gone, its result is dropped.
	if out, err := e.w.finish(ctx, dead, doc{Document: got}, result{err: &drive.Error{Kind: drive.KindNotShared}}); err != nil || out != OutcomeLostLease {
		t.Fatalf("late finish: %q %v", out, err)
	}
	if st := e.get(t, d.ID); st.SharingStatus != documents.SharingShared {
		t.Fatalf("late result applied: %+v", st)
	}
}

// The scheduler queues every document each interval; a document edited in
// Drive follows without anyone pressing Sync now.
func TestScheduledSync(t *testing.T) {
	e := newEnv(t, Config{Interval: time.Second})
	f := e.file(t, drivesim.File{Title: "Doc", Text: syllabusText, AnyoneWithLink: true})
	d := e.link(t, "Doc", f.ID)
	e.run(t)
	d = e.waitSynced(t, d.ID, d)
	exports := e.sim.Requests(drivesim.OpExport)
	if _, err := e.sim.UpdateText(f.ID, syllabusText+"\nFinal Project\nThe final project is a small game written in Python.\n"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if ps := e.search(t, "final project game"); len(ps) > 0 && strings.Contains(ps[0].Text, "small game") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if ps := e.search(t, "final project game"); len(ps) == 0 || !strings.Contains(ps[0].Text, "small game") {
		t.Fatal("edit not picked up by the scheduler")
	}
	if e.sim.Requests(drivesim.OpExport) != exports+1 {
		t.Fatalf("%d exports for one edit", e.sim.Requests(drivesim.OpExport)-exports)
	}
	// Left alone, further checks read metadata only.
	gets := e.sim.Requests(drivesim.OpGet)
	time.Sleep(2500 * time.Millisecond)
	if e.sim.Requests(drivesim.OpGet) <= gets || e.sim.Requests(drivesim.OpExport) != exports+1 {
		t.Fatalf("idle checks: %d gets, %d exports", e.sim.Requests(drivesim.OpGet)-gets, e.sim.Requests(drivesim.OpExport)-exports-1)
	}
}

// A first "not shared" answer is confirmed by itself after ConfirmDelay.
func TestNotSharedConfirmedAutomatically(t *testing.T) {
	e := newEnv(t, Config{ConfirmDelay: 300 * time.Millisecond})
	f := e.file(t, drivesim.File{Title: "Doc", Text: syllabusText, SharedWith: []string{emailA}})
	d := e.link(t, "Doc", f.ID)
	e.run(t)
	d = e.waitSynced(t, d.ID, d)
	if err := e.sim.Unshare(f.ID, emailA); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.RequestSync(context.Background(), agentA, d.ID); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if st := e.get(t, d.ID); st.TokenCount == nil && strings.Contains(str(st.SyncError), "removed") {
			return
		}
		time.Sleep(30 * time.Millisecond)
	}
	t.Fatalf("not confirmed: %+v", e.get(t, d.ID))
}

// A document the agent cannot open yet is checked every FastInterval for
// FastFor after it was linked (or last changed), then every Interval.
func TestNextCheckIntervals(t *testing.T) {
	w, err := New(Config{Pool: &pgxpool.Pool{}, Drive: nopDrive{}, Agents: agents{}, Interval: 5 * time.Minute,
		FastInterval: 5 * time.Second, FastFor: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	within := func(got time.Time, d time.Duration) bool {
		return !got.Before(now.Add(d-d/10)) && !got.After(now.Add(d+d/10))
	}
	cases := []struct {
		name    string
		sharing string
		hasText bool
		age     time.Duration
		want    time.Duration
	}{
		{"not shared, just linked", documents.SharingNotShared, false, 0, 5 * time.Second},
		{"not shared, 9 minutes old", documents.SharingNotShared, false, 9 * time.Minute, 5 * time.Second},
		{"not shared, 10 minutes old", documents.SharingNotShared, false, 10 * time.Minute, 5 * time.Minute},
		{"not shared, a day old", documents.SharingNotShared, false, 24 * time.Hour, 5 * time.Minute},
		{"shared", documents.SharingShared, true, 0, 5 * time.Minute},
		{"unshared, text kept", documents.SharingNotShared, true, 0, 5 * time.Minute},
		{"error", documents.SharingError, false, 0, 5 * time.Minute},
	}
	for _, c := range cases {
		for range 20 { // jitter
			if got := w.NextCheck(now, c.sharing, c.hasText, now.Add(-c.age)); !within(got, c.want) {
				t.Fatalf("%s: next check in %v, want %v ±10%%", c.name, got.Sub(now), c.want)
			}
		}
	}
}

type nopDrive struct{}

func (nopDrive) Get(context.Context, string, string) (drive.Meta, error) { return drive.Meta{}, nil }
func (nopDrive) Export(context.Context, string, string) (string, error)  { return "", nil }

// A newly linked document the agent cannot open turns Shared within seconds
// of being shared, without Sync now (the scheduler checks it quickly).
func TestNotSharedPickedUpQuicklyOnceShared(t *testing.T) {
	e := newEnv(t, Config{Interval: time.Hour, FastInterval: 300 * time.Millisecond})
	f := e.file(t, drivesim.File{Title: "Private", Text: syllabusText})
	d := e.link(t, "Private", f.ID)
	e.run(t)
	d = e.waitSynced(t, d.ID, d)
	if d.SharingStatus != documents.SharingNotShared {
		t.Fatalf("before sharing: %+v", d)
	}
	var next time.Time
	if err := e.pool.QueryRow(context.Background(), `SELECT next_check_at FROM documents WHERE id = $1`, d.ID).Scan(&next); err != nil {
		t.Fatal(err)
	}
	if time.Until(next) > time.Second {
		t.Fatalf("next check of a not-shared new document in %v", time.Until(next))
	}
	if err := e.sim.Share(f.ID, emailA); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if st := e.get(t, d.ID); st.SharingStatus == documents.SharingShared && st.TokenCount != nil {
			if err := e.pool.QueryRow(context.Background(), `SELECT next_check_at FROM documents WHERE id = $1`, d.ID).Scan(&next); err != nil {
				t.Fatal(err)
			}
			if time.Until(next) < 50*time.Minute {
				t.Fatalf("a shared document checked again in %v, want the normal interval", time.Until(next))
			}
			return
		}
		time.Sleep(30 * time.Millisecond)
	}
	t.Fatalf("not picked up after sharing: %+v", e.get(t, d.ID))
}
