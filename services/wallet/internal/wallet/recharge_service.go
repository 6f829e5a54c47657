package wallet

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/google/uuid"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/worker"
)

// CreateSetupSession implements Service: the user's Stripe customer (created
// once, Idempotency-Key per user), then a Checkout Session in setup mode,
// recorded before its URL is returned (the webhook trusts the record).
func (s *service) CreateSetupSession(ctx context.Context, uid, email string) (ProviderSession, error) {
	if err := requireUID(uid); err != nil {
		return ProviderSession{}, err
	}
	if s.limiter != nil && !s.limiter.Allow(ctx, uid) {
		return ProviderSession{}, ErrRateLimited
	}
	customer, err := s.store.StripeCustomer(ctx, uid)
	if err != nil {
		return ProviderSession{}, err
	}
	if customer == "" {
		created, err := s.payments.CreateCustomer(ctx, uid, email, "customer-"+uid)
		if err != nil {
			return ProviderSession{}, err
		}
		if customer, err = s.store.SetStripeCustomer(ctx, uid, created); err != nil {
			return ProviderSession{}, err
		}
	}
	key, err := uuid.NewRandom()
	if err != nil {
		return ProviderSession{}, err
	}
	ps, err := s.payments.CreateSetupSession(ctx, SetupParams{UID: uid, CustomerID: customer,
		SuccessURL: s.cfg.AppBaseURL + "/dashboard/wallet?setup=success", CancelURL: s.cfg.AppBaseURL + "/dashboard/wallet?setup=canceled",
		IdempotencyKey: "setup-" + key.String()})
	if err != nil {
		return ProviderSession{}, err
	}
	if err := s.store.CreateSetupSession(ctx, ps.ID, uid); err != nil {
		return ProviderSession{}, err
	}
	return ps, nil
}

// applySetupEvent saves the card of a completed setup-mode session.
func (s *service) applySetupEvent(ctx context.Context, ev WebhookEvent) (WebhookResult, error) {
	if ev.Type != EventCheckoutCompleted {
		return WebhookResult{Outcome: OutcomeIgnored}, nil
	}
	uid, complete, err := s.store.SetupSessionOwner(ctx, ev.SessionID)
	if err != nil {
		return WebhookResult{}, err
	}
	attrs := []any{"event_id", ev.ID, "session_id", ev.SessionID}
	if uid == "" {
		s.log.WarnContext(ctx, "setup session unknown: acknowledged without saving a card", attrs...)
		return WebhookResult{Outcome: OutcomeUnknownSession}, nil
	}
	if complete {
		// Saved before (a duplicate, or reconciliation): no need to ask Stripe.
		return WebhookResult{Outcome: OutcomeAlreadyFinal, UID: uid}, nil
	}
	if ev.SetupIntentID == "" {
		s.log.WarnContext(ctx, "completed setup session without a setup intent", attrs...)
		return WebhookResult{Outcome: OutcomeIgnored}, nil
	}
	// Read from Stripe before the transaction (a failure is a 500: Stripe
	// delivers again).
	card, err := s.payments.RetrieveSetupIntent(ctx, ev.SetupIntentID)
	if err != nil {
		return WebhookResult{}, err
	}
	if card.CustomerID == "" {
		card.CustomerID = ev.CustomerID
	}
	res, err := s.store.SaveCard(ctx, ev, uid, card)
	if err != nil {
		return WebhookResult{}, err
	}
	if res.Outcome == OutcomeCardSaved {
		s.cache.Invalidate(ctx, uid)
	}
	s.log.InfoContext(ctx, "setup session handled", append(attrs, "uid", uid, "outcome", string(res.Outcome), "card", card.Label)...)
	return res, nil
}

// applyPaymentIntentEvent credits or fails an auto-recharge.
func (s *service) applyPaymentIntentEvent(ctx context.Context, ev WebhookEvent) (WebhookResult, error) {
	if ev.PaymentIntentID == "" {
		return WebhookResult{Outcome: OutcomeIgnored}, nil
	}
	res, err := s.store.ApplyRechargeEvent(ctx, ev, s.cfg.RechargeRetryAfter, s.rechargePosting)
	if err != nil {
		return WebhookResult{}, err
	}
	attrs := []any{"event_id", ev.ID, "type", ev.Type, "payment_intent_id", ev.PaymentIntentID, "outcome", string(res.Outcome), "uid", res.UID}
	switch res.Outcome {
	case OutcomeCredited:
		s.cache.Invalidate(ctx, res.UID)
		s.billing.recharges.WithLabelValues("succeeded").Inc()
		s.startRecharge(res.RechargeID)
		s.log.InfoContext(ctx, "auto-recharge credited", attrs...)
	case OutcomeFailed:
		s.cache.Invalidate(ctx, res.UID)
		s.billing.recharges.WithLabelValues("failed").Inc()
		s.log.WarnContext(ctx, "auto-recharge declined", append(attrs, "message", ev.FailureMessage)...)
	case OutcomeIgnored, OutcomeDuplicateEvent:
		s.log.DebugContext(ctx, "payment intent event: not an auto-recharge, or handled before", attrs...)
	default:
		s.log.InfoContext(ctx, "payment intent event handled", attrs...)
	}
	return res, nil
}

func (s *service) rechargePosting(rc RechargeCredit) Posting {
	return Posting{
		UID: rc.UID, Type: TypeDeposit, AmountMicros: rc.AmountCents * MicrosPerCent,
		IdempotencyKey: RechargeKey(rc.PaymentIntentID), Description: "Auto-recharge via Stripe", Provider: ProviderStripe,
		Metadata: map[string]string{MetaRechargeID: rc.ID, "payment_intent_id": rc.PaymentIntentID,
			"amount_cents": strconv.FormatInt(rc.AmountCents, 10)},
		Events: func(t Transfer, bal int64) []events.Event {
			return []events.Event{userEvent(rc.UID, TypeDepositCredited, &eventsv1.WalletDepositCredited{
				Uid: rc.UID, AmountMicros: t.AmountMicros, AmountCents: rc.AmountCents, TransferId: t.ID,
				BalanceMicros: bal, OccurredAt: ts(t.CreatedAt), PaymentIntentId: rc.PaymentIntentID, RechargeId: rc.ID,
			})}
		},
	}
}

// ProcessRecharges implements Service: claims due pending recharges one by
// one (a lease, SKIP LOCKED: safe across replicas) and creates their
// off-session PaymentIntents outside any database transaction, with the
// Idempotency-Key "recharge-<id>" so a retry (after a crash, a timeout or
// from another replica) never creates a second payment.
func (s *service) ProcessRecharges(ctx context.Context) (int, error) {
	n := 0
	for ctx.Err() == nil {
		handled, err := s.processRecharge(ctx, "")
		if err != nil {
			s.billing.schedErrs.Inc()
			return n, err
		}
		if !handled {
			return n, nil
		}
		n++
	}
	return n, nil
}

// processRecharge handles one pending recharge (id, or the oldest due).
func (s *service) processRecharge(ctx context.Context, id string) (bool, error) {
	r, ok, err := s.store.ClaimRecharge(ctx, id, s.cfg.RechargeLease)
	if err != nil || !ok {
		return false, err
	}
	attrs := []any{"recharge_id", r.ID, "uid", r.UID, "amount_cents", r.AmountCents, "attempt", r.Attempts}
	if !r.Enabled || r.PaymentMethodID == "" || r.CustomerID == "" {
		s.log.InfoContext(ctx, "auto-recharge canceled: turned off or no card", attrs...)
		s.cache.Invalidate(ctx, r.UID)
		return true, s.store.CancelRecharge(ctx, r.ID, "Auto-recharge was turned off before the payment was made.")
	}
	res, err := s.payments.CreateOffSessionPayment(ctx, OffSessionParams{UID: r.UID, RechargeID: r.ID, CustomerID: r.CustomerID,
		PaymentMethodID: r.PaymentMethodID, AmountCents: r.AmountCents, IdempotencyKey: "recharge-" + r.ID})
	switch {
	case err != nil && r.Attempts >= s.cfg.RechargeMaxAttempts:
		// Stripe kept failing: a visible failure, never a silent one.
		s.log.ErrorContext(ctx, "auto-recharge abandoned after repeated provider errors", append(attrs, "error", err)...)
		msg := "The payment provider could not be reached."
		var pe *ProviderError
		if errors.As(err, &pe) {
			msg = pe.Message
		}
		_, ferr := s.store.FailRecharge(ctx, r.ID, "", msg, s.cfg.RechargeRetryAfter)
		s.cache.Invalidate(ctx, r.UID)
		return true, ferr
	case err != nil:
		// Left pending: retried when the lease ends, with the same key.
		s.billing.recharges.WithLabelValues("error").Inc()
		s.log.WarnContext(ctx, "auto-recharge payment failed; retrying later", append(attrs, "error", err)...)
		return true, nil
	case res.Declined:
		f, err := s.store.FailRecharge(ctx, r.ID, res.PaymentIntentID, res.FailureMessage, s.cfg.RechargeRetryAfter)
		if err != nil {
			return true, err
		}
		s.cache.Invalidate(ctx, r.UID)
		if f.Counted {
			s.billing.recharges.WithLabelValues("failed").Inc()
			if f.Disabled {
				s.billing.recharges.WithLabelValues("disabled").Inc()
			}
		}
		s.log.WarnContext(ctx, "auto-recharge declined", append(attrs, "message", res.FailureMessage, "failures", f.Failures, "disabled", f.Disabled)...)
		return true, nil
	}
	s.log.InfoContext(ctx, "auto-recharge payment created", append(attrs, "payment_intent_id", res.PaymentIntentID, "status", res.Status)...)
	return true, s.store.MarkRechargeSent(ctx, r.ID, res.PaymentIntentID)
}

// RunRecharger implements Service.
func (s *service) RunRecharger(ctx context.Context, interval time.Duration) error {
	// The round at once: recharges left pending by a crash or a provider
	// error wait for no debit. A debit that starts one kicks it in between.
	worker.EveryAndOn(ctx, interval,
		func(ctx context.Context) {
			if _, err := s.ProcessRecharges(ctx); err != nil && ctx.Err() == nil {
				s.log.ErrorContext(ctx, "auto-recharge round failed", "error", err)
			}
		},
		s.kick,
		func(ctx context.Context, id string) {
			if _, err := s.processRecharge(ctx, id); err != nil && ctx.Err() == nil {
				s.billing.schedErrs.Inc()
				s.log.ErrorContext(ctx, "auto-recharge failed", "recharge_id", id, "error", err)
			}
		})
	return nil
}
