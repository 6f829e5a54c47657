package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-smtp"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	conversationsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/conversations/v1"
	identityv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/identity/v1"
	"github.com/agentic-app/agentic/services/mail/internal/inbox"
	"github.com/agentic-app/agentic/services/mail/internal/inflow"
	"github.com/agentic-app/agentic/services/mail/internal/smtptest"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
	"github.com/agentic-app/agentic/services/platform/service/servicetest"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

// The cast of the tests: two agents, their owner, an active subscriber, an
// invited-only person, a registered stranger.
const (
	agentID     = "00000000-0000-7000-8000-00000000a001"
	agentEmail  = "math-tutor-abc234@agents.agentic.local"
	agent2ID    = "00000000-0000-7000-8000-00000000a002"
	agent2Email = "history-bot-xyz789@agents.agentic.local"
	offID       = "00000000-0000-7000-8000-00000000a003"
	offEmail    = "sleepy-bot-qqq222@agents.agentic.local"
	owner       = "alice@example.org"
	subscriber  = "erin@example.net"
	stranger    = "mallory@example.com"
)

// fakeCatalog, fakeIdentity and fakeConversations stand in for the other
// services' gRPC servers (generated interfaces, in-process).
type fakeCatalog struct {
	catalogv1.UnimplementedCatalogServiceServer
	mu     sync.Mutex
	agents map[string]*catalogv1.Agent // by e-mail
	access map[string]map[string]bool  // agent id → uid → allowed
	down   bool
}

func (f *fakeCatalog) FindAgentByEmail(_ context.Context, req *catalogv1.FindAgentByEmailRequest) (*catalogv1.GetAgentResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return nil, status.Error(codes.Unavailable, "catalog down")
	}
	if strings.TrimSpace(req.GetEmail()) == "" {
		return nil, status.Error(codes.InvalidArgument, "email is required")
	}
	a, ok := f.agents[strings.ToLower(strings.TrimSpace(req.GetEmail()))]
	if !ok {
		return nil, status.Error(codes.NotFound, "agent not found")
	}
	return &catalogv1.GetAgentResponse{Agent: a}, nil
}

func (f *fakeCatalog) CheckAccess(_ context.Context, req *catalogv1.CheckAccessRequest) (*catalogv1.CheckAccessResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.access[req.GetAgentId()][req.GetUid()] {
		return &catalogv1.CheckAccessResponse{Allowed: true, Role: "subscriber", PayerUid: "alice"}, nil
	}
	return &catalogv1.CheckAccessResponse{}, nil
}

type fakeIdentity struct {
	identityv1.UnimplementedIdentityServiceServer
	users map[string]string // e-mail → uid
}

func (f *fakeIdentity) FindUsersByEmail(_ context.Context, req *identityv1.FindUsersByEmailRequest) (*identityv1.FindUsersByEmailResponse, error) {
	var out []*identityv1.User
	for _, e := range req.GetEmails() {
		if uid, ok := f.users[strings.ToLower(e)]; ok {
			out = append(out, &identityv1.User{Uid: uid, Email: strings.ToLower(e)})
		}
	}
	return &identityv1.FindUsersByEmailResponse{Users: out}, nil
}

// GetUser finds the user by uid (NOT_FOUND for anyone else).
func (f *fakeIdentity) GetUser(_ context.Context, req *identityv1.GetUserRequest) (*identityv1.GetUserResponse, error) {
	for email, uid := range f.users {
		if uid == req.GetUid() {
			return &identityv1.GetUserResponse{User: &identityv1.User{Uid: uid, Email: email, DisplayName: strings.ToUpper(uid[:1]) + uid[1:]}}, nil
		}
	}
	return nil, status.Error(codes.NotFound, "user not found")
}

// fakeConversations answers like the conversations service: idempotent by
// (agent, user, thread, idempotency key), replaying the first answer. Its
// behaviour per call is set by fail (an error for the n-th call, 1-based).
type fakeConversations struct {
	conversationsv1.UnimplementedConversationsServiceServer
	mu    sync.Mutex
	calls []*conversationsv1.AnswerRequest
	done  map[string]*conversationsv1.AnswerResponse
	convs map[string]string // thread → conversation id
	fail  func(n int, req *conversationsv1.AnswerRequest) error
	delay time.Duration
}

func (f *fakeConversations) Answer(_ context.Context, req *conversationsv1.AnswerRequest) (*conversationsv1.AnswerResponse, error) {
	f.mu.Lock()
	f.calls = append(f.calls, req)
	n := len(f.calls)
	fail, delay := f.fail, f.delay
	f.mu.Unlock()
	if delay > 0 {
		time.Sleep(delay)
	}
	if fail != nil {
		if err := fail(n, req); err != nil {
			return nil, err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	thread := req.GetAgentId() + "|" + req.GetUserUid() + "|" + req.GetChannel() + "|" + req.GetThreadKey()
	key := thread + "|" + req.GetIdempotencyKey()
	if r, ok := f.done[key]; ok {
		replay := proto.Clone(r).(*conversationsv1.AnswerResponse)
		replay.Replayed = true
		return replay, nil
	}
	conv, ok := f.convs[thread]
	if !ok {
		conv = fmt.Sprintf("conv-%d", len(f.convs)+1)
		f.convs[thread] = conv
	}
	r := &conversationsv1.AnswerResponse{
		ConversationId: conv, MessageId: fmt.Sprintf("msg-%d", n),
		Content: "**Answer** to: " + req.GetContent(),
		Citations: []*conversationsv1.Citation{{DocumentId: "d1", DocumentName: "Algebra notes",
			Url: "https://docs.google.com/document/d/abc123/edit"}},
		Model: "sim", TotalMicros: 901, Status: "complete",
	}
	f.done[key] = r
	return r, nil
}

func (f *fakeConversations) Calls() []*conversationsv1.AnswerRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*conversationsv1.AnswerRequest(nil), f.calls...)
}

type running struct {
	smtp, http string
	sink       *smtptest.Sink
	catalog    *fakeCatalog
	conv       *fakeConversations
	brokers    []string
	dbURL      string
}

func startFakes(t *testing.T) (string, *fakeCatalog, *fakeConversations) {
	t.Helper()
	agent := func(id, email, name, status string) *catalogv1.Agent {
		return &catalogv1.Agent{Id: id, OwnerUid: "alice", Name: name, Email: email, Status: status}
	}
	cat := &fakeCatalog{
		agents: map[string]*catalogv1.Agent{
			agentEmail:  agent(agentID, agentEmail, "Math Tutor", "active"),
			agent2Email: agent(agent2ID, agent2Email, "History Bot", "active"),
			offEmail:    agent(offID, offEmail, "Sleepy Bot", "inactive"),
		},
		access: map[string]map[string]bool{
			agentID:  {"alice": true, "erin": true},
			agent2ID: {"alice": true},
			offID:    {"alice": true},
		},
	}
	id := &fakeIdentity{users: map[string]string{owner: "alice", subscriber: "erin", stranger: "mallory", "gina@example.org": "gina"}}
	conv := &fakeConversations{done: map[string]*conversationsv1.AnswerResponse{}, convs: map[string]string{}}
	srv := grpc.NewServer()
	catalogv1.RegisterCatalogServiceServer(srv, cat)
	identityv1.RegisterIdentityServiceServer(srv, id)
	conversationsv1.RegisterConversationsServiceServer(srv, conv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return ln.Addr().String(), cat, conv
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// start runs the service against fresh PostgreSQL, kfake, the fakes and a
// relay sink; edit adjusts the configuration.
func start(t *testing.T, edit func(*Config)) running {
	t.Helper()
	fakes, cat, conv := startFakes(t)
	sink := smtptest.Start(t, smtptest.Options{})
	r := running{sink: sink, catalog: cat, conv: conv, brokers: eventstest.StartKafka(t), dbURL: dbtest.NewURL(t, "mail")}
	cfg := Config{
		Settings: servicetest.Settings(r.dbURL, r.brokers, nil),
		Env:      EnvDevelopment, Hostname: "mx.agents.test", TrustSPF: true,
		RelayURL:          "smtp://" + sink.Addr(),
		SenderHourlyLimit: 30, MaxMessageBytes: 10 << 20, AnswerConcurrency: 4, SendConcurrency: 2,
		CatalogGRPCAddr: fakes, IdentityGRPCAddr: fakes, ConversationsGRPCAddr: fakes,
		SMTPListener: listen(t),
		Poll:         100 * time.Millisecond, RetryBase: 100 * time.Millisecond, RetryMax: 300 * time.Millisecond,
		SendRetryBase: 100 * time.Millisecond, SendRetryMax: 300 * time.Millisecond,
		// Paced as in production (package inflow); no test here fills it.
		InflowBacklog: inflow.DefaultBacklog, InflowMaxWait: 5 * time.Second,
	}
	cfg.HTTPListener, cfg.GRPCListener = listen(t), listen(t)
	if edit != nil {
		edit(&cfg)
	}
	r.smtp = cfg.SMTPListener.Addr().String()
	r.http = "http://" + cfg.HTTPListener.Addr().String()
	level := slog.LevelWarn
	if os.Getenv("MAIL_TEST_LOG") != "" {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	servicetest.Start(t, func(ctx context.Context, ready servicetest.Ready) error {
		cfg.Ready = func(h, g, _ net.Addr) { ready(h, g) }
		return Run(ctx, cfg, logger)
	})
	return r
}

// message builds a message with CRLF line endings.
func message(from, to, subject, id string, extra map[string]string, body string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\n", from, to, subject, time.Now().UTC().Format(time.RFC1123Z))
	if id != "" {
		fmt.Fprintf(&b, "Message-ID: <%s>\r\n", id)
	}
	for k, v := range extra {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	if _, ok := extra["Content-Type"]; !ok {
		b.WriteString("Content-Type: text/plain; charset=utf-8\r\n")
	}
	b.WriteString("\r\n")
	b.WriteString(strings.ReplaceAll(body, "\n", "\r\n"))
	return b.String()
}

// send runs one SMTP transaction with go-smtp's client and returns its error
// (an *smtp.SMTPError for refusals).
func send(t *testing.T, addr, from string, to []string, raw string) error {
	t.Helper()
	c, err := smtp.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Hello("client.example.org"); err != nil {
		t.Fatal(err)
	}
	err = c.SendMail(from, to, strings.NewReader(raw))
	if err == nil {
		_ = c.Quit()
	}
	return err
}

// code returns the SMTP code and enhanced code of err ("250 2.0.0" for nil).
func code(err error) string {
	if err == nil {
		return "250 2.0.0"
	}
	if se, ok := err.(*smtp.SMTPError); ok {
		return fmt.Sprintf("%d %d.%d.%d", se.Code, se.EnhancedCode[0], se.EnhancedCode[1], se.EnhancedCode[2])
	}
	return "error: " + err.Error()
}

// parsed is a reply as a mail client reads it.
type parsed struct {
	from, to, subject, id string
	inReplyTo, refs       []string
	text, html            string
	header                mail.Header
}

func parse(t *testing.T, raw []byte) parsed {
	t.Helper()
	mr, err := mail.CreateReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var p parsed
	h := mr.Header
	p.header = h
	from, _ := h.AddressList("From")
	to, _ := h.AddressList("To")
	if len(from) == 1 && len(to) == 1 {
		p.from, p.to = from[0].Address, to[0].Address
	}
	p.subject, _ = h.Subject()
	p.id, _ = h.MessageID()
	p.inReplyTo, _ = h.MsgIDList("In-Reply-To")
	p.refs, _ = h.MsgIDList("References")
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ct, _, _ := part.Header.(*mail.InlineHeader).ContentType()
		b, _ := io.ReadAll(part.Body)
		s := strings.ReplaceAll(string(b), "\r\n", "\n")
		switch ct {
		case "text/plain":
			p.text = s
		case "text/html":
			p.html = s
		}
	}
	return p
}

// admin reads GET /admin/messages.
func admin(t *testing.T, base string) []inbox.MessageView {
	t.Helper()
	resp, err := http.Get(base + "/admin/messages?limit=500")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("admin: %d %s", resp.StatusCode, b)
	}
	var out []inbox.MessageView
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

var waitOpts = []testwait.Option{testwait.Timeout(20 * time.Second), testwait.Every(25 * time.Millisecond)}

type smtpClient = smtp.Client

var smtpDial = smtp.Dial

type smtpMailOptions = smtp.MailOptions

// smtpRefusal is a permanent refusal the relay sink answers DATA with.
func smtpRefusal(code int) *smtp.SMTPError {
	return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{code / 100, 1, 1}, Message: "refused by the test relay"}
}

var smtpDialStartTLS = smtp.DialStartTLS

// settle waits until the service has no work left that could still send an
// e-mail: no message waiting for its answer, no reply and no notification
// waiting to be sent. A check that nothing more arrived is made after it
// (instead of sleeping for as long as such work might take). Work from an
// event that was not consumed yet is not seen: wait for its processing
// first.
func (r running) settle(t *testing.T) {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), r.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	testwait.Until(t, "no message, reply or notification pending", func() bool {
		var busy bool
		err := pool.QueryRow(context.Background(), `SELECT
			EXISTS (SELECT 1 FROM messages WHERE state = 'pending') OR
			EXISTS (SELECT 1 FROM replies WHERE state = 'pending') OR
			EXISTS (SELECT 1 FROM notifications WHERE state = 'pending')`).Scan(&busy)
		return err == nil && !busy
	}, waitOpts...)
}
