package wallet

import (
	"context"
	"time"
)

// Store persists the ledger and the billing rules' records (PostgresStore).
// It is the sum of one small interface per job, so that a consumer (or a
// test double) can ask for the one it uses.
type Store interface {
	Balances
	Checkouts
	Holds
	Fees
	Recharges
	SpendSettings
	Earnings
}

// Balances is a user's money and its history.
type Balances interface {
	// Post applies p in one transaction: locks (or, for credits, creates) the
	// user's wallet, returns the existing transfer for a reused key (Replayed)
	// or ErrIdempotencyConflict, refuses with ErrInsufficientFunds an expense
	// above the balance, inserts the transfer, updates both balances and
	// enqueues p.Events.
	Post(ctx context.Context, p Posting) (PostResult, error)
	// Balance is uid's balance and the part of it on hold (0 without a wallet).
	Balance(ctx context.Context, uid string) (Balance, error)
	// Overview is the balance view of uid (one snapshot).
	Overview(ctx context.Context, uid string) (BalanceView, error)
	// Transfers lists uid's transfers with seq <= snapshot, newest first.
	Transfers(ctx context.Context, uid string, q PageQuery) (Page, error)
	// ExportTransfers is all of uid's history matching f (CSV export).
	ExportTransfers(ctx context.Context, uid string, f ExportFilter) ([]Transfer, error)
}

// Checkouts are Stripe top-ups: the sessions, their webhooks, and the
// refunds and disputes that take them back.
type Checkouts interface {
	// CreateCheckoutSession records a session created at the provider.
	CreateCheckoutSession(ctx context.Context, s CheckoutSession) error
	// ApplyWebhook deduplicates ev by id and applies it to its session in one
	// transaction, crediting the recorded amount (deposit built by deposit)
	// at most once per session.
	ApplyWebhook(ctx context.Context, ev WebhookEvent, deposit func(CheckoutSession) Posting) (WebhookResult, error)
	// ApplyReversal applies a charge.refunded or charge.dispute.* event
	// exactly once (see PostgresStore.ApplyReversal).
	ApplyReversal(ctx context.Context, ev WebhookEvent) (WebhookResult, error)
}

// Holds is money set aside for answers in progress.
type Holds interface {
	// Reserve puts r.AmountMicros on hold (wallet → holds) in one
	// transaction: ErrInsufficientFunds when the available balance is lower,
	// the existing hold (Replayed) for a reused key with the same uid and
	// amount, else ErrIdempotencyConflict.
	Reserve(ctx context.Context, r Reservation) (HoldResult, error)
	// Capture settles an open hold: c.AmountMicros (≤ held) becomes an
	// expense, the rest goes back to the wallet. A captured hold with the
	// same parameters is Replayed, with others ErrIdempotencyConflict;
	// ErrHoldNotFound, ErrHoldReleased, ErrHoldExpired (a hold past its
	// expiry is expired here and now, its money returned).
	Capture(ctx context.Context, c Capture) (HoldResult, error)
	// Release returns an open hold to the wallet; released or expired holds
	// are Replayed, captured ones ErrHoldCaptured.
	Release(ctx context.Context, holdID string) (HoldResult, error)
	// SweepExpiredHolds expires at most limit open holds past their expiry,
	// returning their money, each in its own transaction; safe to run from
	// several replicas at once (rows locked by others are skipped).
	SweepExpiredHolds(ctx context.Context, limit int) ([]SweptHold, error)
	// HoldStats counts the open holds.
	HoldStats(ctx context.Context) (HoldStats, error)
}

// Fees are agents' monthly fees.
type Fees interface {
	// RenewAgentFees renews at most limit due agent fees (or pauses the
	// agents), each in its own transaction; safe from several replicas.
	RenewAgentFees(ctx context.Context, limit int) ([]FeeRenewal, error)
	// AgentFees lists uid's paid and paused agents.
	AgentFees(ctx context.Context, uid string) ([]AgentFee, error)
}

// Recharges is auto-recharge: the saved card and the recharges a low
// balance starts (see postgres_recharge.go).
type Recharges interface {
	ClaimRecharge(ctx context.Context, id string, lease time.Duration) (Recharge, bool, error)
	MarkRechargeSent(ctx context.Context, id, paymentIntentID string) error
	CancelRecharge(ctx context.Context, id, reason string) error
	FailRecharge(ctx context.Context, id, paymentIntentID, message string, retryAfter time.Duration) (RechargeFailure, error)
	ApplyRechargeEvent(ctx context.Context, ev WebhookEvent, retryAfter time.Duration, deposit func(RechargeCredit) Posting) (WebhookResult, error)
	CreateSetupSession(ctx context.Context, id, uid string) error
	SetupSessionOwner(ctx context.Context, id string) (uid string, complete bool, err error)
	StripeCustomer(ctx context.Context, uid string) (string, error)
	SetStripeCustomer(ctx context.Context, uid, customerID string) (string, error)
	SaveCard(ctx context.Context, ev WebhookEvent, uid string, card SavedCard) (WebhookResult, error)
}

// SpendSettings are a user's spend controls.
type SpendSettings interface {
	// Settings returns uid's spend controls.
	Settings(ctx context.Context, uid string) (BillingSettings, error)
	// PutSettings replaces uid's spend controls; ErrNoSavedCard when
	// auto-recharge is enabled without a saved card.
	PutSettings(ctx context.Context, uid string, bs BillingSettings) (BillingSettings, error)
}

// Earnings are creators' earnings (postgres_earnings.go). Each matures
// uid's due earnings first.
type Earnings interface {
	// Earnings is uid's pending and available earnings and per-agent figures.
	Earnings(ctx context.Context, uid string) (EarningsView, error)
	// EarningsSeries is uid's earnings per agent per UTC day of q.
	EarningsSeries(ctx context.Context, uid string, q SeriesQuery) ([]EarningsDay, error)
	// TransferEarnings moves micros of uid's available earnings to uid's
	// wallet (*EarningsShortError when fewer are available).
	TransferEarnings(ctx context.Context, uid string, micros int64) (EarningsTransferResult, error)
	// MatureEarnings moves due pending earnings to available for at most
	// limit creators, each in its own transaction (SKIP LOCKED), and returns
	// the creators it matured.
	MatureEarnings(ctx context.Context, limit int) ([]string, error)
}

// PostgresStore keeps every part.
var _ Store = (*PostgresStore)(nil)
