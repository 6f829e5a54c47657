package wallet

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"
)

// PayoutAPI is what the HTTP API asks of payouts.
type PayoutAPI interface {
	// AccountLink creates the caller's Express account once and returns
	// the URL of an onboarding Account Link.
	AccountLink(ctx context.Context, uid, email string) (string, error)
	// CreatePayout withdraws amountMicros of the available earnings.
	CreatePayout(ctx context.Context, uid string, amountMicros int64) (Payout, error)
	// Payouts lists the caller's payouts, newest first.
	Payouts(ctx context.Context, uid string) ([]Payout, error)
}

// PayoutsConfig configures Payouts.
type PayoutsConfig struct {
	// AppBaseURL is the browser origin of the Account Link's return and
	// refresh URLs (/dashboard/earnings?payouts=return|refresh).
	AppBaseURL string
	Logger     *slog.Logger
}

// Payouts is the payouts service: PayoutAPI and PayoutSummarizer.
type Payouts struct {
	store   PayoutStore
	connect Connect
	cache   Cache
	cfg     PayoutsConfig
	log     *slog.Logger
}

// NewPayouts returns the payouts service. cache may be nil.
func NewPayouts(store PayoutStore, connect Connect, cache Cache, cfg PayoutsConfig) *Payouts {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cache == nil {
		cache = noCache{}
	}
	cfg.AppBaseURL = strings.TrimRight(cfg.AppBaseURL, "/")
	return &Payouts{store: store, connect: connect, cache: cache, cfg: cfg, log: cfg.Logger}
}

// ConnectAccountKey is the Idempotency-Key of uid's Express account: one
// account per user, whatever the retries and races.
func ConnectAccountKey(uid string) string { return "connect-account-" + uid }

// AccountLink implements PayoutAPI.
func (p *Payouts) AccountLink(ctx context.Context, uid, email string) (string, error) {
	if err := requireUID(uid); err != nil {
		return "", err
	}
	acct, err := p.store.ConnectAccount(ctx, uid)
	if err != nil {
		return "", err
	}
	if acct.StripeAccountID == "" {
		id, err := p.connect.CreateExpressAccount(ctx, ConnectAccountParams{UID: uid, Email: email, IdempotencyKey: ConnectAccountKey(uid)})
		if err != nil {
			return "", err
		}
		if acct, err = p.store.RecordConnectAccount(ctx, uid, id); err != nil {
			return "", err
		}
		p.cache.Invalidate(ctx, uid)
		p.log.InfoContext(ctx, "connect account created", "uid", uid, "account_id", acct.StripeAccountID)
	}
	base := p.cfg.AppBaseURL + "/dashboard/earnings?payouts="
	return p.connect.CreateAccountLink(ctx, acct.StripeAccountID, base+"refresh", base+"return")
}

// ValidatePayoutAmount checks a withdrawal: whole cents, at least
// MinimumWithdrawalMicros, at most MaxPayoutMicros.
func ValidatePayoutAmount(micros int64) error {
	switch {
	case micros < MinimumWithdrawalMicros:
		return &ValidationError{Message: "The minimum withdrawal is $10.00."}
	case micros > MaxPayoutMicros:
		return &ValidationError{Message: "The maximum withdrawal is $1,000,000.00."}
	case micros%MicrosPerCent != 0:
		return &ValidationError{Message: "Enter an amount in whole cents."}
	}
	return nil
}

// CreatePayout implements PayoutAPI: the money moves to "in transit" first
// (committed), then the Transfer is created outside the transaction with
// the payout's idempotency key. A definitive refusal fails the payout and
// returns the money at once (*ProviderError, 502); an unknown outcome
// (network error, timeout, 5xx, 429, 409) keeps the payout in transit,
// unconfirmed, and answers it like a success (201, status in_transit): the
// payout reconciler repeats the call with the same key, and a
// transfer.created webhook settles it whichever comes first.
func (p *Payouts) CreatePayout(ctx context.Context, uid string, amountMicros int64) (Payout, error) {
	if err := requireUID(uid); err != nil {
		return Payout{}, err
	}
	if err := ValidatePayoutAmount(amountMicros); err != nil {
		return Payout{}, err
	}
	po, err := p.store.CreatePayout(ctx, uid, amountMicros)
	if err != nil {
		return Payout{}, err
	}
	p.cache.Invalidate(ctx, uid)
	// The request's cancellation must not leave the payout half done.
	return p.sendTransfer(context.WithoutCancel(ctx), po)
}

// refusalMessage is the failure message of a refused Transfer (Stripe's
// reason in parentheses when there is one).
func refusalMessage(err error) string {
	msg := "The transfer to your Stripe account failed"
	var pe *ProviderError
	if errors.As(err, &pe) {
		if _, detail, ok := strings.Cut(pe.Message, " ("); ok {
			msg += " (" + detail
		}
	}
	return msg + ". The amount is available again."
}

// lastErrorText bounds an error kept in payouts.last_error.
func lastErrorText(err error) string {
	s := err.Error()
	if len(s) > 500 {
		s = s[:500]
	}
	return s
}

// sendTransfer makes one Transfer call of an in-transit payout without a
// known Transfer (the request's, or the reconciler's retry) and applies the
// outcome: the Transfer id recorded; a refusal failed with the money back
// (*ProviderError); an unknown outcome deferred (the payout as it is, no
// error).
func (p *Payouts) sendTransfer(ctx context.Context, po Payout) (Payout, error) {
	attrs := []any{"uid", po.UID, "payout_id", po.ID, "amount_cents", po.AmountCents, "account_id", po.StripeAccountID, "attempt", po.Attempts}
	trID, err := p.connect.CreateTransfer(ctx, ConnectTransferParams{PayoutID: po.ID, UID: po.UID, AccountID: po.StripeAccountID,
		AmountCents: po.AmountCents, IdempotencyKey: po.IdempotencyKey})
	switch {
	case err == nil:
		if err := p.store.SetPayoutTransfer(ctx, po.ID, trID); err != nil {
			// The next call with the same key (or transfer.created) records it.
			p.log.ErrorContext(ctx, "payout transfer id not recorded (the webhook or the reconciler records it)", append(attrs, "error", err)...)
		}
		po.StripeTransferID = trID
		po.UpdatedAt = time.Now()
		p.log.InfoContext(ctx, "payout transfer created", append(attrs, "transfer_id", trID)...)
		return po, nil
	case errors.Is(err, ErrTransferRefused):
		msg := refusalMessage(err)
		p.log.WarnContext(ctx, "payout transfer refused: money returned", append(attrs, "error", err)...)
		failed, ferr := p.store.FailPayout(ctx, po.ID, msg)
		if ferr != nil {
			p.log.ErrorContext(ctx, "payout could not be failed after the transfer was refused (retried)", append(attrs, "error", ferr)...)
			return Payout{}, ferr
		}
		p.cache.Invalidate(ctx, po.UID)
		if failed.Status != PayoutFailed {
			// transfer.created recorded a Transfer meanwhile: the webhooks settle it.
			p.log.ErrorContext(ctx, "transfer refused for a payout whose transfer is known: left to the webhooks",
				append(attrs, "status", string(failed.Status), "transfer_id", failed.StripeTransferID)...)
			return failed, nil
		}
		return Payout{}, &ProviderError{Message: msg, Err: err}
	default:
		delay := PayoutRetryDelay(po.Attempts)
		po.LastError, po.NextAttemptAt = lastErrorText(err), time.Now().Add(delay)
		p.log.WarnContext(ctx, "payout transfer outcome unknown: kept in transit, retried with the same key",
			append(attrs, "error", err, "retry_in", delay.String())...)
		if derr := p.store.DeferPayout(ctx, po.ID, po.LastError, delay); derr != nil {
			// The claim's lease (or the first lease) brings it back anyway.
			p.log.ErrorContext(ctx, "payout retry not scheduled", append(attrs, "error", derr)...)
		}
		return po, nil
	}
}

// PayoutReconcileInterval is how often the payout reconciler looks for
// unconfirmed payouts (app.go).
const PayoutReconcileInterval = 30 * time.Second

// payoutReconcileBatch bounds one reconciler round.
const payoutReconcileBatch = 100

// ReconcilePayouts is the payout reconciler's round (every replica runs it;
// they claim different payouts): each in-transit payout without a known
// Transfer whose next attempt is due — saved but never sent (a crash after
// the commit), or sent with an unknown outcome — gets its Transfer call
// again with the same Idempotency-Key ("payout-<id>"): Stripe answers the
// Transfer it already made, or makes it once. A refusal fails the payout
// (money back); another unknown outcome backs off (PayoutRetryDelay, up to
// 1 h). Past PayoutRetryWindow it stops calling (the key may be gone) and
// logs an ERROR every PayoutRetryMax instead. It returns how many payouts
// it handled.
func (p *Payouts) ReconcilePayouts(ctx context.Context) (int, error) {
	n := 0
	for n < payoutReconcileBatch && ctx.Err() == nil {
		po, ok, err := p.store.ClaimUnconfirmedPayout(ctx)
		if err != nil || !ok {
			return n, err
		}
		n++
		wctx := context.WithoutCancel(ctx)
		if age := time.Since(po.CreatedAt); age > PayoutRetryWindow {
			p.log.ErrorContext(ctx, "payout needs manual review: transfer unconfirmed past the idempotency window, not retried",
				"uid", po.UID, "payout_id", po.ID, "amount_cents", po.AmountCents, "account_id", po.StripeAccountID,
				"attempts", po.Attempts, "last_error", po.LastError, "age", age.Round(time.Second).String())
			if err := p.store.DeferPayout(wctx, po.ID, po.LastError, PayoutRetryMax); err != nil {
				return n, err
			}
			continue
		}
		if _, err := p.sendTransfer(wctx, po); err != nil {
			var pe *ProviderError
			if !errors.As(err, &pe) { // a refusal was applied; a store error ends the round
				return n, err
			}
		}
	}
	return n, nil
}

// Payouts implements PayoutAPI.
func (p *Payouts) Payouts(ctx context.Context, uid string) ([]Payout, error) {
	if err := requireUID(uid); err != nil {
		return nil, err
	}
	return p.store.Payouts(ctx, uid, PayoutListLimit)
}

// PayoutSummary implements PayoutSummarizer.
func (p *Payouts) PayoutSummary(ctx context.Context, uid string) (PayoutSummary, error) {
	return p.store.PayoutSummary(ctx, uid)
}

// applyConnectEvent applies account.updated and transfer.* (the Stripe
// webhook's dispatch, service.applyEvent).
func (s *service) applyConnectEvent(ctx context.Context, ev WebhookEvent) (WebhookResult, error) {
	ps, ok := s.store.(PayoutStore)
	if !ok || ev.Connect == nil {
		s.log.DebugContext(ctx, "stripe connect event ignored", "event_id", ev.ID, "type", ev.Type)
		return WebhookResult{Outcome: OutcomeIgnored}, nil
	}
	res, err := ps.ApplyConnectEvent(ctx, ev)
	if err != nil {
		return WebhookResult{}, err
	}
	if res.UID != "" && res.Outcome != OutcomeDuplicateEvent && res.Outcome != OutcomeStale {
		s.cache.Invalidate(ctx, res.UID)
	}
	attrs := []any{"event_id", ev.ID, "type", ev.Type, "account_id", ev.Connect.AccountID, "transfer_id", ev.Connect.TransferID,
		"payout_id", ev.Connect.Metadata[MetaPayoutID], "outcome", string(res.Outcome), "uid", res.UID}
	switch {
	case res.Outcome == OutcomeUnknownObject:
		s.log.WarnContext(ctx, "stripe connect event for an unknown account or transfer acknowledged", attrs...)
	case ev.Type == EventTransferCreated && res.Outcome == OutcomeNoChange:
		// A Transfer Stripe made for a payout already failed or reversed.
		s.log.WarnContext(ctx, "transfer.created for a payout no longer in transit: nothing moved", attrs...)
	default:
		s.log.InfoContext(ctx, "stripe connect event handled", attrs...)
	}
	return res, nil
}
