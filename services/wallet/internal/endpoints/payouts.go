package endpoints

import (
	"context"
	"errors"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/platform/endpointmw"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

// Payout requests and responses.
type (
	PayoutAccountLinkRequest  struct{ UID, Email string }
	PayoutAccountLinkResponse struct{ URL string }
	CreatePayoutRequest       struct {
		UID          string
		AmountMicros int64
	}
	PayoutResponse      struct{ Payout wallet.Payout }
	ListPayoutsRequest  struct{ UID string }
	ListPayoutsResponse struct{ Payouts []wallet.Payout }
)

// errNoPayouts answers when the set has no payouts service (tests).
var errNoPayouts = errors.New("payouts are not configured")

// AddPayouts sets the payout endpoints of s from p (the same middleware as New).
func (s *Set) AddPayouts(p wallet.PayoutAPI, logger *slog.Logger, reg prometheus.Registerer) {
	if logger == nil {
		logger = slog.Default()
	}
	classify := endpointmw.Default(endpointmw.ClientErrors(func(err error) bool {
		return wallet.IsClientError(err) || wallet.IsPayoutClientError(err)
	}))
	wrap := endpointmw.Chain("wallet", logger, reg, classify)
	s.PayoutAccountLink = wrap("PayoutAccountLink", func(ctx context.Context, req any) (any, error) {
		if p == nil {
			return nil, errNoPayouts
		}
		r := req.(PayoutAccountLinkRequest)
		url, err := p.AccountLink(ctx, r.UID, r.Email)
		if err != nil {
			return nil, err
		}
		return PayoutAccountLinkResponse{URL: url}, nil
	})
	s.CreatePayout = wrap("CreatePayout", func(ctx context.Context, req any) (any, error) {
		if p == nil {
			return nil, errNoPayouts
		}
		r := req.(CreatePayoutRequest)
		po, err := p.CreatePayout(ctx, r.UID, r.AmountMicros)
		if err != nil {
			return nil, err
		}
		return PayoutResponse{Payout: po}, nil
	})
	s.ListPayouts = wrap("ListPayouts", func(ctx context.Context, req any) (any, error) {
		if p == nil {
			return nil, errNoPayouts
		}
		list, err := p.Payouts(ctx, req.(ListPayoutsRequest).UID)
		if err != nil {
			return nil, err
		}
		return ListPayoutsResponse{Payouts: list}, nil
	})
}
