package wallet

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/worker"
)

// billingMetrics: agent fees charged (by a Reserve, a deposit resuming a
// paused agent, or the scheduler) and agents paused; Reserves refused by
// the money rules, by reason; auto-recharges by outcome.
type billingMetrics struct {
	fees       *prometheus.CounterVec
	refusals   *prometheus.CounterVec
	recharges  *prometheus.CounterVec
	reconciled *prometheus.CounterVec
	schedErrs  prometheus.Counter
}

func newBillingMetrics(reg prometheus.Registerer) billingMetrics {
	m := billingMetrics{
		fees: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wallet_agent_fees_total", Help: "Agent fee events: charged by a reserve or the scheduler, or paused (renewal unpaid).",
		}, []string{"event"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wallet_reserve_refusals_total", Help: "Reserves refused by the money rules, by reason.",
		}, []string{"reason"}),
		recharges: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wallet_recharges_total", Help: "Auto-recharges by outcome (started, succeeded, failed, disabled, error).",
		}, []string{"outcome"}),
		reconciled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wallet_reconciled_total", Help: "Stripe objects reconciliation applied because their webhook had not (by kind).",
		}, []string{"kind"}),
		schedErrs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "wallet_billing_job_errors_total", Help: "Failed rounds of the fee scheduler, recharge worker or reconciliation.",
		}),
	}
	if reg != nil {
		m.fees = observability.Register(reg, m.fees)
		m.refusals = observability.Register(reg, m.refusals)
		m.recharges = observability.Register(reg, m.recharges)
		m.schedErrs = observability.Register(reg, m.schedErrs)
		m.reconciled = observability.Register(reg, m.reconciled)
	}
	return m
}

func (m billingMetrics) refused(err error) {
	for _, e := range []error{ErrInsufficientFunds, ErrMonthlyLimit, ErrDebtOutstanding, ErrAgentPaused, ErrAgentUnavailable} {
		if errors.Is(err, e) {
			reason := e.Error()
			if e == ErrInsufficientFunds {
				reason = "insufficient_funds"
			}
			m.refusals.WithLabelValues(reason).Inc()
			return
		}
	}
}

func (s *service) RenewAgentFees(ctx context.Context) (int, error) {
	total := 0
	for {
		done, err := s.store.RenewAgentFees(ctx, s.cfg.FeeBatch)
		total += len(done)
		for _, r := range done {
			s.cache.Invalidate(ctx, r.UID)
			s.startRecharge(r.RechargeID)
			if r.Charged {
				s.billing.fees.WithLabelValues("renewed").Inc()
				s.log.InfoContext(ctx, "agent fee renewed", "uid", r.UID, "agent_id", r.AgentID)
			} else {
				s.billing.fees.WithLabelValues("paused").Inc()
				s.log.InfoContext(ctx, "agent paused: fee renewal unpaid", "uid", r.UID, "agent_id", r.AgentID)
			}
		}
		if err != nil {
			s.billing.schedErrs.Inc()
			return total, err
		}
		if len(done) < s.cfg.FeeBatch || ctx.Err() != nil {
			return total, nil
		}
	}
}

func (s *service) AgentFees(ctx context.Context, uid string) ([]AgentFee, error) {
	if err := requireUID(uid); err != nil {
		return nil, err
	}
	return s.store.AgentFees(ctx, uid)
}

// RunEvery runs fn at once and then every interval until ctx is done (a
// server.Worker body). A failed round is logged and retried at the next
// tick: a background job never stops the service.
func RunEvery(ctx context.Context, name string, interval time.Duration, logger *slog.Logger, fn func(context.Context) (int, error)) error {
	if logger == nil {
		logger = slog.Default()
	}
	worker.Every(ctx, interval, func(ctx context.Context) {
		if _, err := fn(ctx); err != nil && ctx.Err() == nil {
			logger.ErrorContext(ctx, name+" failed", "error", err)
		}
	})
	return nil
}
