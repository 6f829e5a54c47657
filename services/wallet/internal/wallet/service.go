package wallet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
)

// Cache windows (the spec's business constants).
const (
	BalanceTTL      = 30 * time.Second
	TransactionsTTL = 60 * time.Second
)

// Service is the wallet service API.
type Service interface {
	// Balance is the caller's balance view (balance, held, debt, this month's
	// usage, spend controls, auto-recharge state), served from the cache when
	// possible (0s without a wallet).
	Balance(ctx context.Context, uid string) (BalanceView, error)
	// Settings returns the caller's spend controls.
	Settings(ctx context.Context, uid string) (BillingSettings, error)
	// PutSettings validates and replaces the caller's spend controls.
	PutSettings(ctx context.Context, uid string, bs BillingSettings) (BillingSettings, error)
	// Transactions is a page of the caller's transfers, newest first.
	Transactions(ctx context.Context, uid string, q PageQuery) (Page, error)
	// CreateCheckoutSession validates the top-up, rate-limits the caller,
	// creates the session at the provider and records it before returning.
	CreateCheckoutSession(ctx context.Context, req CheckoutRequest) (CheckoutResult, error)
	// HandleStripeWebhook verifies and applies one webhook delivery.
	HandleStripeWebhook(ctx context.Context, payload []byte, signature string) (WebhookResult, error)
	// Charge debits an expense from uid's wallet (idempotent by key).
	Charge(ctx context.Context, req TransferRequest) (PostResult, error)
	// Credit credits income to uid's wallet (idempotent by key).
	Credit(ctx context.Context, req TransferRequest) (PostResult, error)
	// GetBalance is the exact balance (never cached), for other services.
	GetBalance(ctx context.Context, uid string) (Balance, error)
	// Reserve puts money on hold (idempotent by key).
	Reserve(ctx context.Context, req ReserveRequest) (HoldResult, error)
	// Capture turns (part of) a hold into an expense and returns the rest.
	Capture(ctx context.Context, req CaptureRequest) (HoldResult, error)
	// Release returns a hold to the wallet.
	Release(ctx context.Context, holdID string) (HoldResult, error)
	// SweepExpiredHolds expires holds past their expiry (one round of the
	// sweeper) and returns how many it expired.
	SweepExpiredHolds(ctx context.Context) (int, error)
	// RenewAgentFees renews due agent fees (one round of the fee scheduler)
	// and returns how many agents it charged or paused.
	RenewAgentFees(ctx context.Context) (int, error)
	// AgentFees lists the caller's agents with a paid period or paused.
	AgentFees(ctx context.Context, uid string) ([]AgentFee, error)
	// CreateSetupSession starts saving a card for auto-recharge (Checkout
	// in setup mode) for the caller.
	CreateSetupSession(ctx context.Context, uid, email string) (ProviderSession, error)
	// ProcessRecharges creates the PaymentIntents of pending auto-recharges
	// (one round) and returns how many it handled.
	ProcessRecharges(ctx context.Context) (int, error)
	// RunRecharger processes recharges as soon as a debit starts one and
	// every interval (a server.Worker body).
	RunRecharger(ctx context.Context, interval time.Duration) error
	// ExportTransactions is the caller's whole history with the screen's
	// filter applied (GET /api/user/transactions.csv).
	ExportTransactions(ctx context.Context, uid string, f ExportFilter) ([]Transfer, error)
	// Reconcile applies paid Checkout Sessions and auto-recharge
	// PaymentIntents whose webhooks never arrived (one round) and returns
	// how many it applied.
	Reconcile(ctx context.Context) (int, error)

	// Earnings (earnings_service.go). Earnings is the caller's earnings view
	// (pending, available, payouts, per agent), after maturing due rows.
	Earnings(ctx context.Context, uid string) (EarningsView, error)
	// EarningsSeries is the caller's earnings per agent per UTC day.
	EarningsSeries(ctx context.Context, uid string, q SeriesQuery) ([]EarningsDay, error)
	// TransferEarnings moves available earnings to the caller's wallet.
	TransferEarnings(ctx context.Context, uid string, micros int64) (EarningsTransferResult, error)
	// MatureEarnings moves due pending earnings to available (one round of
	// the maturation ticker) and returns how many creators it matured.
	MatureEarnings(ctx context.Context) (int, error)
}

// ReserveRequest is a gRPC Reserve.
type ReserveRequest struct {
	UID            string
	AmountMicros   int64
	IdempotencyKey string
	// TTL 0 means DefaultHoldTTL.
	TTL      time.Duration
	Metadata map[string]string
}

// CaptureRequest is a gRPC Capture.
type CaptureRequest struct {
	HoldID       string
	AmountMicros int64
	Description  string
	Metadata     map[string]string
}

// CheckoutRequest is a top-up request of the signed-in user.
type CheckoutRequest struct {
	UID         string
	Email       string
	AmountCents int64
	Currency    string
}

// CheckoutResult is what the client needs to go to the hosted page.
type CheckoutResult struct {
	SessionID      string
	URL            string
	PublishableKey string
}

// TransferRequest is a gRPC Charge/Credit.
type TransferRequest struct {
	UID            string
	AmountMicros   int64
	IdempotencyKey string
	Description    string
	Metadata       map[string]string
}

// Config holds the service's settings.
type Config struct {
	// AppBaseURL is the browser origin (success/cancel URLs), e.g. http://localhost:8080.
	AppBaseURL string
	Logger     *slog.Logger
	// Now replaces time.Now (tests).
	Now func() time.Time
	// Registerer receives the hold metrics (nil: not registered).
	Registerer prometheus.Registerer
	// SweepBatch bounds the holds one sweeper round expires (default DefaultSweepBatch).
	SweepBatch int
	// FeeBatch bounds the agents one fee-scheduler round renews (default DefaultFeeBatch).
	FeeBatch int
	// RechargeRetryAfter is the back-off after a declined auto-recharge
	// before a debit may start another (default DefaultRechargeRetryAfter; 0 in tests
	// that set RechargeRetryAfterSet).
	RechargeRetryAfter    time.Duration
	RechargeRetryAfterSet bool
	// RechargeLease is how long a worker owns a pending recharge while it
	// talks to Stripe (default DefaultRechargeLease); RechargeMaxAttempts bounds the
	// attempts of a recharge Stripe keeps failing with errors (default DefaultRechargeMaxAttempts).
	RechargeLease       time.Duration
	RechargeMaxAttempts int
	// ReconcileLookback is how far back reconciliation lists Stripe's
	// objects (default DefaultReconcileLookback).
	ReconcileLookback time.Duration
	// Payouts reports creators' payouts for GET /api/user/earnings (nil:
	// nothing paid out, no payout account).
	Payouts PayoutSummarizer
	// EarningsBatch bounds the creators one maturation round handles (default DefaultEarningsBatch).
	EarningsBatch int
}

type service struct {
	store    Store
	cache    Cache
	limiter  RateLimiter
	payments Payments
	cfg      Config
	log      *slog.Logger
	metrics  holdMetrics
	billing  billingMetrics
	// kick wakes the recharge worker when a debit started a recharge.
	kick chan string
}

// NewService returns the Service. cache and limiter may be nil (no caching,
// no rate limit).
func NewService(store Store, cache Cache, limiter RateLimiter, payments Payments, cfg Config) Service {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cache == nil {
		cache = noCache{}
	}
	if cfg.SweepBatch <= 0 {
		cfg.SweepBatch = DefaultSweepBatch
	}
	if cfg.FeeBatch <= 0 {
		cfg.FeeBatch = DefaultFeeBatch
	}
	if cfg.RechargeRetryAfter <= 0 && !cfg.RechargeRetryAfterSet {
		cfg.RechargeRetryAfter = DefaultRechargeRetryAfter
	}
	if cfg.RechargeLease <= 0 {
		cfg.RechargeLease = DefaultRechargeLease
	}
	if cfg.RechargeMaxAttempts <= 0 {
		cfg.RechargeMaxAttempts = DefaultRechargeMaxAttempts
	}
	if cfg.EarningsBatch <= 0 {
		cfg.EarningsBatch = DefaultEarningsBatch
	}
	if cfg.ReconcileLookback <= 0 {
		cfg.ReconcileLookback = DefaultReconcileLookback
	}
	cfg.AppBaseURL = strings.TrimRight(cfg.AppBaseURL, "/")
	return &service{store: store, cache: cache, limiter: limiter, payments: payments, cfg: cfg, log: cfg.Logger,
		metrics: newHoldMetrics(cfg.Registerer), billing: newBillingMetrics(cfg.Registerer), kick: make(chan string, 256)}
}

type noCache struct{}

func (noCache) Lookup(context.Context, string, string) ([]byte, string, bool)      { return nil, "", false }
func (noCache) Put(context.Context, string, string, string, []byte, time.Duration) {}
func (noCache) Invalidate(context.Context, string)                                 {}

func requireUID(uid string) error {
	if strings.TrimSpace(uid) == "" {
		return &ValidationError{Message: "uid is required"}
	}
	return nil
}

func (s *service) Balance(ctx context.Context, uid string) (BalanceView, error) {
	if err := requireUID(uid); err != nil {
		return BalanceView{}, err
	}
	// "balance:v3" holds the whole view as JSON ("balance:v2" held
	// "<balance>:<held>"; a new name keeps a rolling deploy from misreading it).
	const key = "balance:v3"
	raw, gen, hit := s.cache.Lookup(ctx, uid, key)
	if hit {
		var v BalanceView
		if err := json.Unmarshal(raw, &v); err == nil {
			return v, nil
		}
	}
	v, err := s.store.Overview(ctx, uid)
	if err != nil {
		return BalanceView{}, err
	}
	if b, err := json.Marshal(v); err == nil {
		s.cache.Put(ctx, uid, gen, key, b, BalanceTTL)
	}
	return v, nil
}

func (s *service) Settings(ctx context.Context, uid string) (BillingSettings, error) {
	if err := requireUID(uid); err != nil {
		return BillingSettings{}, err
	}
	return s.store.Settings(ctx, uid)
}

func (s *service) PutSettings(ctx context.Context, uid string, bs BillingSettings) (BillingSettings, error) {
	if err := requireUID(uid); err != nil {
		return BillingSettings{}, err
	}
	if err := ValidateSettings(bs); err != nil {
		return BillingSettings{}, err
	}
	out, err := s.store.PutSettings(ctx, uid, bs)
	if err != nil {
		return BillingSettings{}, err
	}
	// The balance view shows the limits and flags computed from them.
	s.cache.Invalidate(ctx, uid)
	return out, nil
}

func (s *service) GetBalance(ctx context.Context, uid string) (Balance, error) {
	if err := requireUID(uid); err != nil {
		return Balance{}, err
	}
	return s.store.Balance(ctx, uid)
}

// ValidatePageQuery checks limit (1..100) and offset (>= 0) and snapshot (>= 0).
func ValidatePageQuery(q PageQuery) error {
	if q.Limit < 1 || q.Limit > MaxPageLimit {
		return &ValidationError{Message: "limit must be an integer between 1 and 100"}
	}
	if q.Offset < 0 {
		return &ValidationError{Message: "offset must be an integer greater than or equal to 0"}
	}
	if q.Snapshot != nil && *q.Snapshot < 0 {
		return &ValidationError{Message: "snapshot must be an integer greater than or equal to 0"}
	}
	return nil
}

// cachedPage is the cache encoding of a Page.
type cachedPage struct {
	Items    []Transfer `json:"items"`
	HasMore  bool       `json:"hasMore"`
	Snapshot int64      `json:"snapshot"`
}

func (s *service) Transactions(ctx context.Context, uid string, q PageQuery) (Page, error) {
	if err := requireUID(uid); err != nil {
		return Page{}, err
	}
	if err := ValidatePageQuery(q); err != nil {
		return Page{}, err
	}
	snap := "latest"
	if q.Snapshot != nil {
		snap = strconv.FormatInt(*q.Snapshot, 10)
	}
	key := fmt.Sprintf("tx:%d:%d:%s", q.Limit, q.Offset, snap)
	raw, gen, hit := s.cache.Lookup(ctx, uid, key)
	if hit {
		var cp cachedPage
		if err := json.Unmarshal(raw, &cp); err == nil {
			return Page{Items: cp.Items, HasMore: cp.HasMore, Limit: q.Limit, Offset: q.Offset, Snapshot: cp.Snapshot}, nil
		}
	}
	p, err := s.store.Transfers(ctx, uid, q)
	if err != nil {
		return Page{}, err
	}
	if b, err := json.Marshal(cachedPage{Items: p.Items, HasMore: p.HasMore, Snapshot: p.Snapshot}); err == nil {
		s.cache.Put(ctx, uid, gen, key, b, TransactionsTTL)
	}
	return p, nil
}

// ValidateCheckout checks the amount (integer cents, 50..1,000,000) and currency (usd).
func ValidateCheckout(req CheckoutRequest) (CheckoutRequest, error) {
	if req.AmountCents < MinCheckoutCents || req.AmountCents > MaxCheckoutCents {
		return req, &ValidationError{Message: "amount must be an integer number of cents between 50 ($0.50) and 1000000 ($10,000)"}
	}
	cur := strings.ToLower(strings.TrimSpace(req.Currency))
	if cur == "" {
		cur = "usd"
	}
	if cur != "usd" {
		return req, &ValidationError{Message: "currency must be usd"}
	}
	req.Currency = cur
	return req, nil
}

func (s *service) CreateCheckoutSession(ctx context.Context, req CheckoutRequest) (CheckoutResult, error) {
	if err := requireUID(req.UID); err != nil {
		return CheckoutResult{}, err
	}
	req, err := ValidateCheckout(req)
	if err != nil {
		return CheckoutResult{}, err
	}
	if s.limiter != nil && !s.limiter.Allow(ctx, req.UID) {
		return CheckoutResult{}, ErrRateLimited
	}
	key, err := uuid.NewRandom()
	if err != nil {
		return CheckoutResult{}, err
	}
	ps, err := s.payments.CreateCheckoutSession(ctx, CheckoutParams{
		UID: req.UID, Email: req.Email, AmountCents: req.AmountCents, Currency: req.Currency,
		SuccessURL:     s.cfg.AppBaseURL + "/wallet?success=true&session_id={CHECKOUT_SESSION_ID}",
		CancelURL:      s.cfg.AppBaseURL + "/wallet?canceled=true",
		IdempotencyKey: "checkout-" + key.String(),
		Metadata:       map[string]string{"uid": req.UID, "amount_cents": strconv.FormatInt(req.AmountCents, 10)},
	})
	if err != nil {
		return CheckoutResult{}, err
	}
	// Recorded before the client can pay: the webhook credits this amount.
	if err := s.store.CreateCheckoutSession(ctx, CheckoutSession{
		ID: ps.ID, UID: req.UID, AmountCents: req.AmountCents, Currency: req.Currency,
		Status: SessionOpen, URL: ps.URL,
	}); err != nil {
		return CheckoutResult{}, fmt.Errorf("record checkout session %s: %w", ps.ID, err)
	}
	return CheckoutResult{SessionID: ps.ID, URL: ps.URL, PublishableKey: s.payments.PublishableKey()}, nil
}

// DepositKey is the idempotency key of the deposit of a Checkout Session.
func DepositKey(sessionID string) string { return "stripe:checkout:" + sessionID }

func (s *service) HandleStripeWebhook(ctx context.Context, payload []byte, signature string) (WebhookResult, error) {
	ev, err := s.payments.ParseWebhook(payload, signature)
	if err != nil {
		return WebhookResult{}, err
	}
	return s.applyEvent(ctx, ev)
}

// applyEvent applies a verified Stripe event (a webhook delivery, or one
// reconciliation made up from Stripe's lists: the same idempotent paths).
func (s *service) applyEvent(ctx context.Context, ev WebhookEvent) (WebhookResult, error) {
	switch ev.Type {
	case EventCheckoutCompleted, EventCheckoutAsyncPaymentSucceded, EventCheckoutAsyncPaymentFailed, EventCheckoutExpired:
		if ev.SessionID == "" {
			s.log.WarnContext(ctx, "stripe checkout event without session", "event_id", ev.ID, "type", ev.Type)
			return WebhookResult{Outcome: OutcomeIgnored}, nil
		}
		if ev.Mode == CheckoutModeSetup {
			return s.applySetupEvent(ctx, ev)
		}
		return s.applyCheckoutEvent(ctx, ev)
	case EventChargeRefunded, EventDisputeCreated, EventDisputeClosed, EventDisputeFundsWithdrawn, EventDisputeFundsReinstated:
		return s.applyReversalEvent(ctx, ev)
	case EventPaymentIntentSucceeded, EventPaymentIntentPaymentFailed:
		return s.applyPaymentIntentEvent(ctx, ev)
	case EventAccountUpdated, EventTransferCreated, EventTransferReversed, EventTransferFailed:
		return s.applyConnectEvent(ctx, ev)
	default:
		s.log.DebugContext(ctx, "stripe event ignored", "event_id", ev.ID, "type", ev.Type)
		return WebhookResult{Outcome: OutcomeIgnored}, nil
	}
}

func (s *service) applyCheckoutEvent(ctx context.Context, ev WebhookEvent) (WebhookResult, error) {
	res, err := s.store.ApplyWebhook(ctx, ev, s.depositPosting)
	if err != nil {
		return WebhookResult{}, err
	}
	attrs := []any{"event_id", ev.ID, "type", ev.Type, "session_id", ev.SessionID, "outcome", string(res.Outcome)}
	switch res.Outcome {
	case OutcomeCredited:
		s.cache.Invalidate(ctx, res.Session.UID)
		s.startRecharge(res.Credit.RechargeID)
		if ev.AmountTotal != 0 && ev.AmountTotal != res.Session.AmountCents {
			s.log.WarnContext(ctx, "stripe amount differs from the recorded amount; credited the recorded amount",
				append(attrs, "recorded_cents", res.Session.AmountCents, "stripe_cents", ev.AmountTotal)...)
		}
		if ev.ClientReferenceID != "" && ev.ClientReferenceID != res.Session.UID {
			s.log.WarnContext(ctx, "stripe client_reference_id differs from the recorded user", attrs...)
		}
		s.log.InfoContext(ctx, "deposit credited", append(attrs, "uid", res.Session.UID, "amount_cents", res.Session.AmountCents)...)
	case OutcomeUnknownSession:
		s.log.WarnContext(ctx, "stripe event for an unknown checkout session acknowledged without credit", attrs...)
	case OutcomeDuplicateEvent:
		s.log.DebugContext(ctx, "stripe event handled before", attrs...)
	default:
		s.log.InfoContext(ctx, "stripe event handled", attrs...)
	}
	return res, nil
}

// applyReversalEvent applies a refund or dispute event.
func (s *service) applyReversalEvent(ctx context.Context, ev WebhookEvent) (WebhookResult, error) {
	if ev.PaymentIntentID == "" && ev.ChargeID == "" {
		s.log.WarnContext(ctx, "stripe charge event without payment intent or charge", "event_id", ev.ID, "type", ev.Type)
		return WebhookResult{Outcome: OutcomeIgnored}, nil
	}
	res, err := s.store.ApplyReversal(ctx, ev)
	if err != nil {
		return WebhookResult{}, err
	}
	if res.UID != "" && (res.Outcome == OutcomeReversed || res.Outcome == OutcomeReinstated) {
		s.cache.Invalidate(ctx, res.UID)
	}
	s.startRecharge(res.RechargeID)
	attrs := []any{"event_id", ev.ID, "type", ev.Type, "payment_intent_id", ev.PaymentIntentID, "charge_id", ev.ChargeID,
		"dispute_id", ev.DisputeID, "outcome", string(res.Outcome), "uid", res.UID}
	if r := res.Reversal; r != nil {
		attrs = append(attrs, "amount_micros", r.AmountMicros, "from_wallet_micros", r.FromWalletMicros, "to_debt_micros", r.ToDebtMicros)
	}
	if res.Outcome == OutcomeUnmatched {
		s.log.WarnContext(ctx, "stripe refund/dispute for a payment not credited (yet): kept until it is", attrs...)
	} else {
		s.log.InfoContext(ctx, "stripe refund/dispute handled", attrs...)
	}
	return res, nil
}

func (s *service) depositPosting(cs CheckoutSession) Posting {
	return Posting{
		UID: cs.UID, Type: TypeDeposit, AmountMicros: cs.AmountCents * MicrosPerCent,
		IdempotencyKey: DepositKey(cs.ID), Description: "Wallet top-up via Stripe", Provider: ProviderStripe,
		Metadata: map[string]string{"checkout_session_id": cs.ID, "amount_cents": strconv.FormatInt(cs.AmountCents, 10)},
		Events: func(t Transfer, bal int64) []events.Event {
			return []events.Event{{
				Topic: Topic, Key: cs.UID, Subject: cs.UID, Type: TypeDepositCredited,
				Payload: &eventsv1.WalletDepositCredited{
					Uid: cs.UID, AmountMicros: t.AmountMicros, AmountCents: cs.AmountCents, TransferId: t.ID,
					CheckoutSessionId: cs.ID, BalanceMicros: bal, OccurredAt: timestamppb.New(t.CreatedAt),
					PaymentIntentId: cs.PaymentIntentID,
				},
			}}
		},
	}
}

// ValidateTransfer checks a Charge/Credit request.
func ValidateTransfer(req TransferRequest) error {
	switch {
	case strings.TrimSpace(req.UID) == "":
		return &ValidationError{Message: "uid is required"}
	case req.AmountMicros <= 0:
		return &ValidationError{Message: "amount_micros must be greater than 0"}
	case req.AmountMicros > MaxTransferMicros:
		return &ValidationError{Message: "amount_micros must be at most 1000000000000 ($1,000,000)"}
	case strings.TrimSpace(req.IdempotencyKey) == "":
		return &ValidationError{Message: "idempotency_key is required"}
	case len(req.IdempotencyKey) > MaxIdempotencyKeyLen:
		return &ValidationError{Message: "idempotency_key must be at most 255 bytes"}
	case strings.HasPrefix(req.IdempotencyKey, "stripe:"):
		return &ValidationError{Message: "idempotency_key must not start with \"stripe:\" (reserved)"}
	case strings.HasPrefix(req.IdempotencyKey, "hold:"):
		return &ValidationError{Message: "idempotency_key must not start with \"hold:\" (reserved)"}
	case strings.HasPrefix(req.IdempotencyKey, "earnings:"):
		return &ValidationError{Message: "idempotency_key must not start with \"earnings:\" (reserved)"}
	case strings.HasPrefix(req.IdempotencyKey, "fee:"), strings.HasPrefix(req.IdempotencyKey, "debt:"):
		return &ValidationError{Message: "idempotency_key must not start with \"fee:\" or \"debt:\" (reserved)"}
	case utf8.RuneCountInString(req.Description) > MaxDescriptionLen:
		return &ValidationError{Message: "description must be at most 500 characters"}
	case len(req.Metadata) > MaxMetadataEntries:
		return &ValidationError{Message: "metadata must have at most 50 entries"}
	}
	if _, _, err := ConsumerSplit(req.Metadata); err != nil {
		return err
	}
	return nil
}

func (s *service) Charge(ctx context.Context, req TransferRequest) (PostResult, error) {
	return s.post(ctx, req, TypeExpense, TypeChargeDebited)
}

func (s *service) Credit(ctx context.Context, req TransferRequest) (PostResult, error) {
	return s.post(ctx, req, TypeIncome, TypeIncomeCredited)
}

func (s *service) post(ctx context.Context, req TransferRequest, typ TransferType, evType string) (PostResult, error) {
	if err := ValidateTransfer(req); err != nil {
		return PostResult{}, err
	}
	res, err := s.store.Post(ctx, Posting{
		UID: req.UID, Type: typ, AmountMicros: req.AmountMicros, IdempotencyKey: req.IdempotencyKey,
		Description: req.Description, Provider: ProviderPlatform, Metadata: req.Metadata,
		Events: func(t Transfer, bal int64) []events.Event {
			ev := events.Event{Topic: Topic, Key: t.UID, Subject: t.UID, Type: evType}
			at := timestamppb.New(t.CreatedAt)
			if typ == TypeExpense {
				ev.Payload = &eventsv1.WalletCharged{Uid: t.UID, AmountMicros: t.AmountMicros, TransferId: t.ID,
					IdempotencyKey: t.IdempotencyKey, Description: t.Description, Metadata: t.Metadata, BalanceMicros: bal, OccurredAt: at}
			} else {
				ev.Payload = &eventsv1.WalletIncomeCredited{Uid: t.UID, AmountMicros: t.AmountMicros, TransferId: t.ID,
					IdempotencyKey: t.IdempotencyKey, Description: t.Description, Metadata: t.Metadata, BalanceMicros: bal, OccurredAt: at}
			}
			return []events.Event{ev}
		},
	})
	if err != nil {
		return PostResult{}, err
	}
	s.startRecharge(res.RechargeID)
	if !res.Replayed {
		s.cache.Invalidate(ctx, req.UID)
		s.invalidate(ctx, res.Touched)
	}
	return res, nil
}

// invalidate drops the cached views of other users a call changed.
func (s *service) invalidate(ctx context.Context, uids []string) {
	for _, uid := range uids {
		s.cache.Invalidate(ctx, uid)
	}
}

// startRecharge wakes the recharge worker for an auto-recharge a ledger
// transaction has just started (after its commit). Never blocks: if the
// worker is busy, its next round finds the pending recharge anyway.
func (s *service) startRecharge(id string) {
	if id == "" {
		return
	}
	s.billing.recharges.WithLabelValues("started").Inc()
	select {
	case s.kick <- id:
	default:
	}
}

// IsClientError reports whether err is the caller's fault.
func IsClientError(err error) bool {
	var (
		ve *ValidationError
		se *SettingsError
	)
	var re *RangeError
	return errors.As(err, &ve) || errors.As(err, &se) || errors.As(err, &re) || errors.Is(err, ErrInsufficientFunds) ||
		errors.Is(err, ErrAgentUnavailable) || errors.Is(err, ErrEarningsInsufficient) ||
		errors.Is(err, ErrMonthlyLimit) || errors.Is(err, ErrDebtOutstanding) || errors.Is(err, ErrAgentPaused) ||
		errors.Is(err, ErrNoSavedCard) || errors.Is(err, ErrIdempotencyConflict) ||
		errors.Is(err, ErrRateLimited) || errors.Is(err, ErrBadSignature) || errors.Is(err, ErrHoldNotFound) ||
		errors.Is(err, ErrHoldExpired) || errors.Is(err, ErrHoldReleased) || errors.Is(err, ErrHoldCaptured)
}
