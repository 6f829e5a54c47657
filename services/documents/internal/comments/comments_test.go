package comments

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	conversationsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/conversations/v1"
	identityv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/identity/v1"
	"github.com/agentic-app/agentic/services/documents/internal/documents"
	"github.com/agentic-app/agentic/services/documents/internal/drive"
	"github.com/agentic-app/agentic/services/documents/internal/drivesim"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
)

const (
	agentID    = "01900000-0000-7000-8000-00000000000a"
	agentAddr  = "tutor-x1@agents.example"
	ownerEmail = "alice@example.com"
	subEmail   = "sam@example.com"
	strangerEm = "mallory@example.com"
)

// fakeIdentity knows alice (owner), sam (active subscriber) and mallory.
type fakeIdentity struct {
	identityv1.UnimplementedIdentityServiceServer
}

func (fakeIdentity) FindUsersByEmail(_ context.Context, req *identityv1.FindUsersByEmailRequest) (*identityv1.FindUsersByEmailResponse, error) {
	users := map[string]string{ownerEmail: "alice", subEmail: "sam", strangerEm: "mallory"}
	out := &identityv1.FindUsersByEmailResponse{}
	for _, e := range req.GetEmails() {
		if uid, ok := users[strings.ToLower(e)]; ok {
			out.Users = append(out.Users, &identityv1.User{Uid: uid, Email: strings.ToLower(e)})
		}
	}
	return out, nil
}

type fakeCatalog struct {
	catalogv1.UnimplementedCatalogServiceServer
}

func (fakeCatalog) CheckAccess(_ context.Context, req *catalogv1.CheckAccessRequest) (*catalogv1.CheckAccessResponse, error) {
	if req.GetAgentId() != agentID {
		return &catalogv1.CheckAccessResponse{}, nil
	}
	switch req.GetUid() {
	case "alice":
		return &catalogv1.CheckAccessResponse{Allowed: true, Role: "owner", PayerUid: "alice"}, nil
	case "sam":
		return &catalogv1.CheckAccessResponse{Allowed: true, Role: "subscriber", PayerUid: "alice"}, nil
	}
	return &catalogv1.CheckAccessResponse{}, nil
}

// fakeConversations answers every question, or refuses with funds = false.
type fakeConversations struct {
	conversationsv1.UnimplementedConversationsServiceServer
	mu      sync.Mutex
	refusal string // a FAILED_PRECONDITION refusal, "" for none
	calls   []*conversationsv1.AnswerRequest
	answers map[string]*conversationsv1.AnswerResponse // by idempotency key
}

func (f *fakeConversations) Answer(_ context.Context, req *conversationsv1.AnswerRequest) (*conversationsv1.AnswerResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, req)
	if f.refusal != "" {
		return nil, status.Error(codes.FailedPrecondition, f.refusal)
	}
	if a, ok := f.answers[req.GetIdempotencyKey()]; ok {
		return &conversationsv1.AnswerResponse{ConversationId: a.ConversationId, Content: a.Content,
			Citations: a.Citations, Replayed: true}, nil
	}
	q, _, _ := strings.Cut(req.GetContent(), "\n")
	a := &conversationsv1.AnswerResponse{ConversationId: "conv-" + req.GetThreadKey(), Content: "Answer: " + q,
		Citations: []*conversationsv1.Citation{{DocumentName: "Syllabus", Url: "https://docs.google.com/document/d/x/edit"}}}
	f.answers[req.GetIdempotencyKey()] = a
	return a, nil
}

func (f *fakeConversations) callList() []*conversationsv1.AnswerRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*conversationsv1.AnswerRequest(nil), f.calls...)
}

func (f *fakeConversations) setBroke(b bool) {
	if b {
		f.refuse("insufficient_funds")
	} else {
		f.refuse("")
	}
}

func (f *fakeConversations) refuse(reason string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refusal = reason
}

type agents map[string]string

func (a agents) AgentEmail(_ context.Context, id string) (string, error) {
	if e, ok := a[id]; ok {
		return e, nil
	}
	return "", errors.New("unknown agent")
}

type env struct {
	pool  *pgxpool.Pool
	sim   *drivesim.Server
	drive *drive.Client
	conv  *fakeConversations
	dir   *GRPCDirectory
	ans   *GRPCAnswerer
	reg   *prometheus.Registry
	docs  int
}

func newEnv(t *testing.T) *env {
	t.Helper()
	pool, _ := dbtest.NewPool(t, "comments")
	if err := database.Migrate(context.Background(), pool, documents.Migrations, "migrations"); err != nil {
		t.Fatal(err)
	}
	sim, err := drivesim.New(drivesim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sim.Handler())
	t.Cleanup(hs.Close)
	dc, err := drive.New(drive.Config{Endpoint: hs.URL + "/drive/v3/", DevTokens: true, BaseDelay: 10 * time.Millisecond, MaxAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	conv := &fakeConversations{answers: map[string]*conversationsv1.AnswerResponse{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	identityv1.RegisterIdentityServiceServer(srv, fakeIdentity{})
	catalogv1.RegisterCatalogServiceServer(srv, fakeCatalog{})
	conversationsv1.RegisterConversationsServiceServer(srv, conv)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return &env{pool: pool, sim: sim, drive: dc, conv: conv, dir: NewDirectory(conn, conn, time.Second),
		ans: NewAnswerer(conn), reg: prometheus.NewRegistry()}
}

// worker returns a new Worker instance (a "restart" is a second one) using d
// as Drive (nil: the real client).
func (e *env) worker(t *testing.T, d Drive) *Worker {
	t.Helper()
	if d == nil {
		d = e.drive
	}
	logger := testLogger()
	w, err := New(Config{Pool: e.pool, Drive: d, Agents: agents{agentID: agentAddr}, Directory: e.dir,
		Answerer: e.ans, Logger: logger, Registerer: e.reg, Interval: time.Hour, Lease: time.Minute,
		AnswerTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// link creates a simulator document shared with the agent and links it (as
// the sync would leave it: shared, synced).
func (e *env) link(t *testing.T, sharing string) (docID, fileID string) {
	t.Helper()
	f, err := e.sim.CreateFile(drivesim.File{Title: "Syllabus", Text: "Week 1: sets.", SharedWith: []string{agentAddr}})
	if err != nil {
		t.Fatal(err)
	}
	docID = uuid.NewString()
	var synced *time.Time
	if sharing == "shared" {
		now := time.Now()
		synced = &now
	}
	_, err = e.pool.Exec(context.Background(), `INSERT INTO documents (id, agent_id, owner_uid, name, url, drive_file_id,
		sharing_status, sync_state, synced_at) VALUES ($1, $2, 'alice', $7, $3, $4, $5, 'synced', $6)`,
		docID, agentID, drivesim.DocsURL(f.ID), f.ID, sharing, synced, "Syllabus"+suffix(e))
	if err != nil {
		t.Fatal(err)
	}
	return docID, f.ID
}

// suffix keeps document names unique within the agent ("Syllabus" first).
func suffix(e *env) string {
	e.docs++
	if e.docs == 1 {
		return ""
	}
	return "-" + strconv.Itoa(e.docs)
}

// pollAll makes every watch due and polls them.
func (e *env) pollAll(t *testing.T, w *Worker) {
	t.Helper()
	if _, err := e.pool.Exec(context.Background(), `UPDATE comment_watches SET run_at = now()`); err != nil {
		t.Fatal(err)
	}
	if _, err := w.PollDue(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (e *env) comment(t *testing.T, fileID, commentID string) drivesim.Comment {
	t.Helper()
	f, ok := e.sim.GetFile(fileID)
	if !ok {
		t.Fatal("file gone")
	}
	for _, c := range f.Comments {
		if c.ID == commentID {
			return c
		}
	}
	t.Fatalf("comment %s not found", commentID)
	return drivesim.Comment{}
}

func agentReplies(c drivesim.Comment) []drivesim.Reply {
	var out []drivesim.Reply
	for _, r := range c.Replies {
		if r.Author.EmailAddress == agentAddr {
			out = append(out, r)
		}
	}
	return out
}

func (e *env) states(t *testing.T) map[string]string {
	t.Helper()
	rows, err := e.pool.Query(context.Background(), `SELECT comment_id || '/' || reply_id, state FROM comment_mentions`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, s string
		if err := rows.Scan(&k, &s); err != nil {
			t.Fatal(err)
		}
		out[k] = s
	}
	return out
}

func TestOwnerMentionAnsweredOnce(t *testing.T) {
	e := newEnv(t)
	_, fileID := e.link(t, "shared")
	w := e.worker(t, nil)
	c, err := e.sim.AddComment(fileID, ownerEmail, "Alice", "@"+strings.ToUpper(agentAddr)+" what is week 1 about?")
	if err != nil {
		t.Fatal(err)
	}
	e.pollAll(t, w)

	got := agentReplies(e.comment(t, fileID, c.ID))
	if len(got) != 1 {
		t.Fatalf("agent replies = %+v, want 1", got)
	}
	want := "Answer: what is week 1 about?\n\nSources: Syllabus (https://docs.google.com/document/d/x/edit)"
	if got[0].Content != want {
		t.Fatalf("reply = %q, want %q", got[0].Content, want)
	}
	calls := e.conv.callList()
	if len(calls) != 1 {
		t.Fatalf("Answer calls = %d", len(calls))
	}
	a := calls[0]
	if a.GetChannel() != Channel || a.GetUserUid() != "alice" || a.GetAgentId() != agentID ||
		a.GetThreadKey() != fileID+"/"+c.ID || a.GetIdempotencyKey() != fileID+"/"+c.ID+"/c" || a.GetTitle() != "Syllabus" ||
		!strings.HasPrefix(a.GetContent(), "what is week 1 about?\n\n") || !strings.Contains(a.GetContent(), `"Syllabus"`) {
		t.Fatalf("Answer request = %v", a)
	}

	// Polled again (the agent's reply moved the comment): nothing new.
	e.pollAll(t, w)
	e.pollAll(t, e.worker(t, nil))
	if n := len(agentReplies(e.comment(t, fileID, c.ID))); n != 1 || len(e.conv.callList()) != 1 {
		t.Fatalf("after more polls: replies %d, Answer calls %d", n, len(e.conv.callList()))
	}

	// A follow-up reply by a subscriber mentioning the agent in the same
	// thread is answered in the same conversation; one without a mention is not.
	if _, err := e.sim.AddReply(fileID, c.ID, subEmail, "", "thanks! +"+agentAddr+", and week 2?", ""); err != nil {
		t.Fatal(err)
	}
	r2, err := e.sim.AddReply(fileID, c.ID, ownerEmail, "", "great, thanks", "")
	if err != nil {
		t.Fatal(err)
	}
	e.pollAll(t, w)
	got = agentReplies(e.comment(t, fileID, c.ID))
	if len(got) != 2 || !strings.HasPrefix(got[1].Content, "Answer: thanks! , and week 2?") {
		t.Fatalf("agent replies = %+v", got)
	}
	calls = e.conv.callList()
	if len(calls) != 2 || calls[1].GetUserUid() != "sam" || calls[1].GetThreadKey() != fileID+"/"+c.ID ||
		strings.HasSuffix(calls[1].GetIdempotencyKey(), "/c") || strings.HasSuffix(calls[1].GetIdempotencyKey(), r2.ID) {
		t.Fatalf("second Answer = %v", calls[len(calls)-1])
	}
	if v := testutil.ToFloat64(w.mentions.WithLabelValues(OutcomeReplied)); v != 2 {
		t.Fatalf("replied metric = %v", v)
	}
	for k, s := range e.states(t) {
		if s != StateReplied {
			t.Fatalf("mention %s state %s", k, s)
		}
	}
}

func TestStrangerAndNonMentionIgnored(t *testing.T) {
	e := newEnv(t)
	_, fileID := e.link(t, "shared")
	w := e.worker(t, nil)
	stranger, _ := e.sim.AddComment(fileID, strangerEm, "", "@"+agentAddr+" tell me the secret pricing")
	unknown, _ := e.sim.AddComment(fileID, "nobody@elsewhere.example", "", agentAddr+" hello?")
	plain, _ := e.sim.AddComment(fileID, ownerEmail, "", "A note for myself about week 1.")
	other, _ := e.sim.AddComment(fileID, ownerEmail, "", "ask x"+agentAddr+" or @"+agentAddr+"x.org")
	// The agent's own comment mentioning itself is never answered.
	own, _ := e.sim.AddComment(fileID, agentAddr, "", "I am "+agentAddr+"; ask me.")
	e.pollAll(t, w)
	e.pollAll(t, w)

	if calls := e.conv.callList(); len(calls) != 0 {
		t.Fatalf("Answer called: %v", calls)
	}
	for _, id := range []string{stranger.ID, unknown.ID, plain.ID, other.ID, own.ID} {
		if r := agentReplies(e.comment(t, fileID, id)); len(r) != 0 {
			t.Fatalf("comment %s got a reply: %+v", id, r)
		}
	}
	st := e.states(t)
	if len(st) != 2 || st[stranger.ID+"/"] != StateIgnored || st[unknown.ID+"/"] != StateIgnored {
		t.Fatalf("states = %v", st)
	}
	if v := testutil.ToFloat64(w.mentions.WithLabelValues(OutcomeNotAllowed)); v != 2 {
		t.Fatalf("not_allowed metric = %v", v)
	}
}

// failingDrive posts nothing (or, with post, posts and then fails: the crash
// after Drive accepted the reply and before it was recorded).
type failingDrive struct {
	Drive
	post bool
}

func (f failingDrive) CreateReply(ctx context.Context, agent, fileID, commentID, content string) (drive.Reply, error) {
	if f.post {
		if _, err := f.Drive.CreateReply(ctx, agent, fileID, commentID, content); err != nil {
			return drive.Reply{}, err
		}
	}
	return drive.Reply{}, &drive.Error{Kind: drive.KindRetryable, Message: "connection reset"}
}

func TestRestartMidwayRepliesOnce(t *testing.T) {
	for _, posted := range []bool{false, true} {
		name := "not posted"
		if posted {
			name = "posted, not recorded"
		}
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			_, fileID := e.link(t, "shared")
			c, _ := e.sim.AddComment(fileID, ownerEmail, "", "+"+agentAddr+" summarise week 1")
			first := e.worker(t, failingDrive{Drive: e.drive, post: posted})
			e.pollAll(t, first)
			if st := e.states(t)[c.ID+"/"]; st != StateAnswered {
				t.Fatalf("state after the failed post = %q, want answered", st)
			}
			want := 0
			if posted {
				want = 1
			}
			if n := len(agentReplies(e.comment(t, fileID, c.ID))); n != want {
				t.Fatalf("replies after the first run = %d, want %d", n, want)
			}

			// A new instance (the restart) finishes the job: exactly one reply.
			second := e.worker(t, nil)
			e.pollAll(t, second)
			e.pollAll(t, second)
			if n := len(agentReplies(e.comment(t, fileID, c.ID))); n != 1 {
				t.Fatalf("replies after the restart = %d, want 1", n)
			}
			if st := e.states(t)[c.ID+"/"]; st != StateReplied {
				t.Fatalf("state = %q", st)
			}
			if n := len(e.conv.callList()); n != 1 {
				t.Fatalf("Answer calls = %d, want 1", n)
			}
		})
	}
}

func TestRestartBeforeAnswerRecordedReplaysAnswer(t *testing.T) {
	e := newEnv(t)
	docID, fileID := e.link(t, "shared")
	c, _ := e.sim.AddComment(fileID, ownerEmail, "", "@"+agentAddr+" what is week 1 about?")
	// The previous run recorded the mention and called Answer, then died.
	if _, err := e.conv.Answer(context.Background(), &conversationsv1.AnswerRequest{IdempotencyKey: fileID + "/" + c.ID + "/c",
		ThreadKey: fileID + "/" + c.ID, Content: "what is week 1 about?"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(context.Background(), `INSERT INTO comment_mentions (agent_id, document_id, drive_file_id,
		comment_id, author_email, question) VALUES ($1, $2, $3, $4, $5, 'what is week 1 about?')`,
		agentID, docID, fileID, c.ID, ownerEmail); err != nil {
		t.Fatal(err)
	}
	e.pollAll(t, e.worker(t, nil))
	r := agentReplies(e.comment(t, fileID, c.ID))
	if len(r) != 1 || !strings.HasPrefix(r[0].Content, "Answer: what is week 1 about?") {
		t.Fatalf("replies = %+v", r)
	}
}

func TestInsufficientFundsPoliteReplyOnce(t *testing.T) {
	e := newEnv(t)
	_, fileID := e.link(t, "shared")
	e.conv.setBroke(true)
	w := e.worker(t, nil)
	c, _ := e.sim.AddComment(fileID, ownerEmail, "", "@"+agentAddr+" explain the grading")
	e.pollAll(t, w)
	e.pollAll(t, w)
	e.pollAll(t, e.worker(t, nil))
	r := agentReplies(e.comment(t, fileID, c.ID))
	if len(r) != 1 || r[0].Content != MsgCannotAnswer {
		t.Fatalf("replies = %+v", r)
	}
	if n := len(e.conv.callList()); n != 1 {
		t.Fatalf("Answer calls = %d, want 1", n)
	}
	if v := testutil.ToFloat64(w.mentions.WithLabelValues(OutcomeDeclined)); v != 1 {
		t.Fatalf("declined metric = %v", v)
	}
}

// A subscriber whose monthly cap is spent reads the sentence every channel
// gives them, once, and the question is not asked again.
func TestSubscriberOverCapRepliedUnavailableOnce(t *testing.T) {
	e := newEnv(t)
	_, fileID := e.link(t, "shared")
	e.conv.refuse("agent_unavailable")
	w := e.worker(t, nil)
	c, _ := e.sim.AddComment(fileID, ownerEmail, "", "@"+agentAddr+" explain the grading")
	e.pollAll(t, w)
	e.pollAll(t, w)
	r := agentReplies(e.comment(t, fileID, c.ID))
	if len(r) != 1 || r[0].Content != MsgAgentUnavailable {
		t.Fatalf("replies = %+v", r)
	}
	if n := len(e.conv.callList()); n != 1 {
		t.Fatalf("Answer calls = %d, want 1", n)
	}
}

func TestUnsharedDocumentNotPolled(t *testing.T) {
	e := newEnv(t)
	_, notShared := e.link(t, "not_shared")
	_, errored := e.link(t, "error")
	w := e.worker(t, nil)
	for _, id := range []string{notShared, errored} {
		if _, err := e.sim.AddComment(id, ownerEmail, "", "@"+agentAddr+" hello?"); err != nil {
			t.Fatal(err)
		}
	}
	e.pollAll(t, w)
	if n := e.sim.Requests(drivesim.OpComments); n != 0 {
		t.Fatalf("comments.list calls = %d, want 0", n)
	}
	if len(e.conv.callList()) != 0 || len(e.states(t)) != 0 {
		t.Fatal("an unshared document's comment was handled")
	}
	// Once the sync finds it shared, it is polled.
	if _, err := e.pool.Exec(context.Background(), `UPDATE documents SET sharing_status = 'shared', synced_at = now()
		WHERE drive_file_id = $1`, notShared); err != nil {
		t.Fatal(err)
	}
	e.pollAll(t, w)
	if n := e.sim.Requests(drivesim.OpComments); n != 1 {
		t.Fatalf("comments.list calls = %d, want 1", n)
	}
	if len(e.conv.callList()) != 1 {
		t.Fatal("the shared document's mention was not answered")
	}
}

func TestOldCommentsAndWatermark(t *testing.T) {
	e := newEnv(t)
	docID, fileID := e.link(t, "shared")
	// A mention written long before the document was linked is not new.
	old, _ := e.sim.AddComment(fileID, ownerEmail, "", "@"+agentAddr+" old question")
	if _, err := e.pool.Exec(context.Background(), `UPDATE documents SET created_at = now() + interval '1 hour' WHERE id = $1`, docID); err != nil {
		t.Fatal(err)
	}
	w := e.worker(t, nil)
	e.pollAll(t, w)
	if len(agentReplies(e.comment(t, fileID, old.ID))) != 0 || len(e.conv.callList()) != 0 {
		t.Fatal("an old comment was answered")
	}
	var wm *time.Time
	if err := e.pool.QueryRow(context.Background(), `SELECT watermark FROM comment_watches WHERE document_id = $1`, docID).Scan(&wm); err != nil || wm == nil {
		t.Fatalf("watermark = %v, %v", wm, err)
	}
}

func TestMention(t *testing.T) {
	const a = "math-tutor-ab12@agents.example"
	cases := []struct {
		in, rest string
		ok       bool
	}{
		{"@math-tutor-ab12@agents.example what is X?", "what is X?", true},
		{"+Math-Tutor-AB12@Agents.Example, what is X?", "what is X?", true},
		{"Hey math-tutor-ab12@agents.example.", "Hey .", true},
		{"what is X? @math-tutor-ab12@agents.example", "what is X?", true},
		{"(cc @math-tutor-ab12@agents.example) why", "(cc ) why", true},
		{"xmath-tutor-ab12@agents.example hi", "", false},
		{"a+math-tutor-ab12@agents.example hi", "", false},
		{"@math-tutor-ab12@agents.example.org hi", "", false},
		{"@math-tutor-ab12@agents.examples hi", "", false},
		{"no mention here", "", false},
		{"@math-tutor-ab12@agents.example", "", true},
	}
	for _, c := range cases {
		rest, ok := Mention(c.in, a)
		if ok != c.ok || (ok && rest != c.rest) {
			t.Errorf("Mention(%q) = %q, %v; want %q, %v", c.in, rest, ok, c.rest, c.ok)
		}
	}
}

func TestFormatReply(t *testing.T) {
	got := FormatReply(" The answer. ", []Citation{{Name: "A", URL: "https://a"}, {Name: "A", URL: "https://a"}, {Name: "B"}})
	if want := "The answer.\n\nSources: A (https://a), B"; got != want {
		t.Fatalf("FormatReply = %q, want %q", got, want)
	}
	if got := FormatReply("plain", nil); got != "plain" {
		t.Fatalf("FormatReply = %q", got)
	}
}

// testLogger discards the worker's logs unless COMMENTS_TEST_LOG is set.
func testLogger() *slog.Logger {
	if os.Getenv("COMMENTS_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

func TestRunAnswersInTheBackground(t *testing.T) {
	e := newEnv(t)
	_, fileID := e.link(t, "shared")
	w, err := New(Config{Pool: e.pool, Drive: e.drive, Agents: agents{agentID: agentAddr}, Directory: e.dir,
		Answerer: e.ans, Logger: testLogger(), Interval: time.Second, Poll: 20 * time.Millisecond, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	c, _ := e.sim.AddComment(fileID, ownerEmail, "", "@"+agentAddr+" what is week 1 about?")
	deadline := time.Now().Add(10 * time.Second)
	for len(agentReplies(e.comment(t, fileID, c.ID))) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no reply within 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond) // at least one more poll
	if n := len(agentReplies(e.comment(t, fileID, c.ID))); n != 1 {
		t.Fatalf("replies = %d", n)
	}
}
