package conversations

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/conversations/internal/llm"
	"github.com/agentic-app/agentic/services/conversations/internal/metering"
	"github.com/agentic-app/agentic/services/conversations/internal/pricing"
	"github.com/agentic-app/agentic/services/conversations/internal/prompt"
	"github.com/agentic-app/agentic/services/platform/database"
)

// ErrKnowledgeNotServed: the documents service does not serve
// KnowledgeService (gRPC UNIMPLEMENTED, e.g. an older deployment). Answers
// are then given from the instructions alone rather than refused.
var ErrKnowledgeNotServed = errors.New("knowledge service not served")

// AnswerRequest is one user message to answer.
type AnswerRequest struct {
	UID             string
	ConversationID  string
	Content         string
	ClientMessageID string
	// Channel is where the message came from (default chat).
	Channel string
	// Received is when the message arrived (default: when Answer starts);
	// time to first token is measured from it.
	Received time.Time

	// The agent API is stateless like OpenAI's: the caller sends the
	// conversation so far with every request. With SuppliedHistory, History
	// (user and assistant messages, oldest first) replaces the
	// conversation's stored history.
	SuppliedHistory bool
	History         []Message
	// System is the caller's own system text: placed after the agent's
	// instructions in a message of its own, never replacing them.
	System string
	// MaxOutputTokens lowers the answer's bound, and so its worst case
	// (0, or more than the configured bound: the configured bound).
	MaxOutputTokens int
	// APIKey is the key of an agent API request: the conversation must be
	// its agent's and its owner's, its per-key and per-owner rate limits
	// replace the per-user one, and its monthly limit and revocation are
	// checked when the turn's charge is recorded (Store.BeginTurn), in the
	// same transaction, so concurrent requests cannot overshoot the limit.
	APIKey *APIKey
	// Format asks the model for structured output (the agent API's
	// response_format); nil: text.
	Format *llm.ResponseFormat
}

// StartInfo is sent once, just before the first piece of the answer.
type StartInfo struct {
	UserMessageID      string
	AssistantMessageID string
	Model              string
	Simulated          bool
	// ModelFirstToken is the model's own time to first token, as this
	// service saw it: from sending the request to the provider to its first
	// piece of text. Before is the service's time before that (from the
	// request's arrival to the provider call). Zero for a replay. Sinks that
	// can send headers report both as Server-Timing, so a client (the
	// benchmark, a browser's developer tools) can split its own time to
	// first token into the model's and the platform's for each answer.
	ModelFirstToken time.Duration
	Before          time.Duration
	// Stages splits Before into the stages of
	// conversations_answer_stage_seconds before the model's, in order.
	Stages []Stage
}

// Stage is the time one stage of an answer took before its first token.
type Stage struct {
	Name string
	Took time.Duration
}

// Sink receives a streamed answer. Start is called once before the first
// Delta, only when the model produced output: until then the caller can
// still answer with an error status. An error from either stops the model
// (the client went away) and what was generated so far is charged.
type Sink interface {
	Start(StartInfo) error
	Delta(text string) error
}

// Discard is a Sink that keeps nothing (JSON responses, tests).
type Discard struct{}

// Start implements Sink.
func (Discard) Start(StartInfo) error { return nil }

// Delta implements Sink.
func (Discard) Delta(string) error { return nil }

// ReserveInputTokens is the input token count the worst case reserves for
// a prompt counted at n tokens: n plus 5% and 32 tokens, because a real
// provider's chat framing and tokenizer may count a little more than ours
// (llm.PromptTokens is exact for the simulator). A capture never exceeds
// the hold, so this margin is what keeps a real provider's count payable.
func ReserveInputTokens(n int) int64 { return int64(n) + int64(n)/20 + 32 }

// Answer answers one user message: the one metering path of every channel.
//
//	validate → conversation → access (catalog) → idempotency (clientMessageId)
//	→ rate limit → knowledge + prompt → record the turn and its charge
//	→ Reserve(worst case) → model, streamed to sink → record the answer and
//	what to capture → Capture(actual) → mark paid + InteractionRecorded.
//
// Refusals (validation, 404, 409 in progress, 429, 402, 403 subscriber
// cap, 502 before any output, 503 dependency down) return an error before
// sink.Start, and nothing is charged. A retry with the same clientMessageId returns the
// stored turn (Replayed) without calling the model or the wallet. When the
// answer stops after some output (stream cut, client gone, Stop), the
// partial answer is kept, charged for what was generated, and returned with
// an error wrapping ErrInterrupted.
func (s *Service) Answer(ctx context.Context, req AnswerRequest, sink Sink) (out Turn, err error) {
	if req.Channel == "" {
		req.Channel = ChannelChat
	}
	if req.Received.IsZero() {
		req.Received = time.Now()
	}
	if sink == nil {
		sink = Discard{}
	}
	defer func() { s.m.answers.WithLabelValues(req.Channel, s.outcome(out, err)).Inc() }()

	t := &turn{req: req, sink: sink}
	var done bool
	if out, done, err = s.admit(ctx, t); done {
		return out, err
	}
	defer t.release()
	if err = s.prepare(ctx, t); err != nil {
		return Turn{}, err
	}
	if out, done, err = s.begin(ctx, t); done {
		return out, err
	}
	if err = s.stream(ctx, t); err != nil {
		return Turn{}, err
	}
	s.price(ctx, t)
	return s.capture(ctx, t)
}

// turn is one answer on its way through Answer's steps: what each step
// found or decided, for the steps after it.
type turn struct {
	req  AnswerRequest
	sink Sink

	// admit
	clientID  string
	stages    []Stage
	stage     func(stage string)
	opened    Opened
	conv      Conversation
	access    Access
	knowledge *knowledgeFetch
	previous  string // the caller's message before this one ("" for none)

	// prepare
	model         string
	price         pricing.Price
	maxOut        int
	built         prompt.Output
	consumer      bool
	markupPercent int
	greeting      int64
	worst         int64
	rewrite       llm.Usage // the follow-up rewrite's usage, billed with the answer

	// begin
	user, asst   Message
	charge       Charge
	begun        Turn
	hold         metering.Hold
	wctx         context.Context
	cancelWallet context.CancelFunc

	// stream
	cancelModel      context.CancelFunc
	res              llm.Result
	genErr           error
	stoppedAfterSend bool

	// price
	usage Usage
}

// release ends, when Answer returns, what its steps started for the whole
// answer, last started first: the model's context, the wallet's, and the
// knowledge fetch.
func (t *turn) release() {
	if t.cancelModel != nil {
		t.cancelModel()
	}
	if t.cancelWallet != nil {
		t.cancelWallet()
	}
	t.knowledge.cancel()
}

// admit is Answer's first step: validate → conversation → access (catalog)
// → idempotency (clientMessageId) → rate limit, the knowledge search
// started on the way. It ends the answer (done) with a refusal or a replay.
func (s *Service) admit(ctx context.Context, t *turn) (out Turn, done bool, err error) {
	req := t.req
	if !validChannel(req.Channel) {
		return Turn{}, true, fmt.Errorf("unknown channel %q", req.Channel)
	}
	clientID, err := ValidateMessage(req.Content, req.ClientMessageID)
	if err != nil {
		// 404 before 400: validation never reveals whether a conversation exists.
		if _, nf := s.conversation(ctx, req.UID, req.ConversationID); nf != nil {
			return Turn{}, true, nf
		}
		return Turn{}, true, err
	}
	t.clientID = clientID
	t.stage = s.stageClock(&t.stages)
	// The conversation, the replay check and the history in one round trip.
	historyTurns := s.cfg.HistoryTurns
	if req.SuppliedHistory {
		historyTurns = 0
	}
	// When this replica has seen the caller's conversation before, its agent
	// is known (a conversation never changes agent): the knowledge search
	// and the access check start while the conversation is read, and are
	// used only if it is the caller's, with that agent, and a new message.
	var (
		knowledge *knowledgeFetch
		early     <-chan accessResult
	)
	hint, hintLast, hinted := s.convAgents.get(req.UID, req.ConversationID)
	if hinted && req.SuppliedHistory {
		hintLast = lastUserMessage(req.History)
	}
	// (A message the model rewrites first is searched only once access and
	// the rate limit are granted: the rewrite is a paid call.)
	if hinted && !s.rewritesFollowUps(hintLast) {
		knowledge = s.startKnowledge(ctx, hint, hintLast, req.Content)
		early = s.startAuthorize(ctx, req.UID, hint)
	}
	opened, err := s.openTurn(ctx, req.UID, req.ConversationID, clientID, historyTurns)
	if err != nil {
		if knowledge != nil {
			knowledge.cancel()
		}
		return Turn{}, true, err
	}
	conv := opened.Conversation
	// The message a follow-up follows up: the caller's previous one.
	last := lastUserMessage(opened.History)
	if req.SuppliedHistory {
		last = lastUserMessage(req.History)
	}
	s.convAgents.put(req.UID, req.ConversationID, conv.AgentID, req.Content)
	if hinted && !strings.EqualFold(hint, conv.AgentID) {
		knowledge.cancel() // cannot happen (the agent never changes); start over
		knowledge, early = nil, nil
	}
	if knowledge != nil && hintLast != last {
		knowledge.cancel() // another replica took a message in between: search again
		knowledge = nil
	}
	if opened.Replay && knowledge != nil {
		knowledge.cancel()
		knowledge = nil
	}
	// Otherwise a new message's search of the agent's knowledge (another
	// service) and its rate limit (Redis) start while access is checked:
	// the conversation is the caller's own, and what is found is used only
	// once access is granted. A replay needs neither.
	var limited chan limitResult
	if !opened.Replay {
		if knowledge == nil && !s.rewritesFollowUps(last) {
			knowledge = s.startKnowledge(ctx, conv.AgentID, last, req.Content)
		}
		limited = make(chan limitResult, 1)
		go func() {
			ok, retry := s.allow(ctx, req)
			limited <- limitResult{ok, retry}
		}()
	}
	var access Access
	if early != nil {
		r := <-early
		access, err = r.access, r.err
	} else {
		access, err = s.authorize(ctx, req.UID, conv.AgentID)
	}
	key := req.APIKey
	if err == nil && key != nil && (access.Role != AccessOwner || key.OwnerUID != req.UID || !strings.EqualFold(key.AgentID, conv.AgentID)) {
		// A key answers only as its own agent, for its owner, while the
		// owner still owns the agent.
		err = ErrAgentNotFound
	}
	if err != nil {
		if knowledge != nil {
			knowledge.cancel()
		}
		return Turn{}, true, err
	}
	if opened.Replay {
		out, err = s.replay(opened.Turn)
		return out, true, err
	}
	t.stage(stageLookup)
	if l := <-limited; !l.ok {
		knowledge.cancel()
		return Turn{}, true, &RateLimitedError{RetryAfter: l.retry}
	}
	t.stage(stageLimit)
	t.opened, t.conv, t.access, t.knowledge, t.previous = opened, conv, access, knowledge, last
	return Turn{}, false, nil
}

// prepare is Answer's second step: the knowledge (waited for) and the
// prompt, and so the worst case to reserve.
func (s *Service) prepare(ctx context.Context, t *turn) error {
	req, access := t.req, t.access
	history := req.History
	if !req.SuppliedHistory {
		history = t.opened.History
	}
	if t.knowledge == nil { // rewritten first (FollowUpsModel): access and the rate limit are granted now
		t.knowledge = s.startRewrittenKnowledge(ctx, t.conv.AgentID, history, t.previous, req.Content)
	}
	s.fetchReferences(t.knowledge, access.Agent, t.previous, req.Content)

	t.model = s.cfg.Model
	price, err := s.cfg.Prices.Lookup(t.model)
	if err != nil {
		return err // configuration fault: LoadConfig refuses an unpriced model
	}
	t.price = price
	maxOut := s.cfg.MaxOutputTokens
	if req.MaxOutputTokens > 0 && req.MaxOutputTokens < maxOut {
		maxOut = req.MaxOutputTokens
	}
	t.maxOut = maxOut
	// The agent's memory (memoryTokens) bounds the stored history it keeps;
	// the agent API's caller sends its own history and decides (as with
	// OpenAI's API).
	memory := access.Agent.MemoryTokens
	if req.SuppliedHistory {
		memory = 0
	}
	built, err := s.buildPrompt(ctx, access.Agent, t.knowledge, history, req.Content, req.System, maxOut, memory)
	if err != nil {
		return err
	}
	t.built = built
	// A consumer pays the creator's markup on every answer and the greeting
	// cost with the conversation's first charged answer (BeginTurn decides
	// which answer that is); the owner and subscribers pay cost + fee.
	t.consumer = access.Role == AccessConsumer
	if t.consumer {
		t.markupPercent, t.greeting = access.Agent.MarkupPercent, pricing.Greeting(access.Agent.GreetingCostCents)
		if _, _, paid := s.greeted.get(req.UID, t.conv.ID); paid {
			t.greeting = 0 // paid with an earlier answer (captured: final)
		}
	}
	// The follow-up's rewrite (FollowUpsModel), done by now, is billed with
	// the answer at the same model's price: the hold covers it exactly.
	t.rewrite = t.knowledge.rewriteUsage()
	t.worst = pricing.WorstCaseParts(price, ReserveInputTokens(built.InputTokens)+t.rewrite.InputTokens,
		int64(maxOut)+t.rewrite.OutputTokens, t.markupPercent, t.greeting)
	t.stage(stageContext)
	return nil
}

// begin is Answer's third step: record the turn and its charge, and reserve
// the worst case. It ends the answer (done) with a refusal or a replay.
func (s *Service) begin(ctx context.Context, t *turn) (out Turn, done bool, err error) {
	req, conv, access, key := t.req, t.conv, t.access, t.req.APIKey
	// Record the turn and its charge before anything is reserved: from here
	// on every step leaves a record the reconciler can finish.
	now := s.now()
	user := Message{ID: newID(), ConversationID: conv.ID, Role: RoleUser, Content: req.Content,
		Status: StatusComplete, ClientMessageID: t.clientID, CreatedAt: now, UpdatedAt: now}
	asst := Message{ID: newID(), ConversationID: conv.ID, Role: RoleAssistant, Status: StatusPending,
		ReplyTo: user.ID, Citations: []Citation{}, CreatedAt: now, UpdatedAt: now}
	t.user, t.asst = user, asst
	reserveMeta := map[string]string{
		"agentId": conv.AgentID, "conversationId": conv.ID, "messageId": asst.ID, "model": t.model, "channel": req.Channel,
		// The wallet's per-agent rules (the monthly agent fee, paused agents)
		// read these keys at Reserve (docs/billing-api.md).
		"agent_id": conv.AgentID, "agent_name": access.Agent.Name,
	}
	if t.consumer {
		// The wallet charges a consumer no agent fee (the creator pays it)
		// and refuses with agent_unavailable when the agent is paused
		// (docs/billing-api.md).
		reserveMeta["payer_role"], reserveMeta["creator_uid"] = AccessConsumer, access.Agent.OwnerUID
	}
	t.charge = Charge{
		MessageID: asst.ID, ConversationID: conv.ID, AgentID: conv.AgentID, UserUID: req.UID, PayerUID: access.PayerUID,
		Channel: req.Channel, Key: "msg:" + asst.ID, ReserveMicros: t.worst, ReserveMeta: reserveMeta, State: ChargeReserving,
		LeaseUntil: now.Add(s.cfg.AnswerTimeout + s.cfg.LeaseMargin), CreatedAt: now, UpdatedAt: now,
		GreetingMicros: t.greeting,
	}
	if key != nil {
		reserveMeta["apiKeyId"] = key.ID
		t.charge.APIKeyID, t.charge.APIKeyLimitMicros = key.ID, key.MonthlyLimitMicros
	}
	if access.Role != AccessOwner && access.PayerUID != req.UID && access.SubscriberCapMicros > 0 {
		// The owner caps what this subscriber's answers cost them a month.
		t.charge.SubscriberCap = &SubscriberCap{CapMicros: access.SubscriberCapMicros,
			OwnerUID: access.Agent.OwnerUID, AgentName: access.Agent.Name}
	}
	// The turn is recorded while the wallet holds the worst case: two round
	// trips to two systems, and the first token waits for the longer of
	// them, not their sum. The wallet and the bookkeeping run to the end
	// even if the client goes away: a reserve whose outcome we do not know,
	// or a capture not recorded, is exactly what must not happen. Either
	// order is safe on a crash: a turn without its hold is finished by the
	// reconciler (it reserves again with the same key, getting the same
	// hold, and releases it); a hold without its turn is released at its
	// TTL by the wallet's sweeper. Nothing is charged either way.
	//
	// An agent API turn and a capped subscriber's turn are the exceptions:
	// BeginTurn refuses a revoked or expired key, a key over its monthly
	// limit and a subscriber over the owner's cap for them, and a refused
	// request must not hold the owner's money even for a moment, so their
	// turn is recorded first. So is a consumer's turn that may carry the
	// greeting cost: BeginTurn decides whether it does (the first charged
	// answer of the conversation), and so what to reserve.
	sequential := key != nil || t.charge.SubscriberCap != nil || t.charge.GreetingMicros > 0
	t.wctx, t.cancelWallet = context.WithTimeout(context.WithoutCancel(ctx), s.cfg.WalletTimeout)
	wctx := t.wctx
	type reserved struct {
		hold metering.Hold
		err  error
	}
	reserving := make(chan reserved, 1)
	reserve := func() {
		h, err := s.meter.Reserve(wctx, access.PayerUID, t.worst, t.charge.Key, reserveMeta)
		reserving <- reserved{h, err}
	}
	if !sequential {
		go reserve()
	}
	begun, created, err := s.store.BeginTurn(ctx, user, asst, t.charge)
	t.stage(stageBegin)
	if sequential {
		if err != nil {
			return Turn{}, true, err
		}
		if !created {
			out, err = s.replay(begun)
			return out, true, err
		}
		if begun.GreetingMicros != t.greeting {
			// Another answer of the conversation carries the greeting.
			t.worst -= t.greeting - begun.GreetingMicros
			t.greeting = begun.GreetingMicros
			t.charge.ReserveMicros, t.charge.GreetingMicros = t.worst, t.greeting
		}
		reserve()
	}
	r := <-reserving
	t.hold = r.hold
	t.stage(stageReserve)
	if err != nil || !created {
		// No turn of ours (refused, failed, or a concurrent send with the
		// same clientMessageId won the race): its hold goes back at once.
		s.giveBack(wctx, access.PayerUID, t.worst, t.charge.Key, reserveMeta, r.hold, r.err)
		if err != nil {
			return Turn{}, true, err
		}
		out, err = s.replay(begun)
		return out, true, err
	}
	t.begun = begun
	err = r.err
	switch {
	case errors.Is(err, metering.ErrInsufficientFunds) && metering.RefusalReason(err) == metering.ReasonAgentUnavailable:
		// A listed agent whose creator cannot pay its monthly fee answers
		// no one (nothing was held).
		s.closeRefused(wctx, asst.ID, ChargeUpdate{State: ChargeReleased, LastError: metering.ReasonAgentUnavailable})
		return Turn{}, true, &AgentUnavailableError{Reason: metering.ReasonAgentUnavailable}
	case errors.Is(err, metering.ErrInsufficientFunds):
		reason := metering.RefusalReason(err)
		s.closeRefused(wctx, asst.ID, ChargeUpdate{State: ChargeReleased, LastError: reason})
		return Turn{}, true, &InsufficientFundsError{Role: access.Role, Reason: reason, Short: metering.RefusalShortfall(err),
			NeededMicros: t.worst}
	case errors.Is(err, metering.ErrRejected):
		// Refused for a reason of ours (an amount or metadata the wallet
		// does not accept): nothing was held.
		s.closeRefused(wctx, asst.ID, ChargeUpdate{State: ChargeReleased, LastError: err.Error()})
		return Turn{}, true, err
	case err != nil:
		// Unknown outcome: a hold may exist. The reconciler reserves again
		// with the same key (getting that hold back) and releases it.
		s.closeRefused(wctx, asst.ID, ChargeUpdate{LastError: err.Error(), LeaseUntil: s.cfg.Now()})
		return Turn{}, true, errors.Join(ErrWalletUnavailable, err)
	}
	return Turn{}, false, nil
}

// stream is Answer's fourth step: the model, streamed to the sink. An error
// ends the answer: nothing was generated (the hold given back), or the hold
// could not be recorded.
func (s *Service) stream(ctx context.Context, t *turn) error {
	req, asst, hold, wctx := t.req, t.asst, t.hold, t.wctx
	// The model, streamed. The hold's id is recorded while the model
	// starts, not before: until it is, the charge is "reserving" and a crash
	// leaves it to the reconciler, which gets the hold back by reserving
	// again with the same key — so nothing depends on the record being
	// there before the first token, only before the capture (waited for
	// below). If it cannot be recorded, the answer is stopped and the hold
	// given back.
	start := StartInfo{UserMessageID: t.user.ID, AssistantMessageID: asst.ID, Model: t.model, Simulated: s.cfg.Simulated}
	mctx, cancelM := context.WithTimeout(ctx, s.cfg.AnswerTimeout)
	t.cancelModel = cancelM
	recorded := make(chan error, 1)
	go func() {
		ok, err := s.store.UpdateCharge(wctx, asst.ID, []string{ChargeReserving}, ChargeUpdate{State: ChargeHeld, HoldID: hold.ID}, KeepTurn)
		if err == nil && !ok {
			err = errors.New("charge was taken over before its hold was recorded")
		}
		if err != nil {
			cancelM()
		}
		recorded <- err
	}()
	started := false
	modelStart := time.Now()
	res, genErr := s.provider.Complete(mctx, llm.Request{
		Model: t.model, Messages: t.built.Messages, MaxTokens: t.maxOut, User: userTag(req.UID), Format: req.Format,
	}, func(text string) error {
		if !started {
			started = true
			first := time.Now()
			ttft := first.Sub(req.Received)
			s.m.ttft.Observe(ttft.Seconds())
			start.ModelFirstToken = first.Sub(modelStart)
			start.Before = max(0, ttft-start.ModelFirstToken)
			s.m.platform.Observe(start.Before.Seconds())
			start.Stages = t.stages // before the model's stage: they split Before
			t.stage(stageModel)
			if err := t.sink.Start(start); err != nil {
				return err
			}
		}
		return t.sink.Delta(text)
	})
	t.res, t.genErr = res, genErr
	if err := <-recorded; err != nil {
		// The hold exists but is not recorded: give it back now (if this
		// fails too, the hold expires on its own). Nothing is charged for
		// whatever was streamed.
		_ = s.meter.Release(wctx, hold.ID)
		s.closeRefused(wctx, asst.ID, ChargeUpdate{State: ChargeReleased, LastError: "hold not recorded"})
		return err
	}
	generated := res.Text != "" || res.Usage.OutputTokens > 0
	// Stopped (the client left, Stop) after the provider was sent the
	// prompt: it read it and bills for it, so the answer is charged for its
	// input (and the fee), with no output — not given away. A refusal or a
	// failure of the provider, or a stop before the request was sent, is
	// free.
	t.stoppedAfterSend = genErr != nil && !generated && res.Sent && ctx.Err() != nil
	if genErr != nil && !generated && !t.stoppedAfterSend {
		// Nothing generated: give the money back. A failure forgets the turn
		// (a retry starts afresh); a stop before the model was called keeps
		// the question, its answer "stopped" and free (issue 29 item 3).
		// Only in the app's chat, where every send has a new
		// clientMessageId: other channels retry with the same key and
		// must get a fresh answer then, not the stopped turn.
		stopped := ctx.Err() != nil && req.Channel == ChannelChat
		act := DropTurn
		if stopped {
			act = StopTurn
		}
		if err := s.meter.Release(wctx, hold.ID); err != nil {
			s.log.WarnContext(ctx, "release failed, the reconciler will retry", "message_id", asst.ID, "error", err)
			// The reconciler releases the hold (a stopped question stays).
			s.closeTurn(wctx, asst.ID, ChargeUpdate{LastError: err.Error(), LeaseUntil: s.cfg.Now()}, act)
		} else {
			s.closeTurn(wctx, asst.ID, ChargeUpdate{State: ChargeReleased, LastError: "model: " + genErr.Error()}, act)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errors.Join(ErrModelUnavailable, genErr)
	}
	return nil
}

// price is Answer's fifth step: what was generated, priced (the provider's
// usage; our own count when it sent none).
func (s *Service) price(ctx context.Context, t *turn) {
	res := t.res
	usage := Usage{Model: t.model, InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens, Estimated: res.Usage.Estimated}
	if res.Model != "" {
		usage.Model = res.Model
	}
	if usage.InputTokens == 0 && usage.OutputTokens == 0 {
		usage.InputTokens, usage.OutputTokens, usage.Estimated = int64(t.built.InputTokens), int64(llm.CompletionTokens(res.Text)), true
	}
	// The follow-up's rewrite was a call of this answer, of the same model.
	usage.InputTokens += t.rewrite.InputTokens
	usage.OutputTokens += t.rewrite.OutputTokens
	usage.Estimated = usage.Estimated || t.rewrite.Estimated
	if t.stoppedAfterSend {
		s.m.stoppedCharged.Inc()
	}
	parts := pricing.QuoteParts(t.price, usage.InputTokens, usage.OutputTokens, t.markupPercent, t.greeting)
	if parts.TotalMicros > t.worst {
		// Never capture more than the hold: the provider counted beyond our
		// margin. The answer is billed at the hold, its parts scaled into
		// it (pricing.Parts.CapAt: the greeting kept, then fee and markup
		// of the largest cost that fits, the cost the rest) so that they
		// sum to what was paid.
		s.log.WarnContext(ctx, "answer cost above its reservation, capped", "message_id", t.asst.ID,
			"total_micros", parts.TotalMicros, "reserved_micros", t.worst)
		parts = parts.CapAt(t.worst, t.markupPercent)
	}
	usage.CostMicros, usage.FeeMicros, usage.TotalMicros = parts.CostMicros, parts.FeeMicros, parts.TotalMicros
	usage.MarkupMicros, usage.GreetingMicros = parts.MarkupMicros, parts.GreetingMicros
	s.m.tokens.WithLabelValues("input").Add(float64(usage.InputTokens))
	s.m.tokens.WithLabelValues("output").Add(float64(usage.OutputTokens))
	t.usage = usage
}

// capture is Answer's last step: record the answer and what to capture →
// Capture(actual) → mark paid + InteractionRecorded. It returns Answer's
// result.
func (s *Service) capture(ctx context.Context, t *turn) (Turn, error) {
	req, conv, access, key, res, usage, wctx := t.req, t.conv, t.access, t.req.APIKey, t.res, t.usage, t.wctx
	asst := t.asst
	asst.Content = res.Text
	asst.Citations = citations(prompt.CitedPassages(res.Text, t.built.Passages))
	if !access.Agent.ShowSources && access.Role != AccessOwner {
		// The creator keeps the sources to themselves (showSources off):
		// others see which documents an answer cites, not where they are.
		for i := range asst.Citations {
			asst.Citations[i].URL = ""
			asst.Citations[i].Passages = []CitedPassage{}
		}
	}
	asst.Usage = &usage
	asst.Status = StatusComplete
	switch {
	case t.stoppedAfterSend && req.Channel == ChannelChat:
		// Stopped before the first token, the prompt already read: kept
		// empty and charged its input only (Usage says so).
		asst.Status, asst.Content, asst.Citations = StatusStopped, "", []Citation{}
	case t.genErr != nil:
		asst.Status = StatusPartial
	}
	asst.HoldID = t.hold.ID
	asst.UpdatedAt = s.now()
	description := fmt.Sprintf("%s · %d tokens", agentLabel(access.Agent), usage.InputTokens+usage.OutputTokens)
	captureMeta := map[string]string{
		"agentId": conv.AgentID, "conversationId": conv.ID, "messageId": asst.ID, "model": usage.Model,
		"inputTokens": strconv.FormatInt(usage.InputTokens, 10), "outputTokens": strconv.FormatInt(usage.OutputTokens, 10),
		"costMicros": strconv.FormatInt(usage.CostMicros, 10), "feeMicros": strconv.FormatInt(usage.FeeMicros, 10),
		"channel": req.Channel,
	}
	if key != nil {
		captureMeta["apiKeyId"] = key.ID
	}
	if t.consumer {
		// The wallet credits markup + greeting to the creator's pending
		// earnings in the capture's transaction (docs/billing-api.md).
		captureMeta["payer_role"], captureMeta["creator_uid"] = AccessConsumer, access.Agent.OwnerUID
		captureMeta["markup_micros"] = strconv.FormatInt(usage.MarkupMicros, 10)
		captureMeta["greeting_micros"] = strconv.FormatInt(usage.GreetingMicros, 10)
	}
	payload, err := protojson.Marshal(&eventsv1.InteractionRecorded{
		InteractionId: asst.ID, AgentId: conv.AgentID, OwnerUid: access.Agent.OwnerUID, AgentName: access.Agent.Name,
		IconColor: access.Agent.IconColor, DocumentReferences: citationNames(asst.Citations),
		OccurredAt: timestamppb.New(asst.UpdatedAt), UserUid: req.UID, PayerUid: access.PayerUID, Channel: req.Channel,
		ConversationId: conv.ID, Model: usage.Model, InputTokens: usage.InputTokens, OutputTokens: usage.OutputTokens,
		CostMicros: usage.CostMicros, FeeMicros: usage.FeeMicros, TotalMicros: usage.TotalMicros,
		MarkupMicros: usage.MarkupMicros, GreetingMicros: usage.GreetingMicros, PayerRole: access.Role,
	})
	if err != nil {
		return Turn{}, err
	}
	ok, err := s.store.BeginCapture(wctx, asst.ID, Capture{
		Assistant: asst, CaptureMicros: usage.TotalMicros, Description: description, Metadata: captureMeta,
		Event: payload, LeaseUntil: s.cfg.Now().Add(s.cfg.WalletTimeout + s.cfg.LeaseMargin),
	})
	if err != nil {
		// Still held: the reconciler releases the hold once the lease ends.
		return Turn{}, fmt.Errorf("record answer: %w", err)
	}
	if !ok {
		return Turn{}, errors.New("record answer: the charge was taken over by the reconciler")
	}

	settled, err := s.meter.Settle(wctx, metering.Settlement{
		HoldID: t.hold.ID, Payer: access.PayerUID, Key: t.charge.Key, AmountMicros: usage.TotalMicros,
		Description: description, Metadata: captureMeta,
	})
	if err != nil {
		// The answer stands; the reconciler finishes the capture with the
		// same hold and amount once the wallet answers again.
		s.m.unsettle.Inc()
		s.log.WarnContext(ctx, "capture deferred to the reconciler", "message_id", asst.ID, "error", err)
		if _, uerr := s.store.UpdateCharge(wctx, asst.ID, []string{ChargeCapturing},
			ChargeUpdate{LastError: err.Error(), LeaseUntil: s.cfg.Now().Add(s.cfg.RetryDelay), CountAttempt: true}, KeepTurn); uerr != nil {
			s.log.ErrorContext(ctx, "could not record the deferred capture", "message_id", asst.ID, "error", uerr)
		}
	} else {
		if _, err := s.store.FinishCharge(wctx, asst.ID, settled.Outcome, settled.TransferID, s.now()); err != nil {
			// Captured but not recorded: the reconciler captures again
			// (idempotent, same amount) and records it.
			s.log.ErrorContext(ctx, "could not record the capture", "message_id", asst.ID, "error", err)
		}
		if settled.Outcome != metering.Unbilled {
			asst.TransferID = settled.TransferID
			if usage.GreetingMicros > 0 {
				s.greeted.put(req.UID, conv.ID, "", "")
			}
		}
	}

	out := Turn{User: t.begun.User, Assistant: asst, Model: usage.Model, Simulated: s.cfg.Simulated, FinishReason: res.FinishReason}
	if t.genErr != nil {
		return out, errors.Join(ErrInterrupted, t.genErr)
	}
	return out, nil
}

// stageClock returns a function that observes the time since its previous
// call (or since stageClock) as the given stage, and appends it to into.
func (s *Service) stageClock(into *[]Stage) func(stage string) {
	last := time.Now()
	return func(stage string) {
		now := time.Now()
		took := now.Sub(last)
		s.m.stages.WithLabelValues(stage).Observe(took.Seconds())
		*into = append(*into, Stage{Name: stage, Took: took})
		last = now
	}
}

// closeRefused records the end of a turn that produced nothing: the charge
// takes u (from reserving or held) and the turn is deleted.
func (s *Service) closeRefused(ctx context.Context, messageID string, u ChargeUpdate) {
	s.closeTurn(ctx, messageID, u, DropTurn)
}

// closeTurn is closeRefused with the turn's fate given (DropTurn, or
// StopTurn to keep a stopped question).
func (s *Service) closeTurn(ctx context.Context, messageID string, u ChargeUpdate, act TurnAction) {
	_, err := s.store.UpdateCharge(ctx, messageID, []string{ChargeReserving, ChargeHeld}, u, act)
	if err == nil {
		return
	}
	if !database.IsUnavailable(err) {
		s.log.ErrorContext(ctx, "could not close a refused turn", "message_id", messageID, "error", err)
		return
	}
	// The database is away for a moment (restarting): keep trying in the
	// background for a while rather than leave the turn open until its
	// lease ends and the reconciler takes it (minutes). The refusal is
	// answered meanwhile.
	s.log.WarnContext(ctx, "could not close a refused turn yet, retrying", "message_id", messageID, "error", err)
	go func() {
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), refusedCloseRetryFor)
		defer cancel()
		for wait := 100 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
			select {
			case <-bctx.Done():
				s.log.ErrorContext(ctx, "could not close a refused turn; the reconciler will at the end of its lease", "message_id", messageID, "error", err)
				return
			case <-time.After(wait):
			}
			if _, err = s.store.UpdateCharge(bctx, messageID, []string{ChargeReserving, ChargeHeld}, u, act); err == nil || !database.IsUnavailable(err) {
				if err != nil {
					s.log.ErrorContext(ctx, "could not close a refused turn", "message_id", messageID, "error", err)
				}
				return
			}
		}
	}()
}

// giveBack frees the hold of a turn that was not recorded: released when
// the reserve succeeded; abandoned (reserved again with the same key and
// released) when its outcome is unknown. Insufficient funds or a refused
// amount left nothing to free. Failing that, the hold expires at its TTL.
func (s *Service) giveBack(ctx context.Context, payer string, amount int64, key string, meta map[string]string, h metering.Hold, reserveErr error) {
	var err error
	switch {
	case reserveErr == nil:
		err = s.meter.Release(ctx, h.ID)
	case errors.Is(reserveErr, metering.ErrInsufficientFunds), errors.Is(reserveErr, metering.ErrRejected):
		return
	default:
		err = s.meter.Abandon(ctx, payer, amount, key, meta)
	}
	if err != nil {
		s.log.WarnContext(ctx, "could not give back the hold of an unrecorded turn; it expires at its TTL", "key", key, "error", err)
	}
}

// refusedCloseRetryFor bounds the background retries of closeRefused.
const refusedCloseRetryFor = 60 * time.Second

// replay returns a stored turn for a repeated clientMessageId.
func (s *Service) replay(t Turn) (Turn, error) {
	if t.Assistant.Status == StatusPending {
		return Turn{}, ErrInProgress
	}
	t.Replayed = true
	t.Model = s.cfg.Model
	if t.Assistant.Usage != nil && t.Assistant.Usage.Model != "" {
		t.Model = t.Assistant.Usage.Model
	}
	t.Simulated = s.cfg.Simulated
	return t, nil
}

// allow applies the rate limit: per key and per owner for the agent API,
// per user for everything else.
func (s *Service) allow(ctx context.Context, req AnswerRequest) (bool, time.Duration) {
	if req.APIKey != nil {
		if s.apiLimiter == nil {
			return true, 0
		}
		return s.apiLimiter.AllowAPI(ctx, req.APIKey.ID, req.APIKey.OwnerUID)
	}
	return s.limiter.Allow(ctx, req.UID)
}

func (s *Service) outcome(t Turn, err error) string {
	var (
		ve *ValidationError
		rl *RateLimitedError
		in *InsufficientFundsError
		kl *KeyLimitError
		sc *SubscriberCapError
		au *AgentUnavailableError
	)
	switch {
	case err == nil && t.Replayed:
		return OutcomeReplayed
	case err == nil:
		return OutcomeComplete
	case errors.Is(err, ErrInterrupted):
		return OutcomePartial
	case errors.As(err, &ve):
		return OutcomeInvalid
	case errors.Is(err, ErrConversationNotFound), errors.Is(err, ErrAgentNotFound):
		return OutcomeNotFound
	case errors.Is(err, ErrInProgress):
		return OutcomeInProgress
	case errors.As(err, &rl):
		return OutcomeRateLimited
	case errors.As(err, &in):
		return OutcomeInsufficientFunds
	case errors.As(err, &kl):
		return OutcomeKeyLimit
	case errors.As(err, &sc):
		return OutcomeSubscriberCap
	case errors.As(err, &au):
		return OutcomeAgentUnavailable
	case errors.Is(err, ErrAPIKeyInvalid), errors.Is(err, ErrAPIKeyExpired):
		return OutcomeKeyRefused
	case errors.Is(err, ErrModelUnavailable):
		return OutcomeModelUnavailable
	case errors.Is(err, ErrCatalogUnavailable), errors.Is(err, ErrWalletUnavailable), errors.Is(err, ErrKnowledgeUnavailable):
		return OutcomeUnavailable
	case errors.Is(err, context.Canceled):
		return OutcomeCanceled
	default:
		return OutcomeError
	}
}

// userTag is the opaque end-user id sent to the provider (for its abuse
// tracking): stable per user, but not the uid itself.
func userTag(uid string) string {
	sum := sha256.Sum256([]byte("agentic-user:" + uid))
	return hex.EncodeToString(sum[:12])
}

func agentLabel(a Agent) string {
	if n := strings.TrimSpace(a.Name); n != "" {
		return n
	}
	return "Agent"
}

// knowledgeFetch is the knowledge an answer draws on, being fetched: the
// passages retrieved for the message, and those of the documents the
// agent's instructions reference (@Document, #label).
type knowledgeFetch struct {
	ctx                       context.Context
	stop                      context.CancelFunc
	wg                        sync.WaitGroup
	mu                        sync.Mutex
	byDoc, byLabel, retrieved []prompt.Passage
	err                       error
	// rewrite: what the model's rewrite of the message into a standalone
	// query used (FollowUpsModel; zero otherwise).
	rewrite llm.Usage
}

// cancel ends the fetch's work (a nil fetch has none).
func (k *knowledgeFetch) cancel() {
	if k != nil {
		k.stop()
	}
}

// limitResult is the rate limiter's answer.
type limitResult struct {
	ok    bool
	retry time.Duration
}

// startKnowledge starts the search for a message's passages in the agent's
// documents (bounded by KnowledgeTimeout); fetchReferences adds the look-ups
// of what the instructions reference, and buildPrompt waits for all of them.
// accessResult is an access check run in the background.
type accessResult struct {
	access Access
	err    error
}

// startAuthorize checks access in the background.
func (s *Service) startAuthorize(ctx context.Context, uid, agentID string) <-chan accessResult {
	out := make(chan accessResult, 1)
	go func() {
		a, err := s.authorize(ctx, uid, agentID)
		out <- accessResult{a, err}
	}()
	return out
}

// startKnowledge searches the passages an answer to message uses: only
// relevant ones (none: the prompt says the documents do not cover it), a
// follow-up searched with the words of previous, the caller's message
// before it ("" for none).
func (s *Service) startKnowledge(ctx context.Context, agentID, previous, message string) *knowledgeFetch {
	kctx, cancel := context.WithTimeout(ctx, s.cfg.KnowledgeTimeout)
	k := &knowledgeFetch{ctx: kctx, stop: cancel}
	k.run(&k.retrieved, func() ([]prompt.Passage, error) {
		return s.knowledge.Search(kctx, SearchQuery{AgentID: agentID, Query: message, Earlier: earlierOf(previous), RelevantOnly: true,
			Limit: s.cfg.RetrievalLimit, TokenBudget: s.cfg.RetrievalTokenBudget})
	})
	return k
}

// earlierOf is the Earlier of a search: the previous message, if any.
func earlierOf(previous string) []string {
	if previous == "" {
		return nil
	}
	return []string{previous}
}

// run fetches into dst in the background, keeping the first error.
func (k *knowledgeFetch) run(dst *[]prompt.Passage, f func() ([]prompt.Passage, error)) {
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		ps, err := f()
		k.mu.Lock()
		defer k.mu.Unlock()
		if err != nil && k.err == nil {
			k.err = err
		}
		*dst = ps
	}()
}

// wait returns once every fetch has finished (or ctx ended).
func (k *knowledgeFetch) wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		k.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		k.cancel()
		k.mu.Lock()
		defer k.mu.Unlock()
		return k.err
	case <-ctx.Done():
		k.cancel()
		return ctx.Err()
	}
}

// fetchReferences starts the look-ups of the documents and labels the
// agent's instructions reference.
func (s *Service) fetchReferences(k *knowledgeFetch, agent Agent, previous, message string) {
	if !strings.ContainsAny(agent.Instructions, "@#") {
		return
	}
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		var docs []DocumentRef
		if s.directory != nil {
			var err error
			if docs, err = s.directory.AgentDocuments(k.ctx, agent.ID); err != nil {
				k.mu.Lock()
				defer k.mu.Unlock()
				if k.err == nil {
					k.err = fmt.Errorf("document directory: %w", err)
				}
				return
			}
		}
		docIDs, labels := resolveReferences(agent.Instructions, docs)
		if len(docIDs) > 0 {
			k.run(&k.byDoc, func() ([]prompt.Passage, error) {
				return s.knowledge.GetPassages(k.ctx, agent.ID, docIDs, s.cfg.ReferenceTokenBudget)
			})
		}
		if len(labels) > 0 {
			k.run(&k.byLabel, func() ([]prompt.Passage, error) {
				// The creator's own references: searched like the message,
				// but kept however weakly they match (the instructions ask
				// for those documents).
				return s.knowledge.Search(k.ctx, SearchQuery{AgentID: agent.ID, Query: message, Labels: labels,
					Earlier: earlierOf(previous), Limit: s.cfg.RetrievalLimit, TokenBudget: s.cfg.ReferenceTokenBudget})
			})
		}
	}()
}

// buildPrompt waits for the knowledge and builds the model's prompt.
func (s *Service) buildPrompt(ctx context.Context, agent Agent, k *knowledgeFetch, history []Message, message, caller string, maxOut, memory int) (prompt.Output, error) {
	firstErr := k.wait(ctx)
	byDoc, byLabel, retrieved := k.byDoc, k.byLabel, k.retrieved
	switch {
	case errors.Is(firstErr, ErrKnowledgeNotServed):
		s.m.dropped.Inc()
		s.log.WarnContext(ctx, "knowledge service not served, answering from the instructions alone")
		byDoc, byLabel, retrieved = nil, nil, nil
	case firstErr != nil && ctx.Err() != nil:
		return prompt.Output{}, ctx.Err()
	case firstErr != nil:
		return prompt.Output{}, errors.Join(ErrKnowledgeUnavailable, firstErr)
	}

	hist := make([]llm.Message, 0, len(history))
	for _, m := range history {
		hist = append(hist, llm.Message{Role: m.Role, Content: m.Content})
	}
	out, err := prompt.Build(prompt.Input{
		AgentName: agent.Name, Instructions: agent.Instructions,
		Referenced: append(byDoc, byLabel...), Retrieved: retrieved,
		History: hist, Message: message, Caller: caller,
		ContextWindow: s.cfg.ContextWindow, MaxOutputTokens: maxOut,
		HistoryTokens: memory,
	})
	if errors.Is(err, prompt.ErrTooLong) {
		return prompt.Output{}, errors.Join(ErrTooLong, err)
	}
	return out, err
}

// resolveReferences returns the ids of the documents the instructions name
// with @Document (resolved case-insensitively against the agent's
// documents, trailing punctuation as the editor treats it) and the labels
// they name with #label.
func resolveReferences(instructions string, docs []DocumentRef) (ids, labels []string) {
	if !strings.ContainsAny(instructions, "@#") {
		return nil, nil
	}
	names := make([]string, 0, len(docs))
	byName := map[string]string{}
	var known []string
	for _, d := range docs {
		names = append(names, d.Name)
		byName[strings.ToLower(d.Name)] = d.ID
		known = append(known, d.Labels...)
	}
	seenID, seenLabel := map[string]bool{}, map[string]bool{}
	for _, r := range prompt.FindReferences(instructions, names, known) {
		key := strings.ToLower(r.Name)
		if r.Label {
			if !seenLabel[key] {
				seenLabel[key] = true
				labels = append(labels, r.Name)
			}
			continue
		}
		if id, ok := byName[key]; ok && !seenID[id] {
			seenID[id] = true
			ids = append(ids, id)
		}
	}
	return ids, labels
}

// citations turns cited passages into one citation per document, in order
// of first citation, each with the markers and passages that cite it.
func citations(ps []prompt.Cited) []Citation {
	out := []Citation{}
	at := map[string]int{}
	for _, p := range ps {
		key := p.DocumentID
		if key == "" {
			key = "name:" + p.DocumentName
		}
		i, seen := at[key]
		if !seen {
			labels := p.Labels
			if labels == nil {
				labels = []string{}
			}
			i = len(out)
			at[key] = i
			out = append(out, Citation{DocumentID: p.DocumentID, DocumentName: p.DocumentName, URL: p.URL, Labels: labels,
				Markers: []int{}, Passages: []CitedPassage{}})
		}
		out[i].Markers = append(out[i].Markers, p.N)
		out[i].Passages = append(out[i].Passages, CitedPassage{N: p.N, Text: p.Text})
	}
	return out
}

func citationNames(cs []Citation) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.DocumentName)
	}
	return out
}
