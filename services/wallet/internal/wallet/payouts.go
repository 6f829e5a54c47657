package wallet

import (
	"context"
	"errors"
	"time"
)

// Creator payouts through Stripe Connect Express (issue 28, docs/wallet.md
// "Payouts"). A creator onboards a connected Express account (an Account
// Link to Stripe's hosted onboarding), account.updated says when it can
// receive payouts, and a payout moves available earnings to "in transit"
// and creates a Transfer to the connected account; transfer.created settles
// it; a definitive refusal of the Transfer, transfer.failed or
// transfer.reversed gives the money back to the available earnings, each
// exactly once. A Transfer call whose outcome is unknown (network error,
// timeout, 5xx, 429, 409) never gives the money back: Stripe may have made
// the Transfer. The payout stays in transit, unconfirmed, and the payout
// reconciler calls again with the same Idempotency-Key until Stripe answers
// (or transfer.created settles it).

// Payout rules.
const (
	// MaxPayoutMicros bounds one withdrawal ($1,000,000).
	MaxPayoutMicros = MaxTransferMicros
	// PayoutListLimit bounds GET /api/user/payouts (newest first).
	PayoutListLimit = 100
	// MetaPayoutID is the Transfer's metadata key naming the payout.
	MetaPayoutID = "payout_id"
	// PayoutRetryBase is the first back-off after an unknown outcome; it
	// doubles per attempt up to PayoutRetryMax.
	PayoutRetryBase = 30 * time.Second
	PayoutRetryMax  = time.Hour
	// PayoutFirstLease is how long the reconciler leaves a new payout to
	// the request that created it (its Transfer call, stripe-go's retries
	// included, takes well under this).
	PayoutFirstLease = 2 * time.Minute
	// PayoutRetryWindow bounds automatic retries: Stripe keeps an
	// Idempotency-Key at least 24 hours, and a retry after the key is gone
	// could create a second Transfer. An unconfirmed payout older than this
	// stays in transit for an operator (ERROR log "payout needs manual
	// review"); a late transfer.created still settles it.
	PayoutRetryWindow = 23 * time.Hour
)

// PayoutRetryDelay is the back-off before the next Transfer call of a
// payout that has had attempts calls: 30 s, 1 min, 2 min, … up to 1 h.
func PayoutRetryDelay(attempts int) time.Duration {
	d := PayoutRetryBase
	for i := 1; i < attempts && d < PayoutRetryMax; i++ {
		d *= 2
	}
	return min(d, PayoutRetryMax)
}

// ErrTransferRefused marks a Transfer Stripe definitively refused (a 4xx
// other than 429, 409 and idempotency errors: balance_insufficient, an
// account that cannot receive transfers, …): no Transfer exists, so the
// payout fails and its money is returned. Any other error of CreateTransfer
// is an unknown outcome. Connect adapters wrap it (errors.Is).
var ErrTransferRefused = errors.New("transfer refused by the payment provider")

// Stripe Connect event types the wallet handles.
const (
	EventAccountUpdated   = "account.updated"
	EventTransferCreated  = "transfer.created"
	EventTransferReversed = "transfer.reversed"
	// EventTransferFailed is sent by older API versions (and the simulator's
	// failure control) when a Transfer failed after it was created.
	EventTransferFailed = "transfer.failed"
)

// Outcomes of Connect events.
const (
	OutcomeAccountUpdated WebhookOutcome = "account_updated"
	OutcomeStale          WebhookOutcome = "stale" // older than what was applied: ignored
	OutcomePayoutPaid     WebhookOutcome = "payout_paid"
	OutcomePayoutReturned WebhookOutcome = "payout_returned"
	OutcomeUnknownObject  WebhookOutcome = "unknown_object"
)

// ConnectObject is what the wallet reads of a Connect event: an account
// (account.updated) or a transfer (transfer.*).
type ConnectObject struct {
	// Created is the event's creation time (Unix seconds): account.updated
	// events older than the last one applied are ignored.
	Created int64 `json:"created,omitempty"`
	// Account.
	AccountID        string   `json:"accountId,omitempty"`
	PayoutsEnabled   bool     `json:"payoutsEnabled,omitempty"`
	DetailsSubmitted bool     `json:"detailsSubmitted,omitempty"`
	DisabledReason   string   `json:"disabledReason,omitempty"`
	CurrentlyDue     []string `json:"currentlyDue,omitempty"`
	// Transfer.
	TransferID     string `json:"transferId,omitempty"`
	Amount         int64  `json:"amount,omitempty"`         // cents
	AmountReversed int64  `json:"amountReversed,omitempty"` // cumulative, cents
	Reversed       bool   `json:"reversed,omitempty"`
	Destination    string `json:"destination,omitempty"`
	// Metadata: the account's uid, the transfer's payout_id and uid.
	Metadata map[string]string `json:"metadata,omitempty"`
}

// Payout account states besides PayoutAccountNone (no account yet):
// onboarding (created, details not submitted), enabled (payouts_enabled),
// restricted (submitted, but Stripe does not allow payouts: the reason
// says why).
const (
	PayoutAccountOnboarding = "onboarding"
	PayoutAccountEnabled    = "enabled"
	PayoutAccountRestricted = "restricted"
)

// ConnectAccount is a user's connected account as the wallet knows it.
type ConnectAccount struct {
	UID             string
	StripeAccountID string
	Status          string
	Reason          string
	PayoutsEnabled  bool
}

// AccountState derives the wallet's state from an account object.
func AccountState(o ConnectObject) (status, reason string) {
	if o.PayoutsEnabled {
		return PayoutAccountEnabled, ""
	}
	reason = disabledReasonText(o.DisabledReason)
	if reason == "" && len(o.CurrentlyDue) > 0 {
		reason = "Stripe needs more information"
	}
	if !o.DetailsSubmitted {
		if reason == "" || o.DisabledReason == "requirements.past_due" {
			reason = "onboarding is not finished"
		}
		return PayoutAccountOnboarding, reason
	}
	if reason == "" {
		reason = "Stripe has not enabled payouts yet"
	}
	return PayoutAccountRestricted, reason
}

func disabledReasonText(code string) string {
	switch {
	case code == "":
		return ""
	case code == "requirements.past_due":
		return "Stripe needs more information"
	case code == "requirements.pending_verification":
		return "Stripe is verifying your information"
	case code == "under_review":
		return "the account is under review by Stripe"
	case len(code) >= 9 && code[:9] == "rejected.":
		return "the account was rejected by Stripe"
	}
	return "the account is disabled by Stripe (" + code + ")"
}

// PayoutStatus is a payout's state.
type PayoutStatus string

// Payout states.
const (
	PayoutInTransit PayoutStatus = "in_transit"
	PayoutPaid      PayoutStatus = "paid"
	PayoutFailed    PayoutStatus = "failed"
	PayoutReversed  PayoutStatus = "reversed"
)

// Payout is one withdrawal.
type Payout struct {
	ID               string
	UID              string
	StripeAccountID  string
	AmountMicros     int64
	AmountCents      int64
	Status           PayoutStatus
	StripeTransferID string
	IdempotencyKey   string
	ReturnedMicros   int64
	FailureMessage   string
	// Transfer calls made (or claimed), the last unknown outcome, and when
	// the reconciler calls again (in transit without StripeTransferID).
	Attempts      int
	LastError     string
	NextAttemptAt time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Payout refusals.
var (
	ErrPayoutAccountMissing = errors.New("payout account missing")
	ErrPayoutInFlight       = errors.New("a payout is already in flight")
	ErrPayoutNotFound       = errors.New("payout not found")
)

// PayoutRestrictedError: the account exists but cannot receive payouts.
type PayoutRestrictedError struct{ Reason string }

func (e *PayoutRestrictedError) Error() string { return "payout account restricted: " + e.Reason }

// IsPayoutClientError reports whether err is a payout refusal (the caller's).
func IsPayoutClientError(err error) bool {
	var (
		re *PayoutRestrictedError
		se *EarningsShortError
		ve *ValidationError
	)
	return errors.Is(err, ErrPayoutAccountMissing) || errors.Is(err, ErrPayoutInFlight) || errors.As(err, &re) ||
		errors.As(err, &se) || errors.As(err, &ve)
}

// ConnectAccountParams creates a user's Express account.
type ConnectAccountParams struct {
	UID, Email, IdempotencyKey string
}

// ConnectTransferParams is a Transfer to a connected account.
type ConnectTransferParams struct {
	PayoutID, UID, AccountID string
	AmountCents              int64
	IdempotencyKey           string
}

// Connect is the Stripe Connect adapter.
type Connect interface {
	// CreateExpressAccount creates an Express account (type express,
	// metadata uid) and returns its id.
	CreateExpressAccount(ctx context.Context, p ConnectAccountParams) (string, error)
	// CreateAccountLink returns the URL of an onboarding Account Link.
	CreateAccountLink(ctx context.Context, accountID, refreshURL, returnURL string) (string, error)
	// CreateTransfer creates a Transfer and returns its id. A definitive
	// refusal wraps ErrTransferRefused; any other error is an unknown
	// outcome (the call is repeated with the same IdempotencyKey).
	CreateTransfer(ctx context.Context, p ConnectTransferParams) (string, error)
}

// PayoutStore persists connected accounts and payouts (PostgresStore).
type PayoutStore interface {
	// ConnectAccount is uid's account (Status none when there is none).
	ConnectAccount(ctx context.Context, uid string) (ConnectAccount, error)
	// RecordConnectAccount records the Stripe account created for uid
	// (the first one recorded wins) and returns the account.
	RecordConnectAccount(ctx context.Context, uid, stripeAccountID string) (ConnectAccount, error)
	// CreatePayout checks the refusals and moves the amount available →
	// in transit with the payout's row, in one transaction under the
	// user's wallet lock.
	CreatePayout(ctx context.Context, uid string, amountMicros int64) (Payout, error)
	// SetPayoutTransfer records the Stripe Transfer of a payout.
	SetPayoutTransfer(ctx context.Context, payoutID, transferID string) error
	// FailPayout marks an in-transit payout whose Transfer is not known
	// failed and returns its money (no change otherwise) and returns the
	// payout.
	FailPayout(ctx context.Context, payoutID, message string) (Payout, error)
	// DeferPayout records an unknown outcome of an unconfirmed payout's
	// Transfer call: last_error, and the next call after delay.
	DeferPayout(ctx context.Context, payoutID, lastError string, delay time.Duration) error
	// ClaimUnconfirmedPayout takes the oldest due in-transit payout without
	// a Transfer (FOR UPDATE SKIP LOCKED), counts the attempt and leases it
	// until its back-off (PayoutRetryDelay) ends; ok is false when none is due.
	ClaimUnconfirmedPayout(ctx context.Context) (p Payout, ok bool, err error)
	// Payouts lists uid's payouts, newest first.
	Payouts(ctx context.Context, uid string, limit int) ([]Payout, error)
	// PayoutSummary sums uid's payouts and reads the account state.
	PayoutSummary(ctx context.Context, uid string) (PayoutSummary, error)
	// ApplyConnectEvent applies account.updated and transfer.* exactly once.
	ApplyConnectEvent(ctx context.Context, ev WebhookEvent) (WebhookResult, error)
}
