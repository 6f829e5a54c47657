package wallet

import (
	"context"
	"fmt"
)

// Earnings implements Service: the store's view (matured first) with the
// payouts' figures (none without a PayoutSummarizer).
func (s *service) Earnings(ctx context.Context, uid string) (EarningsView, error) {
	if err := requireUID(uid); err != nil {
		return EarningsView{}, err
	}
	v, err := s.store.Earnings(ctx, uid)
	if err != nil {
		return EarningsView{}, err
	}
	v.Payouts = PayoutSummary{AccountStatus: PayoutAccountNone}
	if s.cfg.Payouts != nil {
		p, err := s.cfg.Payouts.PayoutSummary(ctx, uid)
		if err != nil {
			return EarningsView{}, fmt.Errorf("payout summary: %w", err)
		}
		if p.AccountStatus == "" {
			p.AccountStatus = PayoutAccountNone
		}
		v.Payouts = p
	}
	return v, nil
}

// EarningsSeries implements Service.
func (s *service) EarningsSeries(ctx context.Context, uid string, q SeriesQuery) ([]EarningsDay, error) {
	if err := requireUID(uid); err != nil {
		return nil, err
	}
	q, err := ValidateSeries(q, s.cfg.Now())
	if err != nil {
		return nil, err
	}
	return s.store.EarningsSeries(ctx, uid, q)
}

// TransferEarnings implements Service: at least $0.01, at most MaxTransferMicros.
func (s *service) TransferEarnings(ctx context.Context, uid string, micros int64) (EarningsTransferResult, error) {
	if err := requireUID(uid); err != nil {
		return EarningsTransferResult{}, err
	}
	if micros < MinEarningsTransferMicros || micros > MaxTransferMicros {
		return EarningsTransferResult{}, &ValidationError{Message: "Enter an amount of at least $0.01."}
	}
	res, err := s.store.TransferEarnings(ctx, uid, micros)
	if err != nil {
		return EarningsTransferResult{}, err
	}
	s.cache.Invalidate(ctx, uid)
	s.startRecharge(res.RechargeID)
	s.log.InfoContext(ctx, "earnings transferred to the wallet", "uid", uid, "amount_micros", micros)
	return res, nil
}

// MatureEarnings implements Service (one round of the maturation ticker).
func (s *service) MatureEarnings(ctx context.Context) (int, error) {
	total := 0
	for {
		uids, err := s.store.MatureEarnings(ctx, s.cfg.EarningsBatch)
		total += len(uids)
		if err != nil {
			s.billing.schedErrs.Inc()
			return total, err
		}
		if len(uids) < s.cfg.EarningsBatch || ctx.Err() != nil {
			break
		}
	}
	if total > 0 {
		s.log.InfoContext(ctx, "earnings matured", "creators", total)
	}
	return total, nil
}
