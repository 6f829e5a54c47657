package app

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/conversations/internal/fakes"
	"github.com/agentic-app/agentic/services/conversations/internal/llm"
	"github.com/agentic-app/agentic/services/conversations/internal/llmsim"
	"github.com/agentic-app/agentic/services/conversations/internal/pricing"
	"github.com/agentic-app/agentic/services/platform/apitest"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/auth/authtest"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
	"github.com/agentic-app/agentic/services/platform/service/servicetest"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

func verifierOr(v auth.Verifier) auth.Verifier {
	if v != nil {
		return v
	}
	return authtest.Tokens
}

const (
	agentA   = "01900000-0000-7000-8000-00000000000a" // "Math Tutor", alice's
	agentB   = "01900000-0000-7000-8000-00000000000b" // dave's
	unknownA = "01900000-0000-7000-8000-0000000000ff"
	docSyl   = "01900000-0000-7000-8000-0000000000d1"
	docNotes = "01900000-0000-7000-8000-0000000000d2"
	dollar   = 1_000_000
)

// clock is the service clock: real time plus an offset tests can advance
// (to run the reconciler after a lease without waiting).
type clock struct{ off atomic.Int64 }

func (c *clock) Now() time.Time          { return time.Now().Add(time.Duration(c.off.Load())) }
func (c *clock) advance(d time.Duration) { c.off.Add(int64(d)) }

// simFront serves the real LLM simulator, adding fault headers a test sets
// and keeping the last chat request's body (what the "model" was sent).
type simFront struct {
	sim  *llmsim.Sim
	mu   sync.Mutex
	hdr  map[string]string
	last []byte
	all  [][]byte // every POST body, in order
}

func (f *simFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	for k, v := range f.hdr {
		r.Header.Set(k, v)
	}
	f.mu.Unlock()
	if r.Method == http.MethodPost && r.Body != nil {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		f.mu.Lock()
		f.last = body
		f.all = append(f.all, body)
		f.mu.Unlock()
	}
	f.sim.ServeHTTP(w, r)
}

// lastRequest returns the last chat request the simulator received.
func (f *simFront) lastRequest() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

// requests returns every POST body the simulator received, in order.
func (f *simFront) requests() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.all)
}

func (f *simFront) set(k, v string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if v == "" {
		delete(f.hdr, k)
		return
	}
	f.hdr[k] = v
}

type env struct {
	base      string
	grpc      string
	dbURL     string
	peers     string
	simURL    string
	opts      options
	brokers   []string
	catalog   *fakes.Catalog
	wallet    *fakes.Wallet
	knowledge *fakes.Knowledge
	sim       *llmsim.Sim
	front     *simFront
	svc       *conversations.Service
	store     conversations.Store
	clock     *clock
	// Users, unique per run (the rate limit lives in a shared Redis).
	alice, bob, carol, dave string
}

type options struct {
	rateLimit int
	accessTTL time.Duration
	// Agent API: per-key and per-owner limits (0: none) and the key cache
	// (0: the default second).
	apiKeyLimit, apiOwnerLimit int
	keyCacheTTL                time.Duration
	// maxAPIKeys bounds each agent's live keys (0: the default).
	maxAPIKeys int
	// logger receives the service's logs (nil: the default logger).
	logger *slog.Logger
	// wrapStore wraps the answering path's store (fault injection).
	wrapStore func(conversations.Store) conversations.Store
	// verifier replaces authtest.Tokens.
	verifier auth.Verifier
	// rateLimitNow is the chat and agent API limits' clock (nil: time.Now).
	rateLimitNow func() time.Time
	// followUps is FOLLOW_UP_SEARCH ("": the simulator's default, the rule).
	followUps string
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func start(t testing.TB, o options) *env {
	t.Helper()
	if o.rateLimit == 0 {
		o.rateLimit = 1000
	}
	if o.accessTTL == 0 {
		o.accessTTL = -1 // no cache: access changes show at once
	}
	sfx := randomSuffix()
	e := &env{alice: "alice-" + sfx, bob: "bob-" + sfx, carol: "carol-" + sfx, dave: "dave-" + sfx, clock: &clock{}}

	e.catalog = fakes.NewCatalog()
	e.catalog.AddAgent(&catalogv1.Agent{Id: agentA, OwnerUid: e.alice, Name: "Math Tutor", IconColor: "#4f46e5",
		Status: "active", Instructions: "You tutor algebra. Prefer the course material of #week1."})
	e.catalog.AddAgent(&catalogv1.Agent{Id: agentB, OwnerUid: e.dave, Name: "Chef", IconColor: "#f97316", Status: "active"})
	e.catalog.SetSubscriber(agentA, e.bob, "active")
	e.catalog.SetSubscriber(agentA, e.carol, "pending")
	e.wallet = fakes.NewWallet()
	e.wallet.SetBalance(e.alice, 10*dollar)
	e.wallet.SetBalance(e.bob, 10*dollar)
	e.knowledge = fakes.NewKnowledge(
		fakes.Document{ID: docSyl, AgentID: agentA, Name: "Syllabus", URL: "https://docs.google.com/document/d/syl/edit",
			Labels: []string{"week1"}, Paragraphs: []string{
				"Quadratic equations are solved with the quadratic formula x = (-b ± √(b²-4ac)) / 2a.",
				"The midterm exam covers linear functions and their graphs.",
			}},
		fakes.Document{ID: docNotes, AgentID: agentA, Name: "Notes", URL: "https://docs.google.com/document/d/notes/edit",
			Paragraphs: []string{"Office hours are on Tuesdays in room 101."}},
	)
	e.peers = fakes.Start(t, e.catalog, e.wallet, e.knowledge)

	e.sim = llmsim.New(llmsim.Config{})
	e.front = &simFront{sim: e.sim, hdr: map[string]string{}}
	simSrv := httptest.NewServer(e.front)
	t.Cleanup(simSrv.Close)
	e.simURL = simSrv.URL

	e.dbURL = dbtest.NewURL(t, "conversations")
	e.brokers = eventstest.StartKafka(t)
	e.opts = o
	e.base, e.grpc = e.run(t, func(s *conversations.Service, st conversations.Store) { e.svc, e.store = s, st })
	return e
}

// replica starts another instance of the service on the same database,
// broker and peers (a second replica) and returns its base URL.
func (e *env) replica(t *testing.T) string {
	t.Helper()
	base, _ := e.run(t, nil)
	return base
}

// run starts one instance of the service; it stops when the test ends.
func (e *env) run(t testing.TB, got func(*conversations.Service, conversations.Store)) (base, grpcAddr string) {
	t.Helper()
	o := e.opts
	r := servicetest.Start(t, func(ctx context.Context, ready servicetest.Ready) error {
		cfg := Config{
			Settings:             servicetest.Settings(e.dbURL, e.brokers, ready),
			RedisURL:             "redis://127.0.0.1:6379/0",
			CatalogGRPCAddr:      e.peers,
			WalletGRPCAddr:       e.peers,
			DocumentsGRPCAddr:    e.peers,
			AccessCacheTTL:       o.accessTTL,
			LLMBaseURL:           e.simURL + "/v1",
			LLMModel:             pricing.SimModel,
			LLMSimulated:         true,
			Prices:               pricing.Default,
			ContextWindow:        16384,
			MaxOutputTokens:      512,
			AnswerTimeout:        30 * time.Second,
			LLMRetryBaseDelay:    5 * time.Millisecond,
			HoldTTL:              5 * time.Minute,
			ReconcileInterval:    time.Hour,
			ChatRateLimit:        o.rateLimit,
			ChatRateWindow:       time.Minute,
			APIKeyRateLimit:      o.apiKeyLimit,
			APIOwnerRateLimit:    o.apiOwnerLimit,
			APIRateWindow:        time.Minute,
			APIKeyCacheTTL:       o.keyCacheTTL,
			MaxAPIKeysPerAgent:   o.maxAPIKeys,
			FollowUps:            o.followUps,
			RetrievalLimit:       8,
			RetrievalTokenBudget: 3000,
			ReferenceTokenBudget: 4000,
			Now:                  e.clock.Now,
			RateLimitNow:         o.rateLimitNow,
			Service:              got,
			WrapStore:            o.wrapStore,
		}
		cfg.Verifier = verifierOr(o.verifier)
		return Run(ctx, cfg, o.logger)
	})
	return r.HTTP, r.GRPC
}

type resp = apitest.Response

func tok(uid string) string { return "token-" + uid }

func (e *env) do(t *testing.T, method, path, uid, body string) resp {
	t.Helper()
	token := ""
	if uid != "" {
		token = tok(uid)
	}
	r := apitest.Do(t, method, e.base+path, token, body)
	if r.Status >= 500 && r.Status != http.StatusBadGateway && r.Status != http.StatusServiceUnavailable {
		t.Errorf("%s %s: %d %s", method, path, r.Status, r.Raw)
	}
	return r
}

func msgBody(content, clientID string) string {
	b, _ := json.Marshal(map[string]string{"content": content, "clientMessageId": clientID})
	return string(b)
}

func (e *env) newConversation(t *testing.T, uid, agent string) string {
	t.Helper()
	r := e.do(t, "POST", "/api/agents/"+agent+"/conversations", uid, "")
	if r.Status != 201 {
		t.Fatalf("create conversation: %d %s", r.Status, r.Raw)
	}
	return r.Obj()["id"].(string)
}

func (e *env) sendJSON(t *testing.T, uid, conv, content, clientID string) resp {
	t.Helper()
	return e.do(t, "POST", "/api/conversations/"+conv+"/messages", uid, msgBody(content, clientID))
}

type sseEvent struct {
	name string
	data string
}

func (ev sseEvent) obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(ev.data), &m); err != nil {
		t.Fatalf("event %s data %q: %v", ev.name, ev.data, err)
	}
	return m
}

// readSSE parses a whole event stream.
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.name != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if cur.data != "" {
				t.Fatalf("event %s has two data lines", cur.name)
			}
			cur.data = strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	return out
}

type streamed struct {
	Status int
	Header http.Header
	events []sseEvent
	Raw    string // non-stream body
}

func (s streamed) names() []string {
	var n []string
	for _, e := range s.events {
		if len(n) > 0 && e.name == "delta" && n[len(n)-1] == "delta" {
			continue
		}
		n = append(n, e.name)
	}
	return n
}

func (s streamed) text() string {
	var b strings.Builder
	for _, e := range s.events {
		if e.name == "delta" {
			var d struct{ Text string }
			_ = json.Unmarshal([]byte(e.data), &d)
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

func (s streamed) event(t *testing.T, name string) map[string]any {
	t.Helper()
	for _, e := range s.events {
		if e.name == name {
			return e.obj(t)
		}
	}
	t.Fatalf("no %s event in %v", name, s.names())
	return nil
}

func (e *env) sendSSE(t *testing.T, uid, conv, content, clientID string) streamed {
	t.Helper()
	req, _ := http.NewRequest("POST", e.base+"/api/conversations/"+conv+"/messages", strings.NewReader(msgBody(content, clientID)))
	req.Header.Set("Authorization", "Bearer "+tok(uid))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	s := streamed{Status: res.StatusCode, Header: res.Header}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		s.events = readSSE(t, res.Body)
	} else {
		raw, _ := io.ReadAll(res.Body)
		s.Raw = string(raw)
	}
	return s
}

type timings struct {
	names []string           // in the order sent
	ms    map[string]float64 // dur of each
}

// serverTimings reads the Server-Timing metrics of a response
// (`name;desc="…";dur=1.234`, comma-separated, over any number of lines).
func serverTimings(h http.Header) timings {
	tm := timings{ms: map[string]float64{}}
	for _, line := range h.Values("Server-Timing") {
		for _, metric := range strings.Split(line, ",") {
			params := strings.Split(strings.TrimSpace(metric), ";")
			name := params[0]
			tm.names = append(tm.names, name)
			for _, p := range params[1:] {
				if v, ok := strings.CutPrefix(p, "dur="); ok {
					tm.ms[name], _ = strconv.ParseFloat(v, 64)
				}
			}
		}
	}
	return tm
}

func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}

// checkUsage asserts that a usage object is priced exactly by the table.
func checkUsage(t *testing.T, u map[string]any) (in, out, total int64) {
	t.Helper()
	in, out = num(u["inputTokens"]), num(u["outputTokens"])
	price := pricing.Default[pricing.SimModel]
	cost := pricing.Cost(price, in, out)
	if in <= 0 || out <= 0 || num(u["costMicros"]) != cost || num(u["feeMicros"]) != pricing.Fee(cost) ||
		num(u["totalMicros"]) != cost+pricing.Fee(cost) || u["model"] != pricing.SimModel {
		t.Fatalf("usage %v, want cost %d fee %d", u, cost, pricing.Fee(cost))
	}
	return in, out, num(u["totalMicros"])
}

func (e *env) charge(t *testing.T, messageID string) conversations.Charge {
	t.Helper()
	c, err := e.store.GetCharge(context.Background(), messageID)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// interactions reads the usage events published so far.
func (e *env) interactions(t *testing.T, n int) []*eventsv1.InteractionRecorded {
	t.Helper()
	recs := eventstest.Consume(t, e.brokers, conversations.Topic, n, 10*time.Second, 300*time.Millisecond)
	var out []*eventsv1.InteractionRecorded
	for _, r := range recs {
		if r.Headers["ce_type"] != conversations.TypeInteractionRecorded || r.Headers["ce_source"] != conversations.Source {
			t.Fatalf("event headers %v", r.Headers)
		}
		var m eventsv1.InteractionRecorded
		if err := protojson.Unmarshal(r.Value, &m); err != nil {
			t.Fatal(err)
		}
		if r.Key != m.GetAgentId() || r.Headers["ce_subject"] != m.GetInteractionId() {
			t.Fatalf("event key %q subject %q for %v", r.Key, r.Headers["ce_subject"], &m)
		}
		out = append(out, &m)
	}
	return out
}

const question = "How do I solve quadratic equations?"

func TestStreamingAnswerIsMeteredAndRecorded(t *testing.T) {
	e := start(t, options{})
	conv := e.newConversation(t, e.alice, agentA)

	s := e.sendSSE(t, e.alice, conv, question, "c1")
	if s.Status != 200 {
		t.Fatalf("stream: %d %s", s.Status, s.Raw)
	}
	for k, want := range map[string]string{"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"} {
		if got := s.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if got := strings.Join(s.names(), ","); got != "start,delta,citations,usage,done" {
		t.Fatalf("events %s", got)
	}
	// The time to first token, split for this answer: the model's part, the
	// platform's before it, and that part by stage, in order.
	timing := serverTimings(s.Header)
	if got := strings.Join(timing.names, ","); got != "model,platform,lookup,limit,context,begin,reserve" {
		t.Fatalf("Server-Timing metrics %q (%v)", got, s.Header.Values("Server-Timing"))
	}
	stagesSum := 0.0
	for _, n := range timing.names[2:] {
		stagesSum += timing.ms[n]
	}
	if timing.ms["model"] <= 0 || timing.ms["platform"] <= 0 || stagesSum > timing.ms["platform"]+0.002 {
		t.Fatalf("Server-Timing durations %v: stages add up to %.3f ms", timing.ms, stagesSum)
	}
	st := s.event(t, "start")
	if st["model"] != pricing.SimModel || st["simulated"] != true || st["userMessageId"] == "" || st["assistantMessageId"] == "" {
		t.Fatalf("start %v", st)
	}
	answer := s.text()
	if !strings.Contains(answer, "quadratic formula") || !strings.Contains(answer, "**Syllabus** [1]") {
		t.Fatalf("answer %q", answer)
	}
	var cites []map[string]any
	for _, ev := range s.events {
		if ev.name == "citations" {
			_ = json.Unmarshal([]byte(ev.data), &cites)
		}
	}
	if len(cites) != 1 || cites[0]["documentId"] != docSyl || cites[0]["documentName"] != "Syllabus" ||
		cites[0]["url"] != "https://docs.google.com/document/d/syl/edit" || fmt.Sprint(cites[0]["labels"]) != "[week1]" {
		t.Fatalf("citations %v", cites)
	}
	// The owner sees which marker cites what: the [n] numbers and the passages' text.
	if ps, _ := cites[0]["passages"].([]any); fmt.Sprint(cites[0]["markers"]) == "[]" || len(ps) == 0 ||
		ps[0].(map[string]any)["text"] == "" || ps[0].(map[string]any)["n"] != cites[0]["markers"].([]any)[0] {
		t.Fatalf("citation markers/passages %v", cites)
	}
	in, out, total := checkUsage(t, s.event(t, "usage"))
	if out != int64(llm.CompletionTokens(answer)) {
		t.Errorf("output tokens %d, answer has %d", out, llm.CompletionTokens(answer))
	}
	asstID := st["assistantMessageId"].(string)
	if s.event(t, "done")["messageId"] != asstID {
		t.Fatalf("done %v", s.event(t, "done"))
	}

	// The wallet: one hold, captured at exactly the total, the rest released.
	holds := e.wallet.Holds()
	if len(holds) != 1 || holds[0].Status != "captured" || holds[0].Captured != total || holds[0].Key != "msg:"+asstID ||
		holds[0].Amount < total || holds[0].UID != e.alice {
		t.Fatalf("holds %+v (total %d)", holds, total)
	}
	// The wallet's per-agent rules (monthly fee, paused agents) key on these.
	if holds[0].Metadata["agent_id"] != agentA || holds[0].Metadata["agent_name"] != "Math Tutor" {
		t.Fatalf("reserve metadata %v lacks agent_id/agent_name", holds[0].Metadata)
	}
	if bal, held := e.wallet.Balance(e.alice); bal != 10*dollar-total || held != 0 {
		t.Fatalf("balance %d held %d, want %d 0", bal, held, 10*dollar-total)
	}
	tr := e.wallet.Transfers()
	wantDesc := fmt.Sprintf("Math Tutor · %d tokens", in+out)
	if len(tr) != 1 || tr[0].Description != wantDesc || tr[0].Amount != total ||
		tr[0].Metadata["agentId"] != agentA || tr[0].Metadata["conversationId"] != conv || tr[0].Metadata["messageId"] != asstID ||
		tr[0].Metadata["model"] != pricing.SimModel || tr[0].Metadata["inputTokens"] != strconv.FormatInt(in, 10) ||
		tr[0].Metadata["outputTokens"] != strconv.FormatInt(out, 10) ||
		tr[0].Metadata["costMicros"] != strconv.FormatInt(pricing.Cost(pricing.Default[pricing.SimModel], in, out), 10) {
		t.Fatalf("transfers %+v, want %q", tr, wantDesc)
	}

	// Persisted: both messages, the answer with usage and citations.
	g := e.do(t, "GET", "/api/conversations/"+conv, e.alice, "")
	msgs := g.Obj()["messages"].([]any)
	if g.Status != 200 || len(msgs) != 2 {
		t.Fatalf("conversation %d %s", g.Status, g.Raw)
	}
	u, a := msgs[0].(map[string]any), msgs[1].(map[string]any)
	if u["role"] != "user" || u["content"] != question || u["clientMessageId"] != "c1" || u["usage"] != nil || u["status"] != "complete" {
		t.Errorf("user message %v", u)
	}
	if a["id"] != asstID || a["role"] != "assistant" || a["content"] != answer || a["status"] != "complete" ||
		a["clientMessageId"] != nil || len(a["citations"].([]any)) != 1 {
		t.Errorf("assistant message %v", a)
	}
	if _, _, tot := checkUsage(t, a["usage"].(map[string]any)); tot != total {
		t.Errorf("stored total %d, streamed %d", tot, total)
	}
	if g.Obj()["lastMessageAt"] == nil {
		t.Errorf("lastMessageAt not set: %v", g.Obj())
	}
	if c := e.charge(t, asstID); c.State != conversations.ChargeCaptured || c.Outcome != "captured" || c.TransferID != tr[0].ID {
		t.Errorf("charge %+v", c)
	}

	// The knowledge was asked for the message and for the #week1 label.
	var labelled, plain bool
	for _, q := range e.knowledge.Searches() {
		if q.GetAgentId() != agentA || q.GetQuery() != question {
			t.Errorf("search %v", q)
		}
		labelled = labelled || fmt.Sprint(q.GetLabels()) == "[week1]"
		plain = plain || len(q.GetLabels()) == 0
	}
	if !labelled || !plain {
		t.Errorf("searches %v", e.knowledge.Searches())
	}

	// The event, through the outbox.
	evs := e.interactions(t, 1)
	if len(evs) != 1 {
		t.Fatalf("%d events", len(evs))
	}
	ev := evs[0]
	if ev.GetInteractionId() != asstID || ev.GetAgentId() != agentA || ev.GetOwnerUid() != e.alice || ev.GetAgentName() != "Math Tutor" ||
		ev.GetIconColor() != "#4f46e5" || fmt.Sprint(ev.GetDocumentReferences()) != "[Syllabus]" || ev.GetUserUid() != e.alice ||
		ev.GetPayerUid() != e.alice || ev.GetChannel() != "chat" || ev.GetConversationId() != conv || ev.GetModel() != pricing.SimModel ||
		ev.GetInputTokens() != in || ev.GetOutputTokens() != out || ev.GetTotalMicros() != total ||
		ev.GetCostMicros()+ev.GetFeeMicros() != total || ev.GetTransferId() != tr[0].ID || ev.GetOccurredAt() == nil {
		t.Fatalf("event %v", ev)
	}

	// JSON mode: the finished turn in one response; history goes into the prompt.
	j := e.sendJSON(t, e.alice, conv, "When is the midterm exam and what does it cover?", "c2")
	if j.Status != 200 {
		t.Fatalf("json: %d %s", j.Status, j.Raw)
	}
	um, am := j.Obj()["userMessage"].(map[string]any), j.Obj()["assistantMessage"].(map[string]any)
	if um["clientMessageId"] != "c2" || am["status"] != "complete" || !strings.Contains(am["content"].(string), "midterm") {
		t.Fatalf("json turn %s", j.Raw)
	}
	checkUsage(t, am["usage"].(map[string]any))
	if _, _, tot2 := checkUsage(t, am["usage"].(map[string]any)); tot2 <= 0 {
		t.Fatal("second answer not priced")
	}
	if len(e.wallet.Transfers()) != 2 {
		t.Fatalf("transfers after two answers: %d", len(e.wallet.Transfers()))
	}

	// Metrics: answers by outcome, time to first token, the platform's own
	// latency, tokens and the money captured.
	res, err := http.Get(e.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	wantCaptured := float64(total + num(am["usage"].(map[string]any)["totalMicros"]))
	for _, want := range []string{
		`conversations_answers_total{channel="chat",outcome="complete"} 2`,
		`conversations_time_to_first_token_seconds_count 2`,
		`conversations_platform_latency_seconds_count 2`,
		`conversations_tokens_total{kind="output"}`,
		fmt.Sprintf("conversations_captured_micros_total %g", wantCaptured),
		`conversations_wallet_calls_total{op="capture",result="ok"} 2`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestDuplicateClientMessageIDAnswersAndChargesOnce(t *testing.T) {
	e := start(t, options{})
	conv := e.newConversation(t, e.alice, agentA)

	first := e.sendJSON(t, e.alice, conv, question, "same")
	if first.Status != 200 {
		t.Fatalf("first: %d %s", first.Status, first.Raw)
	}
	again := e.sendJSON(t, e.alice, conv, question, "same")
	if again.Status != 200 || again.Raw != first.Raw {
		t.Fatalf("replay differs:\n%s\n%s", first.Raw, again.Raw)
	}
	// Replayed as a stream: the whole stored answer, same ids.
	s := e.sendSSE(t, e.alice, conv, question, "same")
	asst := first.Obj()["assistantMessage"].(map[string]any)
	if s.Status != 200 || strings.Join(s.names(), ",") != "start,delta,citations,usage,done" ||
		s.text() != asst["content"] || s.event(t, "start")["assistantMessageId"] != asst["id"] ||
		s.event(t, "done")["messageId"] != asst["id"] {
		t.Fatalf("stream replay %v %q", s.names(), s.text())
	}
	if tm := serverTimings(s.Header); len(tm.names) != 0 {
		t.Fatalf("a replay calls no model, yet its Server-Timing is %v", tm.ms)
	}
	// A different text with the same id is still the first message.
	if r := e.sendJSON(t, e.alice, conv, "something else", "same"); r.Status != 200 || r.Raw != first.Raw {
		t.Fatalf("other text, same id: %d %s", r.Status, r.Raw)
	}
	if n := e.sim.Stats().Requests; n != 1 {
		t.Fatalf("model called %d times", n)
	}
	if n := e.wallet.Calls("Reserve"); n != 1 || len(e.wallet.Transfers()) != 1 {
		t.Fatalf("reserves %d transfers %d", n, len(e.wallet.Transfers()))
	}

	// Concurrent sends of a new id: one answer, one charge; the loser sees
	// 409 in_progress or the finished answer.
	e.front.set(llmsim.HeaderLatencyPerToken, "2ms")
	var wg sync.WaitGroup
	results := make([]resp, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = e.sendJSON(t, e.alice, conv, "What does the midterm exam cover?", "race")
		}()
	}
	wg.Wait()
	var ok, busy int
	var id any
	for _, r := range results {
		switch {
		case r.Status == 200:
			ok++
			a := r.Obj()["assistantMessage"].(map[string]any)["id"]
			if id != nil && a != id {
				t.Fatalf("two answers: %v %v", id, a)
			}
			id = a
		case r.Status == 409 && r.Obj()["error"] == "in_progress" && r.Header.Get("Retry-After") != "":
			busy++
		default:
			t.Fatalf("race: %d %s", r.Status, r.Raw)
		}
	}
	if ok < 1 || ok+busy != 4 || e.sim.Stats().Requests != 2 || len(e.wallet.Transfers()) != 2 {
		t.Fatalf("ok %d busy %d model calls %d transfers %d", ok, busy, e.sim.Stats().Requests, len(e.wallet.Transfers()))
	}
	if msgs := e.do(t, "GET", "/api/conversations/"+conv, e.alice, "").Obj()["messages"].([]any); len(msgs) != 4 {
		t.Fatalf("%d messages after two turns", len(msgs))
	}
}

func TestInsufficientFundsRefusesBeforeTheModel(t *testing.T) {
	e := start(t, options{})
	e.wallet.SetBalance(e.alice, 10) // ten micro-dollars: less than any worst case
	conv := e.newConversation(t, e.alice, agentA)

	r := e.sendJSON(t, e.alice, conv, question, "m1")
	if r.Status != 402 || r.Obj()["error"] != "insufficient_funds" ||
		r.Obj()["message"] != "Insufficient funds: add funds to your wallet to keep talking to this agent." {
		t.Fatalf("owner: %d %s", r.Status, r.Raw)
	}
	// A stream request is refused the same way, before any stream.
	s := e.sendSSE(t, e.alice, conv, question, "m2")
	if s.Status != 402 || !strings.Contains(s.Raw, "insufficient_funds") || len(s.events) != 0 {
		t.Fatalf("stream: %d %q %v", s.Status, s.Raw, s.names())
	}
	// A subscriber of the agent (the owner pays) is told it is unavailable.
	bconv := e.newConversation(t, e.bob, agentA)
	if r := e.sendJSON(t, e.bob, bconv, question, "b1"); r.Status != 402 || r.Obj()["message"] != "This agent is unavailable right now." {
		t.Fatalf("subscriber: %d %s", r.Status, r.Raw)
	}
	if n := e.sim.Stats().Requests; n != 0 {
		t.Fatalf("the model was called %d times", n)
	}
	if len(e.wallet.Holds()) != 0 || len(e.wallet.Transfers()) != 0 {
		t.Fatalf("holds %v transfers %v", e.wallet.Holds(), e.wallet.Transfers())
	}
	if bal, _ := e.wallet.Balance(e.alice); bal != 10 {
		t.Fatalf("balance %d", bal)
	}
	if bal, _ := e.wallet.Balance(e.bob); bal != 10*dollar {
		t.Fatalf("subscriber charged: %d", bal)
	}
	// Nothing of the refused turns is kept...
	if msgs := e.do(t, "GET", "/api/conversations/"+conv, e.alice, "").Obj()["messages"].([]any); len(msgs) != 0 {
		t.Fatalf("refused turn kept: %v", msgs)
	}
	// The wallet's other money rules are 402 too, each with its message for
	// the owner; a subscriber is only told the agent is unavailable.
	e.wallet.SetBalance(e.alice, 5*dollar)
	for reason, msg := range map[string]string{
		"monthly_limit_reached": "Monthly spending limit reached: raise your limit in the wallet to keep talking to this agent.",
		"debt_outstanding":      "Your wallet has an outstanding balance: add funds to keep talking to this agent.",
		"agent_paused":          "This agent is paused until its monthly fee is paid: add funds to your wallet.",
	} {
		e.wallet.Refuse(e.alice, reason)
		if r := e.sendJSON(t, e.alice, conv, question, "m1"); r.Status != 402 || r.Obj()["error"] != "insufficient_funds" || r.Obj()["message"] != msg {
			t.Errorf("%s (owner): %d %s", reason, r.Status, r.Raw)
		}
		if r := e.sendJSON(t, e.bob, bconv, question, "b1"); r.Status != 402 || r.Obj()["message"] != "This agent is unavailable right now." {
			t.Errorf("%s (subscriber): %d %s", reason, r.Status, r.Raw)
		}
	}
	e.wallet.Refuse(e.alice, "")
	if n := e.sim.Stats().Requests; n != 0 {
		t.Fatalf("the model was called %d times", n)
	}

	// ...so after adding funds the same clientMessageId is answered.
	e.wallet.SetBalance(e.alice, 5*dollar)
	if r := e.sendJSON(t, e.alice, conv, question, "m1"); r.Status != 200 {
		t.Fatalf("after funding: %d %s", r.Status, r.Raw)
	}
	if len(e.wallet.Transfers()) != 1 {
		t.Fatalf("transfers %v", e.wallet.Transfers())
	}
}

func TestRateLimitPerUser(t *testing.T) {
	e := start(t, options{rateLimit: 2, rateLimitNow: oneWindow()})
	conv := e.newConversation(t, e.alice, agentA)
	for i := range 2 {
		if r := e.sendJSON(t, e.alice, conv, question, fmt.Sprint("r", i)); r.Status != 200 {
			t.Fatalf("message %d: %d %s", i, r.Status, r.Raw)
		}
	}
	r := e.sendJSON(t, e.alice, conv, question, "r2")
	ra, _ := strconv.Atoi(r.Header.Get("Retry-After"))
	if r.Status != 429 || r.Obj()["error"] != "rate_limited" || ra < 1 || ra > 60 {
		t.Fatalf("third: %d %s Retry-After %q", r.Status, r.Raw, r.Header.Get("Retry-After"))
	}
	// A replay is not a new message: not limited.
	if r := e.sendJSON(t, e.alice, conv, question, "r0"); r.Status != 200 {
		t.Fatalf("replay limited: %d %s", r.Status, r.Raw)
	}
	// The limit is per user.
	bconv := e.newConversation(t, e.bob, agentA)
	if r := e.sendJSON(t, e.bob, bconv, question, "x"); r.Status != 200 {
		t.Fatalf("other user: %d %s", r.Status, r.Raw)
	}
	if n := e.sim.Stats().Requests; n != 3 {
		t.Fatalf("model calls %d", n)
	}
}

func TestProviderFailures(t *testing.T) {
	e := start(t, options{})
	conv := e.newConversation(t, e.alice, agentA)

	// 429 then 500 before the first token: retried, then answered once.
	e.sim.QueueFaults(429, 1, 0)
	e.sim.QueueFaults(500, 1, 0)
	if r := e.sendJSON(t, e.alice, conv, question, "retry"); r.Status != 200 ||
		r.Obj()["assistantMessage"].(map[string]any)["status"] != "complete" {
		t.Fatalf("after retries: %d %s", r.Status, r.Raw)
	}
	if st := e.sim.Stats(); st.Failed != 2 || st.Completed != 1 {
		t.Fatalf("sim stats %+v", st)
	}
	if len(e.wallet.Transfers()) != 1 {
		t.Fatalf("transfers %v", e.wallet.Transfers())
	}

	// Persistent 500: 502, the hold released, nothing charged or kept.
	bal, _ := e.wallet.Balance(e.alice)
	e.sim.QueueFaults(500, 50, 0)
	s := e.sendSSE(t, e.alice, conv, question, "down")
	if s.Status != 502 || !strings.Contains(s.Raw, `"model_unavailable"`) ||
		!strings.Contains(s.Raw, "The model is unavailable right now. Nothing was charged.") {
		t.Fatalf("persistent failure: %d %q %v", s.Status, s.Raw, s.names())
	}
	holds := e.wallet.Holds()
	if len(holds) != 2 || holds[1].Status != "released" {
		t.Fatalf("holds %+v", holds)
	}
	if b, held := e.wallet.Balance(e.alice); b != bal || held != 0 || len(e.wallet.Transfers()) != 1 {
		t.Fatalf("balance %d→%d held %d", bal, b, held)
	}
	if msgs := e.do(t, "GET", "/api/conversations/"+conv, e.alice, "").Obj()["messages"].([]any); len(msgs) != 2 {
		t.Fatalf("messages after failure: %d", len(msgs))
	}
	clearSim(t, e)
	if r := e.sendJSON(t, e.alice, conv, question, "down"); r.Status != 200 {
		t.Fatalf("same id after the model is back: %d %s", r.Status, r.Raw)
	}
}

// clearSim drops the simulator's queued faults (its admin API).
func clearSim(t *testing.T, e *env) {
	t.Helper()
	rec := httptest.NewRecorder()
	e.sim.ServeHTTP(rec, httptest.NewRequest("DELETE", "/_sim/faults", nil))
	if rec.Code != 204 {
		t.Fatalf("clear faults: %d", rec.Code)
	}
}

func TestPartialAnswersAreChargedForWhatWasGenerated(t *testing.T) {
	e := start(t, options{})
	conv := e.newConversation(t, e.alice, agentA)

	// The stream is cut after 5 tokens.
	e.front.set(llmsim.HeaderCutAfter, "5")
	s := e.sendSSE(t, e.alice, conv, question, "cut")
	e.front.set(llmsim.HeaderCutAfter, "")
	if s.Status != 200 || strings.Join(s.names(), ",") != "start,delta,citations,usage,error" {
		t.Fatalf("cut: %d %v %s", s.Status, s.names(), s.Raw)
	}
	if er := s.event(t, "error"); er["error"] != "answer_interrupted" {
		t.Fatalf("error event %v", er)
	}
	_, out, total := checkUsage(t, s.event(t, "usage"))
	if out > 6 {
		t.Fatalf("cut after 5 tokens but %d output tokens charged", out)
	}
	asstID := s.event(t, "start")["assistantMessageId"].(string)
	tr := e.wallet.Transfers()
	if len(tr) != 1 || tr[0].Amount != total {
		t.Fatalf("transfers %+v, want one of %d", tr, total)
	}
	msgs := e.do(t, "GET", "/api/conversations/"+conv, e.alice, "").Obj()["messages"].([]any)
	if a := msgs[1].(map[string]any); a["id"] != asstID || a["status"] != "partial" || a["content"] != s.text() {
		t.Fatalf("partial message %v", a)
	}

	// Stop: the client goes away after the first token; the model call is
	// cancelled and the partial answer is charged and kept.
	e.front.set(llmsim.HeaderLatencyPerToken, "30ms")
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", e.base+"/api/conversations/"+conv+"/messages",
		strings.NewReader(msgBody(question, "stop")))
	req.Header.Set("Authorization", "Bearer "+tok(e.alice))
	req.Header.Set("Accept", "text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(res.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before a delta: %v", err)
		}
		if strings.HasPrefix(line, "event: delta") {
			break
		}
	}
	cancel()
	res.Body.Close()
	e.front.set(llmsim.HeaderLatencyPerToken, "")
	var stopped map[string]any
	testwait.Until(t, "the stopped answer to be recorded", func() bool {
		msgs := e.do(t, "GET", "/api/conversations/"+conv, e.alice, "").Obj()["messages"].([]any)
		if len(msgs) == 4 {
			stopped = msgs[3].(map[string]any)
		}
		return stopped != nil && len(e.wallet.Transfers()) == 2
	})
	_, stopOut, stopTotal := checkUsage(t, stopped["usage"].(map[string]any))
	if stopped["status"] != "partial" || stopOut >= out+100 || e.wallet.Transfers()[1].Amount != stopTotal {
		t.Fatalf("stopped %v transfers %+v", stopped, e.wallet.Transfers())
	}
	full := e.sendJSON(t, e.alice, e.newConversation(t, e.alice, agentA), question, "full")
	_, fullOut, _ := checkUsage(t, full.Obj()["assistantMessage"].(map[string]any)["usage"].(map[string]any))
	if stopOut >= fullOut {
		t.Fatalf("stopped answer charged %d output tokens, a full one has %d", stopOut, fullOut)
	}
	if st := e.sim.Stats(); st.Cancelled < 1 {
		t.Fatalf("the model call was not cancelled: %+v", st)
	}
	if bal, held := e.wallet.Balance(e.alice); held != 0 || bal != 10*dollar-total-stopTotal-e.wallet.Transfers()[2].Amount {
		t.Fatalf("balance %d held %d", bal, held)
	}
}

func TestAccess(t *testing.T) {
	e := start(t, options{})
	// Subscriber: allowed, the owner pays.
	bconv := e.newConversation(t, e.bob, agentA)
	r := e.sendJSON(t, e.bob, bconv, question, "b1")
	if r.Status != 200 {
		t.Fatalf("subscriber: %d %s", r.Status, r.Raw)
	}
	_, _, total := checkUsage(t, r.Obj()["assistantMessage"].(map[string]any)["usage"].(map[string]any))
	if a, _ := e.wallet.Balance(e.alice); a != 10*dollar-total {
		t.Fatalf("owner balance %d", a)
	}
	if b, _ := e.wallet.Balance(e.bob); b != 10*dollar {
		t.Fatalf("subscriber balance %d", b)
	}
	ev := e.interactions(t, 1)
	if len(ev) != 1 || ev[0].GetUserUid() != e.bob || ev[0].GetPayerUid() != e.alice || ev[0].GetOwnerUid() != e.alice {
		t.Fatalf("event %v", ev)
	}
	if ci := e.do(t, "GET", "/api/agents/"+agentA+"/chat-info", e.bob, ""); ci.Status != 200 ||
		ci.Obj()["role"] != "subscriber" || ci.Obj()["model"] != pricing.SimModel || ci.Obj()["simulated"] != true {
		t.Fatalf("chat-info subscriber: %d %s", ci.Status, ci.Raw)
	}
	if ci := e.do(t, "GET", "/api/agents/"+agentA+"/chat-info", e.alice, ""); ci.Obj()["role"] != "owner" {
		t.Fatalf("chat-info owner: %s", ci.Raw)
	}

	// Pending subscriber, stranger, unknown agent, bad id: 404.
	for _, c := range []struct{ uid, agent string }{{e.carol, agentA}, {e.dave, agentA}, {e.alice, agentB},
		{e.alice, unknownA}, {e.alice, "not-a-uuid"}} {
		for _, p := range []string{"/conversations", "/chat-info"} {
			method := "GET"
			if p == "/conversations" {
				if r := e.do(t, "POST", "/api/agents/"+c.agent+p, c.uid, ""); r.Status != 404 || r.Obj()["error"] != "not_found" {
					t.Errorf("POST %s as %s: %d %s", c.agent, c.uid, r.Status, r.Raw)
				}
			}
			if r := e.do(t, method, "/api/agents/"+c.agent+p, c.uid, ""); r.Status != 404 || r.Obj()["error"] != "not_found" {
				t.Errorf("%s %s%s as %s: %d %s", method, c.agent, p, c.uid, r.Status, r.Raw)
			}
		}
	}

	// Another user's conversation is 404 on every route.
	aconv := e.newConversation(t, e.alice, agentA)
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/api/conversations/" + aconv, ""},
		{"PATCH", "/api/conversations/" + aconv, `{"title":"mine"}`},
		{"PATCH", "/api/conversations/" + aconv, `{"title":""}`},
		{"DELETE", "/api/conversations/" + aconv, ""},
		{"POST", "/api/conversations/" + aconv + "/messages", msgBody(question, "x")},
		{"POST", "/api/conversations/" + aconv + "/messages", msgBody("", "x")},
	} {
		if r := e.do(t, c.method, c.path, e.bob, c.body); r.Status != 404 || r.Obj()["error"] != "not_found" {
			t.Errorf("%s %s by another user: %d %s", c.method, c.path, r.Status, r.Raw)
		}
	}

	// Revoked: no more messages (404), but one's own history stays readable.
	e.catalog.SetSubscriber(agentA, e.bob, "inactive")
	if r := e.sendJSON(t, e.bob, bconv, question, "b2"); r.Status != 404 {
		t.Fatalf("revoked subscriber: %d %s", r.Status, r.Raw)
	}
	if r := e.do(t, "GET", "/api/agents/"+agentA+"/conversations", e.bob, ""); r.Status != 404 {
		t.Fatalf("revoked list: %d %s", r.Status, r.Raw)
	}
	if r := e.do(t, "GET", "/api/conversations/"+bconv, e.bob, ""); r.Status != 200 || len(r.Obj()["messages"].([]any)) != 2 {
		t.Fatalf("revoked history: %d %s", r.Status, r.Raw)
	}

	// Dependencies down: 503 with Retry-After, nothing charged.
	transfers := len(e.wallet.Transfers())
	aconv2 := e.newConversation(t, e.alice, agentA)
	e.knowledge.SetDown(true)
	if r := e.sendJSON(t, e.alice, aconv2, question, "k"); r.Status != 503 || r.Obj()["error"] != "knowledge_unavailable" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("knowledge down: %d %s", r.Status, r.Raw)
	}
	e.knowledge.SetDown(false)
	e.catalog.SetDown(true)
	if r := e.sendJSON(t, e.alice, aconv2, question, "k"); r.Status != 503 || r.Obj()["error"] != "catalog_unavailable" {
		t.Fatalf("catalog down: %d %s", r.Status, r.Raw)
	}
	e.catalog.SetDown(false)
	if len(e.wallet.Transfers()) != transfers || e.wallet.Calls("Reserve") != 1 {
		t.Fatalf("charged while a dependency was down: %d transfers, %d reserves", len(e.wallet.Transfers()), e.wallet.Calls("Reserve"))
	}
}

func TestConversationsCRUDAndValidation(t *testing.T) {
	e := start(t, options{})
	if r := e.do(t, "GET", "/readyz", "", ""); r.Status != 200 {
		t.Fatalf("readyz: %d %s", r.Status, r.Raw)
	}
	base := "/api/agents/" + agentA + "/conversations"
	if r := e.do(t, "GET", base, "", ""); r.Status != 401 || r.Obj()["error"] != "unauthenticated" {
		t.Fatalf("no token: %d %s", r.Status, r.Raw)
	}
	if r := e.do(t, "GET", base, e.alice, ""); r.Status != 200 || r.Raw != "[]\n" {
		t.Fatalf("empty list: %d %q", r.Status, r.Raw)
	}

	c1 := e.do(t, "POST", base, e.alice, "")
	if c1.Status != 201 || c1.Obj()["title"] != "New conversation" || c1.Obj()["agentId"] != agentA ||
		c1.Obj()["channel"] != "chat" || c1.Obj()["lastMessageAt"] != nil {
		t.Fatalf("create default: %d %s", c1.Status, c1.Raw)
	}
	for _, k := range []string{"createdAt", "updatedAt"} {
		if _, err := time.Parse(time.RFC3339Nano, fmt.Sprint(c1.Obj()[k])); err != nil {
			t.Errorf("%s = %v", k, c1.Obj()[k])
		}
	}
	c2 := e.do(t, "POST", base, e.alice, `{"title":"  Exam prep  "}`)
	if c2.Status != 201 || c2.Obj()["title"] != "Exam prep" {
		t.Fatalf("create titled: %d %s", c2.Status, c2.Raw)
	}
	c3 := e.do(t, "POST", "/api/agents/"+strings.ToUpper(agentA)+"/conversations", e.alice, `{"title":null}`)
	if c3.Status != 201 || c3.Obj()["agentId"] != agentA {
		t.Fatalf("upper-case agent id: %d %s", c3.Status, c3.Raw)
	}
	for _, body := range []string{`{"title":"` + strings.Repeat("x", 201) + `"}`, `{"title":"a\u0007b"}`} {
		if r := e.do(t, "POST", base, e.alice, body); r.Status != 400 || r.Obj()["error"] != "invalid_title" {
			t.Errorf("create %s: %d %s", body, r.Status, r.Raw)
		}
	}
	if r := e.do(t, "POST", base, e.alice, `{"title":5}`); r.Status != 400 || r.Obj()["error"] != "invalid_json" {
		t.Errorf("title number: %d %s", r.Status, r.Raw)
	}
	id1, id2, id3 := c1.Obj()["id"].(string), c2.Obj()["id"].(string), c3.Obj()["id"].(string)

	// Newest activity first: a message moves c1 to the top.
	if r := e.sendJSON(t, e.alice, id1, question, "x"); r.Status != 200 {
		t.Fatalf("message: %d %s", r.Status, r.Raw)
	}
	l := e.do(t, "GET", base, e.alice, "").List()
	var order []string
	for _, c := range l {
		order = append(order, c.(map[string]any)["id"].(string))
	}
	if fmt.Sprint(order) != fmt.Sprint([]string{id1, id3, id2}) {
		t.Fatalf("order %v, want %v", order, []string{id1, id3, id2})
	}
	if r := e.do(t, "GET", base, e.bob, ""); r.Status != 200 || len(r.List()) != 0 {
		t.Fatalf("another user's list: %s", r.Raw)
	}

	// Rename.
	r := e.do(t, "PATCH", "/api/conversations/"+id2, e.alice, `{"title":"Renamed"}`)
	if r.Status != 200 || r.Obj()["title"] != "Renamed" || r.Obj()["updatedAt"] == c2.Obj()["updatedAt"] {
		t.Fatalf("rename: %d %s", r.Status, r.Raw)
	}
	for _, body := range []string{`{"title":""}`, `{"title":"   "}`, `{}`, `{"title":"` + strings.Repeat("é", 201) + `"}`} {
		if r := e.do(t, "PATCH", "/api/conversations/"+id2, e.alice, body); r.Status != 400 || r.Obj()["error"] != "invalid_title" {
			t.Errorf("rename %s: %d %s", body, r.Status, r.Raw)
		}
	}
	if r := e.do(t, "PATCH", "/api/conversations/"+id2, e.alice, `{"title":`); r.Status != 400 || r.Obj()["error"] != "invalid_json" {
		t.Errorf("rename malformed: %d %s", r.Status, r.Raw)
	}

	// Message validation.
	msgs := "/api/conversations/" + id2 + "/messages"
	for _, c := range []struct{ body, code string }{
		{msgBody("", "a"), "invalid_content"},
		{msgBody(" \n\t ", "a"), "invalid_content"},
		{msgBody(strings.Repeat("x", 8001), "a"), "invalid_content"},
		{msgBody("hi", ""), "invalid_client_message_id"},
		{msgBody("hi", strings.Repeat("i", 101)), "invalid_client_message_id"},
		{`{"content":"hi"}`, "invalid_client_message_id"},
		{`{"content":5,"clientMessageId":"a"}`, "invalid_json"},
		{`not json`, "invalid_json"},
		{``, "invalid_json"},
	} {
		if r := e.do(t, "POST", msgs, e.alice, c.body); r.Status != 400 || r.Obj()["error"] != c.code {
			t.Errorf("message %.40q: %d %s", c.body, r.Status, r.Raw)
		}
	}
	if r := e.do(t, "GET", msgs, e.alice, ""); r.Status != 405 {
		t.Errorf("GET messages: %d", r.Status)
	}
	if e.sim.Stats().Requests != 1 || e.wallet.Calls("Reserve") != 1 {
		t.Fatalf("invalid messages reached the model or wallet")
	}

	// Delete: gone from GET and the list; unknown ids are 404.
	if r := e.do(t, "DELETE", "/api/conversations/"+id1, e.alice, ""); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	for _, p := range []string{id1, unknownA, "nope"} {
		if r := e.do(t, "GET", "/api/conversations/"+p, e.alice, ""); r.Status != 404 || r.Obj()["error"] != "not_found" {
			t.Errorf("GET %s: %d %s", p, r.Status, r.Raw)
		}
		if r := e.do(t, "DELETE", "/api/conversations/"+p, e.alice, ""); r.Status != 404 {
			t.Errorf("DELETE %s: %d %s", p, r.Status, r.Raw)
		}
	}
	if r := e.sendJSON(t, e.alice, id1, question, "y"); r.Status != 404 {
		t.Errorf("message to a deleted conversation: %d %s", r.Status, r.Raw)
	}
	if l := e.do(t, "GET", base, e.alice, "").List(); len(l) != 2 {
		t.Fatalf("list after delete: %v", l)
	}
}

func TestChargeRecovery(t *testing.T) {
	e := start(t, options{})
	conv := e.newConversation(t, e.alice, agentA)
	ctx := context.Background()

	// The wallet does not answer the capture: the answer is delivered and
	// recorded, its capture left to the reconciler.
	e.wallet.Fail("Capture", 1000)
	r := e.sendJSON(t, e.alice, conv, question, "late")
	if r.Status != 200 {
		t.Fatalf("answer: %d %s", r.Status, r.Raw)
	}
	asst := r.Obj()["assistantMessage"].(map[string]any)
	_, _, total := checkUsage(t, asst["usage"].(map[string]any))
	id := asst["id"].(string)
	c := e.charge(t, id)
	if c.State != conversations.ChargeCapturing || c.CaptureMicros != total || c.LastError == "" {
		t.Fatalf("charge %+v", c)
	}
	// The reconciler leaves it alone while its lease runs.
	if n, err := e.svc.Reconcile(ctx); err != nil || n != 0 {
		t.Fatalf("early reconcile: %d %v", n, err)
	}
	// The hold expires meanwhile (a long outage); the wallet comes back.
	e.wallet.Expire(c.HoldID)
	e.wallet.Fail("Capture", 0)
	e.clock.advance(time.Minute)
	if n, err := e.svc.Reconcile(ctx); err != nil || n != 1 {
		t.Fatalf("reconcile: %d %v", n, err)
	}
	c = e.charge(t, id)
	tr := e.wallet.Transfers()
	if c.State != conversations.ChargeCaptured || c.Outcome != "charged" || len(tr) != 1 ||
		tr[0].Key != "msg:"+id+":late" || tr[0].Amount != total || c.TransferID != tr[0].ID {
		t.Fatalf("charge %+v transfers %+v", c, tr)
	}
	if bal, held := e.wallet.Balance(e.alice); bal != 10*dollar-total || held != 0 {
		t.Fatalf("balance %d held %d", bal, held)
	}
	e.clock.advance(time.Hour)
	if n, err := e.svc.Reconcile(ctx); err != nil || n != 0 {
		t.Fatalf("second reconcile: %d %v", n, err)
	}
	if len(e.wallet.Transfers()) != 1 {
		t.Fatal("charged twice")
	}
	if ev := e.interactions(t, 1); len(ev) != 1 || ev[0].GetInteractionId() != id || ev[0].GetTransferId() != tr[0].ID {
		t.Fatalf("events %v", ev)
	}

	// Same, but the wallet can no longer cover it: unbilled, no event.
	e.wallet.Fail("Capture", 1000)
	r = e.sendJSON(t, e.alice, conv, "What does the midterm exam cover?", "broke")
	id2 := r.Obj()["assistantMessage"].(map[string]any)["id"].(string)
	c2 := e.charge(t, id2)
	e.wallet.Expire(c2.HoldID)
	e.wallet.Fail("Capture", 0)
	e.wallet.SetBalance(e.alice, 0)
	e.clock.advance(time.Hour)
	if n, err := e.svc.Reconcile(ctx); err != nil || n != 1 {
		t.Fatalf("reconcile unbilled: %d %v", n, err)
	}
	if c2 = e.charge(t, id2); c2.State != conversations.ChargeUnbilled || len(e.wallet.Transfers()) != 1 {
		t.Fatalf("charge %+v transfers %d", c2, len(e.wallet.Transfers()))
	}
	if a := e.do(t, "GET", "/api/conversations/"+conv, e.alice, "").Obj()["messages"].([]any)[3].(map[string]any); a["status"] != "complete" {
		t.Fatalf("unbilled answer not kept: %v", a)
	}
	if ev := e.interactions(t, 1); len(ev) != 1 {
		t.Fatalf("events after unbilled: %d", len(ev))
	}
	e.wallet.SetBalance(e.alice, 10*dollar)

	// A capture the wallet rejects for good (it does not know the hold) is
	// not retried forever: unbilled, logged.
	e.wallet.Fail("Capture", 1000)
	r = e.sendJSON(t, e.alice, conv, "What does the midterm exam cover?", "forgotten")
	id3 := r.Obj()["assistantMessage"].(map[string]any)["id"].(string)
	e.wallet.Forget(e.charge(t, id3).HoldID)
	e.wallet.Fail("Capture", 0)
	e.wallet.SetBalance(e.alice, 10*dollar)
	e.clock.advance(time.Hour)
	if n, err := e.svc.Reconcile(ctx); err != nil || n != 1 {
		t.Fatalf("reconcile rejected: %d %v", n, err)
	}
	if c3 := e.charge(t, id3); c3.State != conversations.ChargeUnbilled || len(e.wallet.Transfers()) != 1 {
		t.Fatalf("rejected capture: %+v, %d transfers", c3, len(e.wallet.Transfers()))
	}

	// The reserve's reply is lost: 503, and the hold it made is found with
	// the same key and released by the reconciler.
	e.wallet.LoseReplies("Reserve", 3)
	if r := e.sendJSON(t, e.alice, conv, question, "lost"); r.Status != 503 || r.Obj()["error"] != "wallet_unavailable" {
		t.Fatalf("lost reserve: %d %s", r.Status, r.Raw)
	}
	if _, held := e.wallet.Balance(e.alice); held == 0 {
		t.Fatal("the lost reserve made no hold (test setup)")
	}
	e.clock.advance(time.Hour)
	if n, err := e.svc.Reconcile(ctx); err != nil || n != 1 {
		t.Fatalf("reconcile lost reserve: %d %v", n, err)
	}
	if bal, held := e.wallet.Balance(e.alice); held != 0 || bal != 10*dollar {
		t.Fatalf("after abandon: balance %d held %d", bal, held)
	}
	if e.sim.Stats().Requests != 3 {
		t.Fatalf("model calls %d", e.sim.Stats().Requests)
	}

	// A crash while the model ran (charge held, nothing recorded): the
	// hold is released and the answer marked failed.
	now := e.clock.Now().UTC()
	user := conversations.Message{ID: "01900000-0000-7000-8000-0000000000e1", ConversationID: conv, Role: "user",
		Content: "crash", Status: "complete", ClientMessageID: "crash", CreatedAt: now, UpdatedAt: now}
	ast := conversations.Message{ID: "01900000-0000-7000-8000-0000000000e2", ConversationID: conv, Role: "assistant",
		Status: "pending", ReplyTo: user.ID, CreatedAt: now, UpdatedAt: now}
	if _, created, err := e.store.BeginTurn(ctx, user, ast, conversations.Charge{MessageID: ast.ID, ConversationID: conv,
		AgentID: agentA, UserUID: e.alice, PayerUID: e.alice, Channel: "chat", Key: "msg:" + ast.ID, ReserveMicros: 1000,
		State: "reserving", LeaseUntil: now.Add(time.Minute), CreatedAt: now, UpdatedAt: now}); err != nil || !created {
		t.Fatalf("begin turn: %v %v", created, err)
	}
	h, err := e.wallet.Reserve(ctx, reserveReq(e.alice, 1000, "msg:"+ast.ID))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := e.store.UpdateCharge(ctx, ast.ID, []string{"reserving"}, conversations.ChargeUpdate{State: "held", HoldID: h.GetHold().GetId()}, conversations.KeepTurn); err != nil || !ok {
		t.Fatalf("held: %v %v", ok, err)
	}
	if s := e.sendSSE(t, e.alice, conv, "crash", "crash"); s.Status != 409 || !strings.Contains(s.Raw, "in_progress") {
		t.Fatalf("in-progress turn: %d %s", s.Status, s.Raw)
	}
	e.clock.advance(time.Hour)
	if n, err := e.svc.Reconcile(ctx); err != nil || n != 1 {
		t.Fatalf("reconcile crash: %d %v", n, err)
	}
	if _, held := e.wallet.Balance(e.alice); held != 0 {
		t.Fatalf("crashed hold not released: %d", held)
	}
	msgs := e.do(t, "GET", "/api/conversations/"+conv, e.alice, "").Obj()["messages"].([]any)
	if a := msgs[len(msgs)-1].(map[string]any); a["id"] != ast.ID || a["status"] != "failed" || a["usage"] != nil {
		t.Fatalf("crashed answer %v", a)
	}
	s := e.sendSSE(t, e.alice, conv, "crash", "crash")
	if s.Status != 200 || strings.Join(s.names(), ",") != "start,citations,error" || s.event(t, "error")["error"] != "model_unavailable" {
		t.Fatalf("replay of a failed answer: %d %v", s.Status, s.names())
	}
}

func reserveReq(uid string, amount int64, key string) *walletv1.ReserveRequest {
	return &walletv1.ReserveRequest{Uid: uid, AmountMicros: amount, IdempotencyKey: key, TtlSeconds: 300}
}

// failHeld is a store whose record of a hold ("held") fails: the answering
// path records it while the model starts, and must then stop the answer,
// give the hold back and charge nothing.
type failHeld struct{ conversations.Store }

func (f failHeld) UpdateCharge(ctx context.Context, messageID string, from []string, u conversations.ChargeUpdate, act conversations.TurnAction) (bool, error) {
	if u.State == conversations.ChargeHeld {
		return false, errors.New("injected: database gone")
	}
	return f.Store.UpdateCharge(ctx, messageID, from, u, act)
}

// closeFlaky is a store whose first closes of a refused turn fail as if
// PostgreSQL were restarting (57P01).
type closeFlaky struct {
	conversations.Store
	failures *atomic.Int32
}

func (f closeFlaky) UpdateCharge(ctx context.Context, messageID string, from []string, u conversations.ChargeUpdate, act conversations.TurnAction) (bool, error) {
	if act == conversations.DropTurn && f.failures.Add(-1) >= 0 {
		return false, &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}
	}
	return f.Store.UpdateCharge(ctx, messageID, from, u, act)
}

// A refused answer whose turn cannot be closed because the database is
// briefly away is closed as soon as it is back, not left open until the
// reconciler's lease ends (found by the fault suite's PostgreSQL restart).
func TestRefusedTurnClosedAfterDatabaseBlip(t *testing.T) {
	failures := &atomic.Int32{}
	failures.Store(3)
	e := start(t, options{wrapStore: func(s conversations.Store) conversations.Store { return closeFlaky{s, failures} }})
	e.wallet.SetBalance(e.alice, 10) // less than any worst case: refused at Reserve
	conv := e.newConversation(t, e.alice, agentA)
	if r := e.sendJSON(t, e.alice, conv, question, "m1"); r.Status != 402 {
		t.Fatalf("want 402, got %d %s", r.Status, r.Raw)
	}
	pool, err := pgxpool.New(context.Background(), e.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var open int
		if err := pool.QueryRow(context.Background(),
			`SELECT count(*) FROM charges WHERE conversation_id = $1 AND state IN ('reserving', 'held')`, conv).Scan(&open); err != nil {
			t.Fatal(err)
		}
		if open == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("refused turn still open 10 s after the database came back (%d injected failures left)", failures.Load())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if failures.Load() > 0 {
		t.Fatalf("the injected failures were not all met: %d left", failures.Load())
	}
}

// failBegin is a store whose record of a new turn fails: the wallet's
// hold is made meanwhile (the two run side by side), so it must be given
// back at once rather than left to expire.
type failBegin struct{ conversations.Store }

func (f failBegin) BeginTurn(ctx context.Context, user, assistant conversations.Message, c conversations.Charge) (conversations.Turn, bool, error) {
	return conversations.Turn{}, false, errors.New("injected: turn not recorded")
}

// A turn whose hold cannot be recorded (failHeld), or whose turn cannot be
// recorded while the wallet reserves (failBegin): the message fails, the
// hold is given back at once and nothing is charged.
func TestUnrecordedTurnGivesTheHoldBack(t *testing.T) {
	for name, wrap := range map[string]func(conversations.Store) conversations.Store{
		"hold not recorded": func(s conversations.Store) conversations.Store { return failHeld{s} },
		"turn not recorded": func(s conversations.Store) conversations.Store { return failBegin{s} },
	} {
		t.Run(name, func(t *testing.T) {
			e := start(t, options{wrapStore: wrap})
			conv := e.newConversation(t, e.alice, agentA)
			r := raw(t, "POST", e.base+"/api/conversations/"+conv+"/messages", "Bearer "+tok(e.alice), msgBody(question, "c1"))
			if r.Status < 500 {
				t.Fatalf("answered although it could not be recorded: %d %s", r.Status, r.Raw)
			}
			if _, held := e.wallet.Balance(e.alice); held != 0 || e.wallet.Calls("Reserve") != 1 || e.wallet.Calls("Release") != 1 {
				t.Fatalf("held %d after the refusal (reserve %d, release %d)", held, e.wallet.Calls("Reserve"), e.wallet.Calls("Release"))
			}
			if e.wallet.Calls("Capture") != 0 || len(e.wallet.Transfers()) != 0 {
				t.Fatalf("charged: %d captures, %d transfers", e.wallet.Calls("Capture"), len(e.wallet.Transfers()))
			}
		})
	}
}
