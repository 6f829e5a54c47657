package conversations

import (
	"context"
	"errors"
	"time"

	"github.com/agentic-app/agentic/services/conversations/internal/metering"
	"github.com/agentic-app/agentic/services/platform/worker"
)

// ReconcileBatch is how many abandoned charges one Reconcile call takes.
const ReconcileBatch = 20

// Reconcile finishes charges whose answering request is gone (the process
// crashed, or the wallet did not answer in time): it takes charges whose
// lease has expired and, with the same key, hold and amount as the original
// request (every wallet call is idempotent):
//
//   - reserving (the reserve's outcome is unknown): reserve again with the
//     same key and amount, which returns the hold if there is one, and
//     release it; the turn was refused, so it is dropped if still there;
//   - held (the model was running when the process died; nothing of the
//     answer was recorded): release the hold; the answer is marked failed;
//   - capturing (the answer is recorded, its capture is not): capture the
//     recorded amount (charging directly if the hold expired meanwhile),
//     then mark it paid and emit InteractionRecorded.
//
// A charge that still cannot be finished gets a later lease and is retried.
// It returns how many charges it finished.
func (s *Service) Reconcile(ctx context.Context) (int, error) {
	now := s.cfg.Now()
	charges, err := s.store.ClaimCharges(ctx, now, now.Add(s.cfg.WalletTimeout+s.cfg.LeaseMargin), ReconcileBatch)
	if err != nil {
		return 0, err
	}
	done := 0
	for _, c := range charges {
		if ctx.Err() != nil {
			break
		}
		ok, err := s.reconcileOne(ctx, c)
		if err != nil {
			s.log.WarnContext(ctx, "charge not reconciled yet", "message_id", c.MessageID, "state", c.State,
				"attempts", c.Attempts, "error", err)
			backoff := s.cfg.RetryDelay * time.Duration(1<<min(c.Attempts, 6))
			if _, uerr := s.store.UpdateCharge(ctx, c.MessageID, []string{c.State},
				ChargeUpdate{LastError: err.Error(), LeaseUntil: s.cfg.Now().Add(backoff)}, KeepTurn); uerr != nil {
				return done, uerr
			}
			continue
		}
		if ok {
			done++
		}
	}
	return done, nil
}

func (s *Service) reconcileOne(ctx context.Context, c Charge) (bool, error) {
	wctx, cancel := context.WithTimeout(ctx, s.cfg.WalletTimeout)
	defer cancel()
	switch c.State {
	case ChargeReserving:
		// Rejected: the wallet refuses this reserve outright, so none exists.
		if err := s.meter.Abandon(wctx, c.PayerUID, c.ReserveMicros, c.Key, c.ReserveMeta); err != nil && !errors.Is(err, metering.ErrRejected) {
			return false, err
		}
		return s.store.UpdateCharge(ctx, c.MessageID, []string{ChargeReserving},
			ChargeUpdate{State: ChargeReleased, LastError: "abandoned: reserve outcome unknown"}, DropTurn)
	case ChargeHeld:
		// Closed (expired, or captured — which our records rule out) or
		// rejected (the wallet does not know the hold): nothing to give back.
		if err := s.meter.Release(wctx, c.HoldID); err != nil && !errors.Is(err, metering.ErrHoldClosed) && !errors.Is(err, metering.ErrRejected) {
			return false, err
		}
		return s.store.UpdateCharge(ctx, c.MessageID, []string{ChargeHeld},
			ChargeUpdate{State: ChargeReleased, LastError: "abandoned: answer interrupted before it was recorded"}, FailTurn)
	case ChargeCapturing:
		settled, err := s.meter.Settle(wctx, metering.Settlement{
			HoldID: c.HoldID, Payer: c.PayerUID, Key: c.Key, AmountMicros: c.CaptureMicros,
			Description: c.Description, Metadata: c.CaptureMeta,
		})
		if errors.Is(err, metering.ErrRejected) {
			// The wallet will never take this capture (e.g. it does not know
			// the hold): retrying forever would not help. Left unbilled, loudly.
			s.log.ErrorContext(ctx, "capture rejected by the wallet, answer left unbilled", "message_id", c.MessageID,
				"hold_id", c.HoldID, "amount_micros", c.CaptureMicros, "error", err)
			return s.store.FinishCharge(ctx, c.MessageID, metering.Unbilled, "", s.now())
		}
		if err != nil {
			return false, err
		}
		return s.store.FinishCharge(ctx, c.MessageID, settled.Outcome, settled.TransferID, s.now())
	}
	return false, nil
}

// RunReconciler calls Reconcile every interval until ctx ends (a
// server.Worker). Several replicas may run it: a charge is claimed by one.
func (s *Service) RunReconciler(ctx context.Context, interval time.Duration) error {
	if interval <= 0 {
		interval = 5 * time.Second
	}
	worker.Every(ctx, interval, func(ctx context.Context) {
		for {
			n, err := s.Reconcile(ctx)
			if err != nil && ctx.Err() == nil {
				s.log.WarnContext(ctx, "reconcile failed", "error", err)
			}
			if n < ReconcileBatch || err != nil {
				return
			}
		}
	})
	return nil
}
