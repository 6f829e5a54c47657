// Package fakes holds in-process stand-ins for the other services' gRPC APIs
// (catalog, wallet, documents' KnowledgeService), for tests only: each
// implements the generated server interface with the semantics the proto
// documents, keeps its state in memory and lets a test inspect it and
// inject failures. Start serves one on 127.0.0.1:0.
package fakes

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	documentsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/documents/v1"
	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
)

// Start serves the given fakes on one gRPC server on 127.0.0.1:0 (stopped
// in t.Cleanup) and returns its address. Pass any of *Catalog, *Wallet, *Knowledge.
func Start(t testing.TB, services ...any) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	for _, s := range services {
		switch v := s.(type) {
		case *Catalog:
			catalogv1.RegisterCatalogServiceServer(srv, v)
		case *Wallet:
			walletv1.RegisterWalletServiceServer(srv, v)
		case *Knowledge:
			documentsv1.RegisterKnowledgeServiceServer(srv, v)
		default:
			t.Fatalf("fakes.Start: unknown service %T", s)
		}
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return ln.Addr().String()
}

// ---- catalog ----

// Catalog is CatalogService.CheckAccess over fixed agents and subscriptions,
// and AccessChangesSince over the changes its setters record (as the real
// catalog records them in the transaction of the change).
type Catalog struct {
	catalogv1.UnimplementedCatalogServiceServer
	mu      sync.Mutex
	agents  map[string]*catalogv1.Agent
	subs    map[string]map[string]string // agent → uid → status
	caps    map[string]map[string]int64  // agent → uid → subscriber cap (micro-dollars)
	calls   int
	polls   int
	down    bool
	pollsDn bool
	changes []accessChange
	// gate, when set, holds each CheckAccess after its answer is computed
	// until it is closed; entered receives one value per held call.
	gate    chan struct{}
	entered chan struct{}
	now     func() time.Time
}

type accessChange struct {
	agentID, uid string
	at           time.Time
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog {
	return &Catalog{agents: map[string]*catalogv1.Agent{}, subs: map[string]map[string]string{},
		caps: map[string]map[string]int64{}, now: time.Now}
}

// SetClock replaces the clock of recorded changes and of
// AccessChangesSince's now (tests on a fake clock).
func (c *Catalog) SetClock(now func() time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = now
}

// recordChange logs an access change (uid "" = every user of the agent); c.mu is held.
func (c *Catalog) recordChange(agentID, uid string) {
	c.changes = append(c.changes, accessChange{agentID: agentID, uid: uid, at: c.now()})
}

// AddAgent adds (or replaces, recording an access change of everyone) an agent.
func (c *Catalog) AddAgent(a *catalogv1.Agent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.agents[a.GetId()]; ok {
		c.recordChange(a.GetId(), "")
	}
	c.agents[a.GetId()] = a
}

// SetSubscriber sets uid's subscription status ("active", "pending",
// "inactive") and records an access change of uid.
func (c *Catalog) SetSubscriber(agentID, uid, status string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subs[agentID] == nil {
		c.subs[agentID] = map[string]string{}
	}
	c.subs[agentID][uid] = status
	c.recordChange(agentID, uid)
}

// SetSubscriberCap sets what the owner pays at most per month for uid's
// answers (micro-dollars, CheckAccess's subscriber_cap_micros; 0: no cap)
// and records an access change of uid.
func (c *Catalog) SetSubscriberCap(agentID, uid string, micros int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.caps[agentID] == nil {
		c.caps[agentID] = map[string]int64{}
	}
	c.caps[agentID][uid] = micros
	c.recordChange(agentID, uid)
}

// RecordChange records an access change without changing anything (uid ""
// = every user of the agent).
func (c *Catalog) RecordChange(agentID, uid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recordChange(agentID, uid)
}

// SetDown makes every call fail with UNAVAILABLE.
func (c *Catalog) SetDown(down bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down = down
}

// SetPollsDown makes AccessChangesSince alone fail with UNAVAILABLE.
func (c *Catalog) SetPollsDown(down bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pollsDn = down
}

// HoldAnswers makes every CheckAccess from now on wait, after its answer is
// computed, until release is called: entered receives once per call held
// (a look-up that read the catalog and has not answered yet).
func (c *Catalog) HoldAnswers() (entered <-chan struct{}, release func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	gate, in := make(chan struct{}), make(chan struct{}, 100)
	c.gate, c.entered = gate, in
	var once sync.Once
	return in, func() {
		once.Do(func() {
			c.mu.Lock()
			c.gate, c.entered = nil, nil
			c.mu.Unlock()
			close(gate)
		})
	}
}

// Calls is the number of CheckAccess calls.
func (c *Catalog) Calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// Polls is the number of AccessChangesSince calls.
func (c *Catalog) Polls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.polls
}

// CheckAccess implements the proto: owner, or active subscriber (the owner
// pays; the subscriber's cap, if one is set).
func (c *Catalog) CheckAccess(ctx context.Context, req *catalogv1.CheckAccessRequest) (*catalogv1.CheckAccessResponse, error) {
	resp, err := c.checkAccess(req)
	c.mu.Lock()
	gate, entered := c.gate, c.entered
	c.mu.Unlock()
	if gate != nil {
		entered <- struct{}{}
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
	return resp, err
}

func (c *Catalog) checkAccess(req *catalogv1.CheckAccessRequest) (*catalogv1.CheckAccessResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.down {
		return nil, status.Error(codes.Unavailable, "catalog is down")
	}
	if req.GetAgentId() == "" || req.GetUid() == "" {
		return nil, status.Error(codes.InvalidArgument, "agent_id and uid are required")
	}
	a, ok := c.agents[req.GetAgentId()]
	if !ok {
		return &catalogv1.CheckAccessResponse{}, nil
	}
	switch {
	case a.GetOwnerUid() == req.GetUid():
		return &catalogv1.CheckAccessResponse{Allowed: true, Role: "owner", PayerUid: a.GetOwnerUid(), Agent: a}, nil
	case c.subs[a.GetId()][req.GetUid()] == "active":
		return &catalogv1.CheckAccessResponse{Allowed: true, Role: "subscriber", PayerUid: a.GetOwnerUid(), Agent: a,
			SubscriberCapMicros: c.caps[a.GetId()][req.GetUid()]}, nil
	case a.GetListed():
		// A listed agent (the test sets Listed as the catalog would: public,
		// published, active, the marketplace on): anyone else is a consumer
		// who pays for themselves.
		return &catalogv1.CheckAccessResponse{Allowed: true, Role: "consumer", PayerUid: req.GetUid(), Agent: a}, nil
	}
	return &catalogv1.CheckAccessResponse{}, nil
}

// GetAgent implements the proto: the agent whoever owns it (NOT_FOUND when unknown).
func (c *Catalog) GetAgent(_ context.Context, req *catalogv1.GetAgentRequest) (*catalogv1.GetAgentResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.down {
		return nil, status.Error(codes.Unavailable, "catalog is down")
	}
	if req.GetAgentId() == "" {
		return nil, status.Error(codes.InvalidArgument, "agent_id is required")
	}
	a, ok := c.agents[req.GetAgentId()]
	if !ok {
		return nil, status.Error(codes.NotFound, "agent not found")
	}
	return &catalogv1.GetAgentResponse{Agent: a}, nil
}

// RemoveAgent forgets an agent (deleted), recording an access change of everyone.
func (c *Catalog) RemoveAgent(agentID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.agents, agentID)
	c.recordChange(agentID, "")
}

// AccessChangesSince implements the proto: the changes recorded at or after
// since minus margin (since unset: now minus margin), and now.
func (c *Catalog) AccessChangesSince(_ context.Context, req *catalogv1.AccessChangesSinceRequest) (*catalogv1.AccessChangesSinceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.polls++
	if c.down || c.pollsDn {
		return nil, status.Error(codes.Unavailable, "catalog is down")
	}
	now := c.now()
	from := now
	if req.GetSince() != nil {
		from = req.GetSince().AsTime()
	}
	from = from.Add(-time.Duration(req.GetMarginMs()) * time.Millisecond)
	out := &catalogv1.AccessChangesSinceResponse{Now: timestamppb.New(now)}
	for _, ch := range c.changes {
		if !ch.at.Before(from) {
			out.Changes = append(out.Changes, &catalogv1.AccessChange{AgentId: ch.agentID, Uid: ch.uid})
		}
	}
	return out, nil
}

// ---- wallet ----

// Hold is a hold as the fake wallet keeps it.
type Hold struct {
	ID, UID, Key string
	Amount       int64
	Status       string // held, captured, released, expired
	Captured     int64
	TransferID   string
	Description  string
	Metadata     map[string]string
	ExpiresAt    time.Time
}

// Transfer is an expense the fake wallet recorded (a capture or a charge).
type Transfer struct {
	ID, UID, Key, Description string
	Amount                    int64
	Metadata                  map[string]string
	HoldID                    string
}

// Wallet is WalletService with holds: balances, holds and expenses in
// memory, the proto's idempotency and never-below-zero rules, and failure
// injection per operation.
type Wallet struct {
	walletv1.UnimplementedWalletServiceServer
	mu        sync.Mutex
	balances  map[string]int64
	holds     map[string]*Hold
	holdByKey map[string]string
	transfers []*Transfer
	chargeKey map[string]*Transfer
	calls     map[string]int
	fail      map[string]int // op → next calls failing with UNAVAILABLE
	lost      map[string]int // op → next calls that take effect but answer UNAVAILABLE
	now       func() time.Time
	seq       int
	refuse    map[string]string // uid → reason every Reserve/Charge is refused with
}

// NewWallet returns a wallet with no money.
func NewWallet() *Wallet {
	return &Wallet{balances: map[string]int64{}, holds: map[string]*Hold{}, holdByKey: map[string]string{},
		chargeKey: map[string]*Transfer{}, calls: map[string]int{}, fail: map[string]int{}, lost: map[string]int{}, now: time.Now,
		refuse: map[string]string{}}
}

// SetBalance sets uid's ledger balance.
func (w *Wallet) SetBalance(uid string, micros int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.balances[uid] = micros
}

// Balance returns uid's ledger balance and the money on open holds.
func (w *Wallet) Balance(uid string) (balance, held int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sweep()
	return w.balances[uid], w.held(uid)
}

// Refuse makes every Reserve and Charge of uid fail with FAILED_PRECONDITION
// and reason (the wallet's money rules: "monthly_limit_reached",
// "debt_outstanding", "agent_paused"); "" lifts it.
func (w *Wallet) Refuse(uid, reason string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.refuse[uid] = reason
}

// refusal is the wallet's FAILED_PRECONDITION: message = reason, plus an
// ErrorInfo detail carrying it.
func refusal(reason string) error {
	st := status.New(codes.FailedPrecondition, reason)
	if d, err := st.WithDetails(&errdetails.ErrorInfo{Reason: reason, Domain: "wallet.agentic"}); err == nil {
		st = d
	}
	return st.Err()
}

// shortRefusal is a Reserve refused for funds with the wallet's amounts
// (ErrorInfo metadata needed_micros, available_micros, fee_micros).
func shortRefusal(needed, available int64) error {
	st := status.New(codes.FailedPrecondition, "insufficient_funds")
	if d, err := st.WithDetails(&errdetails.ErrorInfo{Reason: "insufficient_funds", Domain: "wallet.agentic",
		Metadata: map[string]string{"needed_micros": strconv.FormatInt(needed, 10),
			"available_micros": strconv.FormatInt(available, 10), "fee_micros": "0"}}); err == nil {
		st = d
	}
	return st.Err()
}

// Fail makes the next n calls of op ("Reserve", "Capture", "Release",
// "Charge") fail with UNAVAILABLE without effect.
func (w *Wallet) Fail(op string, n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fail[op] = n
}

// LoseReplies makes the next n calls of op take effect but answer
// UNAVAILABLE (a reply lost on the way back).
func (w *Wallet) LoseReplies(op string, n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lost[op] = n
}

// Expire makes a hold expire now (as the wallet's sweeper would).
func (w *Wallet) Expire(holdID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if h := w.holds[holdID]; h != nil {
		h.ExpiresAt = w.now().Add(-time.Second)
	}
}

// Forget drops a hold as if the wallet had never made it (its calls then
// answer NOT_FOUND).
func (w *Wallet) Forget(holdID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if h := w.holds[holdID]; h != nil {
		delete(w.holdByKey, h.Key)
		delete(w.holds, holdID)
	}
}

// Calls returns how many calls op received.
func (w *Wallet) Calls(op string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls[op]
}

// Holds returns copies of every hold, in creation order.
func (w *Wallet) Holds() []Hold {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sweep()
	var out []Hold
	for _, h := range w.holds {
		out = append(out, *h)
	}
	slices.SortFunc(out, func(a, b Hold) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Transfers returns copies of every expense transfer, in order.
func (w *Wallet) Transfers() []Transfer {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]Transfer, len(w.transfers))
	for i, t := range w.transfers {
		out[i] = *t
	}
	return out
}

// sweep expires holds past their lifetime (the wallet's sweeper).
func (w *Wallet) sweep() {
	now := w.now()
	for _, h := range w.holds {
		if h.Status == "held" && !now.Before(h.ExpiresAt) {
			h.Status = "expired"
		}
	}
}

func (w *Wallet) held(uid string) int64 {
	var n int64
	for _, h := range w.holds {
		if h.UID == uid && h.Status == "held" {
			n += h.Amount
		}
	}
	return n
}

// begin counts a call and applies injected failures: fail → error before
// the effect; lost → the caller runs the effect and then gets the error.
func (w *Wallet) begin(op string) (failNow, loseReply bool) {
	w.calls[op]++
	w.sweep()
	if w.fail[op] > 0 {
		w.fail[op]--
		return true, false
	}
	if w.lost[op] > 0 {
		w.lost[op]--
		return false, true
	}
	return false, false
}

var errUnavailable = status.Error(codes.Unavailable, "wallet is down")

func (w *Wallet) nextID(prefix string) string {
	w.seq++
	return fmt.Sprintf("%s-%06d", prefix, w.seq)
}

func (w *Wallet) holdResponse(h *Hold, replayed bool) *walletv1.HoldResponse {
	return &walletv1.HoldResponse{
		Hold: &walletv1.Hold{Id: h.ID, Uid: h.UID, AmountMicros: h.Amount, Status: h.Status, CapturedMicros: h.Captured,
			TransferId: h.TransferID, IdempotencyKey: h.Key, ExpiresAt: timestamppb.New(h.ExpiresAt)},
		Replayed: replayed, BalanceMicros: w.balances[h.UID], HeldMicros: w.held(h.UID),
	}
}

// Reserve implements the proto.
func (w *Wallet) Reserve(_ context.Context, req *walletv1.ReserveRequest) (*walletv1.HoldResponse, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	failNow, lose := w.begin("Reserve")
	if failNow {
		return nil, errUnavailable
	}
	if req.GetUid() == "" || req.GetIdempotencyKey() == "" || req.GetAmountMicros() < 0 {
		return nil, status.Error(codes.InvalidArgument, "uid, idempotency_key and a non-negative amount are required")
	}
	if id, ok := w.holdByKey[req.GetIdempotencyKey()]; ok {
		h := w.holds[id]
		if h.UID != req.GetUid() || h.Amount != req.GetAmountMicros() {
			return nil, status.Error(codes.AlreadyExists, "idempotency key reused with other parameters")
		}
		if lose {
			return nil, errUnavailable
		}
		return w.holdResponse(h, true), nil
	}
	if r := w.refuse[req.GetUid()]; r != "" {
		return nil, refusal(r)
	}
	if avail := w.balances[req.GetUid()] - w.held(req.GetUid()); avail < req.GetAmountMicros() {
		// As the wallet does: what the hold needs and what was available.
		return nil, shortRefusal(req.GetAmountMicros(), max(avail, 0))
	}
	ttl := time.Duration(req.GetTtlSeconds()) * time.Second
	if ttl <= 0 {
		ttl = 5 * time.Minute
	}
	h := &Hold{ID: w.nextID("hold"), UID: req.GetUid(), Key: req.GetIdempotencyKey(), Amount: req.GetAmountMicros(),
		Status: "held", Metadata: req.GetMetadata(), ExpiresAt: w.now().Add(ttl)}
	w.holds[h.ID] = h
	w.holdByKey[h.Key] = h.ID
	if lose {
		return nil, errUnavailable
	}
	return w.holdResponse(h, false), nil
}

// Capture implements the proto.
func (w *Wallet) Capture(_ context.Context, req *walletv1.CaptureRequest) (*walletv1.HoldResponse, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	failNow, lose := w.begin("Capture")
	if failNow {
		return nil, errUnavailable
	}
	h := w.holds[req.GetHoldId()]
	if h == nil {
		return nil, status.Error(codes.NotFound, "unknown hold")
	}
	switch h.Status {
	case "captured":
		if h.Captured != req.GetAmountMicros() {
			return nil, status.Error(codes.AlreadyExists, "hold captured with another amount")
		}
		if lose {
			return nil, errUnavailable
		}
		return w.holdResponse(h, true), nil
	case "released", "expired":
		return nil, status.Error(codes.FailedPrecondition, "hold "+h.Status)
	}
	if req.GetAmountMicros() < 0 || req.GetAmountMicros() > h.Amount {
		return nil, status.Error(codes.InvalidArgument, "amount above the hold")
	}
	h.Status, h.Captured, h.Description = "captured", req.GetAmountMicros(), req.GetDescription()
	if h.Captured > 0 {
		t := &Transfer{ID: w.nextID("tr"), UID: h.UID, Key: "hold:" + h.ID, Amount: h.Captured,
			Description: req.GetDescription(), Metadata: req.GetMetadata(), HoldID: h.ID}
		w.transfers = append(w.transfers, t)
		w.balances[h.UID] -= h.Captured
		h.TransferID = t.ID
	}
	if lose {
		return nil, errUnavailable
	}
	return w.holdResponse(h, false), nil
}

// Release implements the proto.
func (w *Wallet) Release(_ context.Context, req *walletv1.ReleaseRequest) (*walletv1.HoldResponse, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	failNow, lose := w.begin("Release")
	if failNow {
		return nil, errUnavailable
	}
	h := w.holds[req.GetHoldId()]
	if h == nil {
		return nil, status.Error(codes.NotFound, "unknown hold")
	}
	replayed := true
	switch h.Status {
	case "captured":
		return nil, status.Error(codes.FailedPrecondition, "hold captured")
	case "held":
		h.Status = "released"
		replayed = false
	}
	if lose {
		return nil, errUnavailable
	}
	return w.holdResponse(h, replayed), nil
}

// Charge implements the proto (against the available balance).
func (w *Wallet) Charge(_ context.Context, req *walletv1.ChargeRequest) (*walletv1.TransferResponse, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	failNow, lose := w.begin("Charge")
	if failNow {
		return nil, errUnavailable
	}
	resp := func(t *Transfer, replayed bool) *walletv1.TransferResponse {
		return &walletv1.TransferResponse{Transfer: &walletv1.Transfer{Id: t.ID, Uid: t.UID, AmountMicros: t.Amount,
			Type: "expense", Description: t.Description, Metadata: t.Metadata, IdempotencyKey: t.Key},
			Replayed: replayed, BalanceMicros: w.balances[t.UID]}
	}
	if t, ok := w.chargeKey[req.GetIdempotencyKey()]; ok {
		if t.UID != req.GetUid() || t.Amount != req.GetAmountMicros() {
			return nil, status.Error(codes.AlreadyExists, "idempotency key reused with other parameters")
		}
		return resp(t, true), nil
	}
	if r := w.refuse[req.GetUid()]; r != "" {
		return nil, refusal(r)
	}
	if w.balances[req.GetUid()]-w.held(req.GetUid()) < req.GetAmountMicros() {
		return nil, refusal("insufficient_funds")
	}
	t := &Transfer{ID: w.nextID("tr"), UID: req.GetUid(), Key: req.GetIdempotencyKey(), Amount: req.GetAmountMicros(),
		Description: req.GetDescription(), Metadata: req.GetMetadata()}
	w.transfers = append(w.transfers, t)
	w.chargeKey[t.Key] = t
	w.balances[t.UID] -= t.Amount
	if lose {
		return nil, errUnavailable
	}
	return resp(t, false), nil
}

// ---- knowledge ----

// Document is a document the fake knowledge service answers from.
type Document struct {
	ID, AgentID, Name, URL string
	Labels                 []string
	// Paragraphs are its passages.
	Paragraphs []string
}

// Knowledge is KnowledgeService over fixed documents: Search matches
// passages sharing a word of four letters or more with the query.
type Knowledge struct {
	documentsv1.UnimplementedKnowledgeServiceServer
	mu       sync.Mutex
	docs     []Document
	searches []*documentsv1.SearchRequest
	gets     []*documentsv1.GetPassagesRequest
	down     bool
}

// NewKnowledge returns a knowledge service with docs.
func NewKnowledge(docs ...Document) *Knowledge { return &Knowledge{docs: docs} }

// SetDown makes every call fail with UNAVAILABLE.
func (k *Knowledge) SetDown(down bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.down = down
}

// Searches returns the Search requests received.
func (k *Knowledge) Searches() []*documentsv1.SearchRequest {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.searches)
}

// Gets returns the GetPassages requests received.
func (k *Knowledge) Gets() []*documentsv1.GetPassagesRequest {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.gets)
}

func passage(d Document, i int) *documentsv1.Passage {
	return &documentsv1.Passage{DocumentId: d.ID, DocumentName: d.Name, Labels: d.Labels, Text: d.Paragraphs[i],
		Url: d.URL, ChunkId: fmt.Sprintf("%s/%d", d.ID, i)}
}

func queryWords(q string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if len(w) >= 4 {
			out = append(out, w)
		}
	}
	return out
}

// Search implements the proto (simplified ranking: matching words).
func (k *Knowledge) Search(_ context.Context, req *documentsv1.SearchRequest) (*documentsv1.SearchResponse, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.searches = append(k.searches, req)
	if k.down {
		return nil, status.Error(codes.Unavailable, "documents is down")
	}
	if req.GetAgentId() == "" {
		return nil, status.Error(codes.InvalidArgument, "agent_id is required")
	}
	words := queryWords(req.GetQuery())
	limit := int(req.GetLimit())
	if limit <= 0 {
		limit = 8
	}
	out := &documentsv1.SearchResponse{}
	for _, d := range k.docs {
		if d.AgentID != req.GetAgentId() {
			continue
		}
		if len(req.GetDocumentIds()) > 0 || len(req.GetLabels()) > 0 {
			match := slices.Contains(req.GetDocumentIds(), d.ID)
			for _, l := range req.GetLabels() {
				match = match || slices.ContainsFunc(d.Labels, func(x string) bool { return strings.EqualFold(x, l) })
			}
			if !match {
				continue
			}
		}
		for i, p := range d.Paragraphs {
			lp := strings.ToLower(p)
			score := 0
			for _, w := range words {
				if strings.Contains(lp, w) {
					score++
				}
			}
			if score > 0 && len(out.Passages) < limit {
				ps := passage(d, i)
				ps.Score = float64(score)
				out.Passages = append(out.Passages, ps)
			}
		}
	}
	return out, nil
}

// GetPassages implements the proto.
func (k *Knowledge) GetPassages(_ context.Context, req *documentsv1.GetPassagesRequest) (*documentsv1.GetPassagesResponse, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.gets = append(k.gets, req)
	if k.down {
		return nil, status.Error(codes.Unavailable, "documents is down")
	}
	out := &documentsv1.GetPassagesResponse{}
	for _, id := range req.GetDocumentIds() {
		for _, d := range k.docs {
			if d.ID == id && d.AgentID == req.GetAgentId() {
				for i := range d.Paragraphs {
					out.Passages = append(out.Passages, passage(d, i))
				}
			}
		}
	}
	return out, nil
}
