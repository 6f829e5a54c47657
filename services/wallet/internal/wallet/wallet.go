// Package wallet is the wallet service's domain: a double-entry ledger of
// integer micro-dollars, the user-facing balance and transaction history,
// Stripe Checkout top-ups (session creation and webhook crediting) and the
// internal Charge/Credit API and holds (Reserve → Capture / Release, expiry
// by a sweeper). Service holds the rules; Store persists the ledger
// (PostgresStore) and enqueues events in the same transaction; Cache,
// RateLimiter and Payments are adapters (Redis, Stripe).
package wallet

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
	"github.com/agentic-app/agentic/services/wallet/internal/ledger"
)

// Migrations holds the service's SQL migrations (dir "migrations").
//
//go:embed migrations/*.sql
var Migrations embed.FS

// The wallet's topic and event types (declared in topics) under the names the
// package and its tests use, and the ledger's limits.
const (
	Topic                = topics.Wallet
	Source               = "/agentic/wallet"
	TypeDepositCredited  = topics.WalletDepositCredited
	TypeChargeDebited    = topics.WalletChargeDebited
	TypeIncomeCredited   = topics.WalletIncomeCredited
	MicrosPerDollar      = 1_000_000
	MicrosPerCent        = 10_000
	MinCheckoutCents     = 50        // $0.50, the spec's minimum top-up
	MaxCheckoutCents     = 1_000_000 // $10,000
	MaxTransferMicros    = 1_000_000 * MicrosPerDollar
	MaxIdempotencyKeyLen = 255
	MaxDescriptionLen    = 500
	MaxMetadataEntries   = 50
	DefaultPageLimit     = 20
	MaxPageLimit         = 100
	// DefaultHoldTTL and MaxHoldTTL bound how long a Reserve keeps money aside.
	DefaultHoldTTL = 5 * time.Minute
	MaxHoldTTL     = time.Hour
)

// Ledger accounts. A user's wallet is "user:<uid>".
const (
	AccountStripeClearing  = "system:stripe_clearing"
	AccountPlatformRevenue = "system:platform_revenue"
	AccountPlatformPayouts = "system:platform_payouts"
)

// UserAccount is the ledger account id of uid's wallet. Its balance is the
// available balance: money on hold has already left it.
func UserAccount(uid string) string { return "user:" + uid }

// HoldsAccount is the ledger account id of uid's money on hold (created on
// the first Reserve). The user's balance is UserAccount + HoldsAccount.
func HoldsAccount(uid string) string { return "holds:" + uid }

// TransferType is how a transfer affects the user's wallet.
type TransferType string

// Transfer types: deposit (Stripe top-up, stripe clearing → wallet), income
// (platform payouts → wallet), expense (wallet → platform revenue, or holds →
// platform revenue for a capture); hold (wallet → holds) and hold_release
// (holds → wallet) move money between two accounts of the same user and are
// not part of the transaction history.
const (
	TypeDeposit     TransferType = "deposit"
	TypeIncome      TransferType = "income"
	TypeExpense     TransferType = "expense"
	TypeHold        TransferType = "hold"
	TypeHoldRelease TransferType = "hold_release"
)

// Visible reports whether transfers of type t appear in the user's history.
func (t TransferType) Visible() bool {
	switch t {
	case TypeDeposit, TypeIncome, TypeExpense, TypeRefund, TypeDispute, TypeRepayment, TypeEarningTransfer:
		return true
	}
	return false
}

// Credit reports whether transfers of type t add money to the wallet (the
// history shows the others as debits).
func (t TransferType) Credit() bool {
	return t == TypeDeposit || t == TypeIncome || t == TypeEarningTransfer
}

// Providers.
const (
	ProviderStripe   = "stripe"
	ProviderPlatform = "platform"
)

// Accounts returns the debit and credit accounts of a transfer of type t for uid.
func (t TransferType) Accounts(uid string) (debit, credit string, err error) {
	switch t {
	case TypeDeposit:
		return AccountStripeClearing, UserAccount(uid), nil
	case TypeIncome:
		return AccountPlatformPayouts, UserAccount(uid), nil
	case TypeExpense:
		return UserAccount(uid), AccountPlatformRevenue, nil
	case TypeHold:
		return UserAccount(uid), HoldsAccount(uid), nil
	case TypeHoldRelease:
		return HoldsAccount(uid), UserAccount(uid), nil
	case TypeRefund, TypeDispute:
		return UserAccount(uid), AccountStripeClearing, nil
	case TypeDebt:
		return DebtAccount(uid), AccountStripeClearing, nil
	case TypeRepayment:
		return UserAccount(uid), DebtAccount(uid), nil
	case TypeEarning:
		return AccountPlatformRevenue, EarningsPendingAccount(uid), nil
	case TypeEarningRelease:
		return EarningsPendingAccount(uid), EarningsAvailableAccount(uid), nil
	case TypeEarningTransfer:
		return EarningsAvailableAccount(uid), UserAccount(uid), nil
	case TypePayout:
		return EarningsAvailableAccount(uid), PayoutsInTransitAccount(uid), nil
	case TypePayoutPaid:
		return PayoutsInTransitAccount(uid), AccountCreatorPayouts, nil
	}
	return "", "", fmt.Errorf("unknown transfer type %q", t)
}

// Transfer is one ledger entry concerning a user's wallet (its type in the
// wallet's vocabulary).
type Transfer = ledger.Transfer[TransferType]

// Posting asks the store to move money to or from a user's wallet.
type Posting struct {
	UID            string
	Type           TransferType
	AmountMicros   int64
	IdempotencyKey string
	Description    string
	Provider       string
	Metadata       map[string]string
	// Events returns the events to enqueue with the new transfer (not called
	// on an idempotent replay).
	Events func(t Transfer, balanceMicros int64) []events.Event
}

// Matches reports whether t is what p would have created (same key reuse check).
func (p Posting) Matches(t Transfer) bool {
	return t.UID == p.UID && t.Type == p.Type && t.AmountMicros == p.AmountMicros &&
		t.Description == p.Description && t.Provider == p.Provider && metadataEqual(t.Metadata, p.Metadata)
}

func metadataEqual(a, b map[string]string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return maps.Equal(a, b)
}

// PostResult is the outcome of a posting.
type PostResult struct {
	Transfer      Transfer
	Replayed      bool  // the key had been used with the same parameters; no money moved
	BalanceMicros int64 // the user's balance (available + held) after the call
	// RechargeID is an auto-recharge this posting started (the service
	// creates its PaymentIntent after the commit).
	RechargeID string
	// Touched lists other users whose money this call moved (a consumer's
	// charge credits its creator's earnings): their cached views are stale.
	Touched []string
}

// Balance is a user's money: Micros is the balance the API and the history
// show (deposits + income − expenses), HeldMicros the part of it on open
// holds. The rest is available to Reserve and Charge.
type Balance struct {
	Micros     int64
	HeldMicros int64
}

// AvailableMicros is Micros − HeldMicros (the wallet account's balance, never
// negative: a database constraint).
func (b Balance) AvailableMicros() int64 { return b.Micros - b.HeldMicros }

// HoldStatus is the state of a hold: held → captured | released | expired.
type HoldStatus string

// Hold statuses.
const (
	HoldHeld     HoldStatus = "held"
	HoldCaptured HoldStatus = "captured"
	HoldReleased HoldStatus = "released"
	HoldExpired  HoldStatus = "expired"
)

// Hold is money set aside (Reserve) for an answer in progress.
type Hold struct {
	ID             string
	UID            string
	AmountMicros   int64
	Status         HoldStatus
	CapturedMicros int64
	// TransferID is the capture's expense transfer (captured, CapturedMicros > 0).
	TransferID     string
	IdempotencyKey string
	Metadata       map[string]string
	// CaptureDescription and CaptureMetadata are what Capture was called with.
	CaptureDescription string
	CaptureMetadata    map[string]string
	ExpiresAt          time.Time
	CreatedAt          time.Time
}

// HoldResult is the outcome of Reserve, Capture or Release.
type HoldResult struct {
	Hold Hold
	// Replayed: this call moved no money (a repeated call, or the hold was
	// already settled the same way).
	Replayed bool
	// Balance after the call.
	Balance Balance
	// Expired lists holds this call found past their expiry and returned to
	// the wallet on the way (metrics).
	Expired []SweptHold
	// RechargeID is an auto-recharge this call started (see PostResult).
	RechargeID string
	// FeeCharged: Reserve charged an agent's monthly fee on the way.
	FeeCharged bool
	// Touched lists other users whose money this call moved (a creator's
	// agent fee before a consumer's Reserve, a creator's earnings credited
	// by a consumer's Capture): their cached views are stale.
	Touched []string
}

// Reservation asks the store to put money on hold.
type Reservation struct {
	UID            string
	AmountMicros   int64
	IdempotencyKey string
	TTL            time.Duration
	Metadata       map[string]string
}

// Matches reports whether h is what r would have created (same key reuse check).
func (r Reservation) Matches(h Hold) bool {
	return h.UID == r.UID && h.AmountMicros == r.AmountMicros
}

// Capture asks the store to turn (part of) a hold into an expense.
type Capture struct {
	HoldID       string
	AmountMicros int64
	Description  string
	Metadata     map[string]string
	// Events returns the events to enqueue with the expense transfer (only
	// when AmountMicros > 0 and money moves).
	Events func(t Transfer, balanceMicros int64) []events.Event
}

// Matches reports whether the captured hold h was captured with c's parameters.
func (c Capture) Matches(h Hold) bool {
	return h.CapturedMicros == c.AmountMicros && h.CaptureDescription == c.Description &&
		metadataEqual(h.CaptureMetadata, c.Metadata)
}

// SweptHold is a hold the sweeper expired.
type SweptHold struct {
	ID           string
	UID          string
	AmountMicros int64
}

// HoldStats is the state of all open holds (metrics).
type HoldStats struct {
	Open       int64
	HeldMicros int64
}

// Page is one page of a user's transfers, newest first.
type Page struct {
	Items    []Transfer
	HasMore  bool
	Limit    int
	Offset   int
	Snapshot int64
}

// PageQuery selects a page. Snapshot nil means "the latest": the store
// returns the highest visible sequence of the user as Page.Snapshot.
type PageQuery struct {
	Limit    int
	Offset   int
	Snapshot *int64
}

// SessionStatus is the wallet's view of a Checkout Session.
type SessionStatus string

// Session statuses: open → paid | processing | expired; processing → paid | failed.
const (
	SessionOpen       SessionStatus = "open"
	SessionProcessing SessionStatus = "processing"
	SessionPaid       SessionStatus = "paid"
	SessionExpired    SessionStatus = "expired"
	SessionFailed     SessionStatus = "failed"
)

// CheckoutSession is a recorded Stripe Checkout Session.
type CheckoutSession struct {
	ID          string
	UID         string
	AmountCents int64
	Currency    string
	Status      SessionStatus
	URL         string
	TransferID  string
	CreatedAt   time.Time
	// PaymentIntentID is the PaymentIntent that paid (once known).
	PaymentIntentID string
}

// Stripe event types the wallet handles.
const (
	EventCheckoutCompleted            = "checkout.session.completed"
	EventCheckoutAsyncPaymentSucceded = "checkout.session.async_payment_succeeded"
	EventCheckoutAsyncPaymentFailed   = "checkout.session.async_payment_failed"
	EventCheckoutExpired              = "checkout.session.expired"
)

// More Stripe event types the wallet handles (issue 16).
const (
	EventChargeRefunded             = "charge.refunded"
	EventDisputeCreated             = "charge.dispute.created"
	EventDisputeClosed              = "charge.dispute.closed"
	EventDisputeFundsWithdrawn      = "charge.dispute.funds_withdrawn"
	EventDisputeFundsReinstated     = "charge.dispute.funds_reinstated"
	EventPaymentIntentSucceeded     = "payment_intent.succeeded"
	EventPaymentIntentPaymentFailed = "payment_intent.payment_failed"
	EventPaymentIntentCanceled      = "payment_intent.canceled"
	CheckoutModePayment             = "payment"
	CheckoutModeSetup               = "setup"
	PaymentIntentStatusSucceeded    = "succeeded"
	PaymentIntentStatusRequiresPM   = "requires_payment_method"
	PaymentIntentStatusCanceled     = "canceled"
	DisputeStatusWon                = "won"
	DisputeStatusLost               = "lost"
	disputeInquiryStatusPrefix      = "warning_"
	ReconcileEventPrefix            = "reconcile:"
)

// WebhookEvent is a verified Stripe event: the fields of its data.object the
// wallet reads, by object kind (zero when absent).
type WebhookEvent struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	// Checkout Session (checkout.session.*).
	SessionID         string `json:"sessionId,omitempty"`
	PaymentStatus     string `json:"paymentStatus,omitempty"` // paid, unpaid, no_payment_required
	AmountTotal       int64  `json:"amountTotal,omitempty"`   // cents, as Stripe reports it (informational: the recorded amount is credited)
	Currency          string `json:"currency,omitempty"`
	ClientReferenceID string `json:"clientReferenceId,omitempty"`
	Mode              string `json:"mode,omitempty"` // payment or setup
	// SessionStatus is the session's own status (open, complete, expired),
	// known for sessions read from Stripe's list (reconciliation).
	SessionStatus string `json:"sessionStatus,omitempty"`
	SetupIntentID string `json:"setupIntentId,omitempty"`
	CustomerID    string `json:"customerId,omitempty"`
	// PaymentIntentID: the session's, the charge's, the dispute's or the
	// PaymentIntent's own id.
	PaymentIntentID string `json:"paymentIntentId,omitempty"`
	// Charge (charge.refunded) or the dispute's charge.
	ChargeID       string `json:"chargeId,omitempty"`
	ChargeAmount   int64  `json:"chargeAmount,omitempty"`
	AmountRefunded int64  `json:"amountRefunded,omitempty"` // cumulative, cents
	// Dispute (charge.dispute.*).
	DisputeID     string `json:"disputeId,omitempty"`
	DisputeStatus string `json:"disputeStatus,omitempty"`
	DisputeAmount int64  `json:"disputeAmount,omitempty"`
	// PaymentIntent (payment_intent.*).
	PaymentIntentStatus string            `json:"paymentIntentStatus,omitempty"`
	PaymentIntentAmount int64             `json:"paymentIntentAmount,omitempty"`
	Metadata            map[string]string `json:"metadata,omitempty"`
	FailureMessage      string            `json:"failureMessage,omitempty"`
	// Connect is the account or transfer of account.updated and transfer.* (payouts.go).
	Connect *ConnectObject `json:"connect,omitempty"`
}

// WebhookOutcome says what a webhook event did.
type WebhookOutcome string

// Outcomes.
const (
	OutcomeCredited       WebhookOutcome = "credited"
	OutcomeDuplicateEvent WebhookOutcome = "duplicate_event"
	OutcomeAlreadyFinal   WebhookOutcome = "already_final" // session already paid/expired/failed: no change
	OutcomeUnknownSession WebhookOutcome = "unknown_session"
	OutcomeMarked         WebhookOutcome = "marked" // session status changed without credit
	OutcomeIgnored        WebhookOutcome = "ignored"
	// Refunds and disputes.
	OutcomeReversed   WebhookOutcome = "reversed"   // money taken back (wallet, then debt)
	OutcomeReinstated WebhookOutcome = "reinstated" // a won dispute's money given back
	OutcomeNoChange   WebhookOutcome = "no_change"  // applied before, or nothing to move
	// OutcomeUnmatched: about a payment not credited (yet); kept and applied
	// when it is.
	OutcomeUnmatched WebhookOutcome = "unmatched"
	// Auto-recharge.
	OutcomeCardSaved WebhookOutcome = "card_saved"
	OutcomeFailed    WebhookOutcome = "failed" // a declined recharge counted
)

// WebhookResult is returned by Store.ApplyWebhook.
type WebhookResult struct {
	Outcome WebhookOutcome
	Session CheckoutSession // the session after the event (zero when unknown)
	Credit  *PostResult     // set when Outcome is OutcomeCredited
	// UID is the user whose wallet the event changed (cache invalidation).
	UID string
	// Reversal is set when a refund or dispute took money back.
	Reversal *Reversal
	// RechargeID is an auto-recharge the event's effects started.
	RechargeID string
}

// Reversal is what a refund or a dispute took back from a deposit.
type Reversal struct {
	UID              string
	AmountMicros     int64
	FromWalletMicros int64
	ToDebtMicros     int64
}

// Errors.
var (
	ErrInsufficientFunds   = errors.New("insufficient funds")
	ErrIdempotencyConflict = errors.New("idempotency key already used with different parameters")
	ErrRateLimited         = errors.New("too many checkout sessions")
	ErrBadSignature        = errors.New("invalid Stripe signature")
	ErrHoldNotFound        = errors.New("hold not found")
	ErrHoldExpired         = errors.New("hold expired")
	ErrHoldReleased        = errors.New("hold released")
	ErrHoldCaptured        = errors.New("hold captured")
)

// FundsShortError is a Reserve refused for funds (it is
// ErrInsufficientFunds): what was needed — the hold and, when due, the
// agent's monthly fee — and what was available, so the caller can say how
// much to add and that a fee is why.
type FundsShortError struct {
	NeededMicros, AvailableMicros, FeeMicros int64
}

func (e *FundsShortError) Error() string {
	return fmt.Sprintf("%v: available %d, requested %d (fee %d)", ErrInsufficientFunds, e.AvailableMicros, e.NeededMicros, e.FeeMicros)
}

// Unwrap makes a FundsShortError an ErrInsufficientFunds.
func (e *FundsShortError) Unwrap() error { return ErrInsufficientFunds }

// ValidationError is a caller mistake (HTTP 400 / gRPC InvalidArgument).
type ValidationError struct{ Message string }

func (e *ValidationError) Error() string { return e.Message }

// ProviderError is a failure of the payment provider (HTTP 502).
type ProviderError struct {
	Message string
	Err     error
}

func (e *ProviderError) Error() string { return e.Message + ": " + e.Err.Error() }
func (e *ProviderError) Unwrap() error { return e.Err }

// Cache caches read results per user. Implementations never fail: a broken
// cache behaves as a miss. Lookup returns a generation token that Put must
// be given, so that a value computed before an Invalidate is never served
// after it; an empty token means "do not cache".
type Cache interface {
	Lookup(ctx context.Context, uid, key string) (value []byte, gen string, hit bool)
	Put(ctx context.Context, uid, gen, key string, value []byte, ttl time.Duration)
	Invalidate(ctx context.Context, uid string)
}

// RateLimiter limits checkout creation per user.
type RateLimiter interface {
	Allow(ctx context.Context, uid string) bool
}

// CheckoutParams is what the wallet asks the provider to create.
type CheckoutParams struct {
	UID            string
	Email          string
	AmountCents    int64
	Currency       string
	SuccessURL     string
	CancelURL      string
	IdempotencyKey string
	Metadata       map[string]string
}

// ProviderSession is the provider's answer.
type ProviderSession struct {
	ID  string
	URL string
}

// SetupParams is a Checkout Session in setup mode (save a card).
type SetupParams struct {
	UID            string
	CustomerID     string
	SuccessURL     string
	CancelURL      string
	IdempotencyKey string
}

// OffSessionParams is an off-session PaymentIntent (an auto-recharge).
type OffSessionParams struct {
	UID             string
	RechargeID      string
	CustomerID      string
	PaymentMethodID string
	AmountCents     int64
	IdempotencyKey  string
}

// OffSessionResult is Stripe's answer to an off-session payment. Declined
// is a card error (the payment failed for good); other failures are errors.
type OffSessionResult struct {
	PaymentIntentID string
	Status          string
	Declined        bool
	FailureMessage  string
}

// Payments is the payment provider (Stripe).
type Payments interface {
	// CreateCustomer creates the Stripe customer that keeps uid's saved card.
	CreateCustomer(ctx context.Context, uid, email, idempotencyKey string) (string, error)
	// CreateSetupSession creates a Checkout Session in setup mode.
	CreateSetupSession(ctx context.Context, p SetupParams) (ProviderSession, error)
	// RetrieveSetupIntent reads the card a completed setup saved.
	RetrieveSetupIntent(ctx context.Context, id string) (SavedCard, error)
	// CreateOffSessionPayment charges a saved card (confirm, off_session).
	CreateOffSessionPayment(ctx context.Context, p OffSessionParams) (OffSessionResult, error)
	// ListCheckoutSessions and ListPaymentIntents return the objects created
	// since then, as the events a webhook would have carried (reconciliation).
	ListCheckoutSessions(ctx context.Context, since time.Time) ([]WebhookEvent, error)
	ListPaymentIntents(ctx context.Context, since time.Time) ([]WebhookEvent, error)
	CreateCheckoutSession(ctx context.Context, p CheckoutParams) (ProviderSession, error)
	// ParseWebhook verifies the signature of a webhook delivery and parses it;
	// errors wrap ErrBadSignature when the delivery must be rejected.
	ParseWebhook(payload []byte, signatureHeader string) (WebhookEvent, error)
	PublishableKey() string
}
