package wallet

import "context"

// Reconcile implements Service: it lists the Checkout Sessions and
// PaymentIntents created at Stripe within the lookback and applies the
// paid (or saved, or declined) ones through the same idempotent paths as
// their webhooks, under made-up event ids "reconcile:<object>:<state>".
// A session or recharge already credited moves nothing (its row is final;
// the deposit key is unique); one whose webhook was lost is credited now.
// Every replica may run it: concurrent runs dedupe on the event ids.
func (s *service) Reconcile(ctx context.Context) (int, error) {
	since := s.cfg.Now().Add(-s.cfg.ReconcileLookback)
	applied := 0
	sessions, err := s.payments.ListCheckoutSessions(ctx, since)
	if err != nil {
		s.billing.schedErrs.Inc()
		return 0, err
	}
	for _, ev := range sessions {
		if ev.SessionStatus != "complete" {
			continue
		}
		switch {
		case ev.Mode == CheckoutModeSetup && ev.SetupIntentID != "":
			ev.ID = ReconcileEventPrefix + ev.SessionID + ":setup"
		case ev.Mode != CheckoutModeSetup && ev.PaymentStatus == "paid":
			ev.ID = ReconcileEventPrefix + ev.SessionID + ":paid"
		default:
			continue
		}
		res, err := s.applyEvent(ctx, ev)
		if err != nil {
			s.billing.schedErrs.Inc()
			return applied, err
		}
		if res.Outcome == OutcomeCredited || res.Outcome == OutcomeCardSaved {
			applied++
			s.billing.reconciled.WithLabelValues("checkout_session").Inc()
			s.log.WarnContext(ctx, "reconciliation applied a checkout session its webhook had not",
				"session_id", ev.SessionID, "mode", ev.Mode, "outcome", string(res.Outcome))
		}
	}
	intents, err := s.payments.ListPaymentIntents(ctx, since)
	if err != nil {
		s.billing.schedErrs.Inc()
		return applied, err
	}
	for _, ev := range intents {
		// Only auto-recharges: Checkout payments are reconciled by their session.
		if ev.Metadata[MetaRechargeID] == "" || ev.Type == "" {
			continue
		}
		state := "succeeded"
		if ev.Type == EventPaymentIntentPaymentFailed {
			state = "failed"
		}
		ev.ID = ReconcileEventPrefix + ev.PaymentIntentID + ":" + state
		res, err := s.applyEvent(ctx, ev)
		if err != nil {
			s.billing.schedErrs.Inc()
			return applied, err
		}
		if res.Outcome == OutcomeCredited || res.Outcome == OutcomeFailed {
			applied++
			s.billing.reconciled.WithLabelValues("payment_intent").Inc()
			s.log.WarnContext(ctx, "reconciliation applied a payment intent its webhook had not",
				"payment_intent_id", ev.PaymentIntentID, "outcome", string(res.Outcome))
		}
	}
	return applied, nil
}
