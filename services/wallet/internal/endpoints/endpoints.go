// Package endpoints adapts the wallet.Service to go-kit endpoints and wraps
// them with logging, instrumenting and tracing middleware.
package endpoints

import (
	"context"
	"log/slog"

	"github.com/go-kit/kit/endpoint"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/platform/endpointmw"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

// Set holds one endpoint per service method.
type Set struct {
	Balance               endpoint.Endpoint
	Transactions          endpoint.Endpoint
	CreateCheckoutSession endpoint.Endpoint
	StripeWebhook         endpoint.Endpoint
	Charge                endpoint.Endpoint
	Credit                endpoint.Endpoint
	GetBalance            endpoint.Endpoint
	Reserve               endpoint.Endpoint
	Capture               endpoint.Endpoint
	Release               endpoint.Endpoint
	GetSettings           endpoint.Endpoint
	PutSettings           endpoint.Endpoint
	AgentFees             endpoint.Endpoint
	SetupSession          endpoint.Endpoint
	ExportTransactions    endpoint.Endpoint
	// Earnings (issue 28).
	Earnings         endpoint.Endpoint
	EarningsSeries   endpoint.Endpoint
	TransferEarnings endpoint.Endpoint
	// Payouts (payouts.go, set by AddPayouts).
	PayoutAccountLink endpoint.Endpoint
	CreatePayout      endpoint.Endpoint
	ListPayouts       endpoint.Endpoint
}

// Requests and responses.
type (
	BalanceRequest struct {
		UID                    string
		IncludeEarningsAndDebt bool
	}
	BalanceResponse struct {
		Balance wallet.Balance
		// With IncludeEarningsAndDebt: pending + available earnings + payouts
		// in transit, and the debt.
		EarningsMicros, DebtMicros int64
	}
	BalanceViewResponse struct{ View wallet.BalanceView }
	SettingsRequest     struct {
		UID      string
		Settings *wallet.BillingSettings // nil: read
	}
	SettingsResponse    struct{ Settings wallet.BillingSettings }
	AgentFeesResponse   struct{ Fees []wallet.AgentFee }
	SetupSessionRequest struct{ UID, Email string }
	ExportRequest       struct {
		UID    string
		Filter wallet.ExportFilter
	}
	ExportResponse       struct{ Items []wallet.Transfer }
	SetupSessionResponse struct{ Session wallet.ProviderSession }
	TransactionsRequest  struct {
		UID   string
		Query wallet.PageQuery
	}
	TransactionsResponse struct{ Page wallet.Page }
	CheckoutRequest      struct{ Request wallet.CheckoutRequest }
	CheckoutResponse     struct{ Result wallet.CheckoutResult }
	WebhookRequest       struct {
		Payload   []byte
		Signature string
	}
	WebhookResponse  struct{ Result wallet.WebhookResult }
	TransferRequest  struct{ Request wallet.TransferRequest }
	TransferResponse struct{ Result wallet.PostResult }
	ReserveRequest   struct{ Request wallet.ReserveRequest }
	CaptureRequest   struct{ Request wallet.CaptureRequest }
	ReleaseRequest   struct{ HoldID string }
	HoldResponse     struct{ Result wallet.HoldResult }

	EarningsResponse      struct{ View wallet.EarningsView }
	EarningsSeriesRequest struct {
		UID   string
		Query wallet.SeriesQuery
	}
	EarningsSeriesResponse struct {
		Query wallet.SeriesQuery
		Days  []wallet.EarningsDay
	}
	TransferEarningsRequest struct {
		UID          string
		AmountMicros int64
	}
	TransferEarningsResponse struct{ Result wallet.EarningsTransferResult }
)

// New builds the endpoint set with middleware applied (tracing outermost,
// then instrumenting, then logging).
func New(svc wallet.Service, logger *slog.Logger, reg prometheus.Registerer) Set {
	if logger == nil {
		logger = slog.Default()
	}
	wrap := endpointmw.Chain("wallet", logger, reg, Outcome)
	return Set{
		Balance: wrap("Balance", func(ctx context.Context, req any) (any, error) {
			v, err := svc.Balance(ctx, req.(BalanceRequest).UID)
			if err != nil {
				return nil, err
			}
			return BalanceViewResponse{View: v}, nil
		}),
		GetSettings: wrap("GetSettings", func(ctx context.Context, req any) (any, error) {
			st, err := svc.Settings(ctx, req.(SettingsRequest).UID)
			if err != nil {
				return nil, err
			}
			return SettingsResponse{Settings: st}, nil
		}),
		PutSettings: wrap("PutSettings", func(ctx context.Context, req any) (any, error) {
			r := req.(SettingsRequest)
			st, err := svc.PutSettings(ctx, r.UID, *r.Settings)
			if err != nil {
				return nil, err
			}
			return SettingsResponse{Settings: st}, nil
		}),
		SetupSession: wrap("SetupSession", func(ctx context.Context, req any) (any, error) {
			r := req.(SetupSessionRequest)
			ps, err := svc.CreateSetupSession(ctx, r.UID, r.Email)
			if err != nil {
				return nil, err
			}
			return SetupSessionResponse{Session: ps}, nil
		}),
		ExportTransactions: wrap("ExportTransactions", func(ctx context.Context, req any) (any, error) {
			r := req.(ExportRequest)
			items, err := svc.ExportTransactions(ctx, r.UID, r.Filter)
			if err != nil {
				return nil, err
			}
			return ExportResponse{Items: items}, nil
		}),
		Earnings: wrap("Earnings", func(ctx context.Context, req any) (any, error) {
			v, err := svc.Earnings(ctx, req.(BalanceRequest).UID)
			if err != nil {
				return nil, err
			}
			return EarningsResponse{View: v}, nil
		}),
		EarningsSeries: wrap("EarningsSeries", func(ctx context.Context, req any) (any, error) {
			r := req.(EarningsSeriesRequest)
			days, err := svc.EarningsSeries(ctx, r.UID, r.Query)
			if err != nil {
				return nil, err
			}
			return EarningsSeriesResponse{Query: r.Query, Days: days}, nil
		}),
		TransferEarnings: wrap("TransferEarnings", func(ctx context.Context, req any) (any, error) {
			r := req.(TransferEarningsRequest)
			res, err := svc.TransferEarnings(ctx, r.UID, r.AmountMicros)
			if err != nil {
				return nil, err
			}
			return TransferEarningsResponse{Result: res}, nil
		}),
		AgentFees: wrap("AgentFees", func(ctx context.Context, req any) (any, error) {
			fees, err := svc.AgentFees(ctx, req.(BalanceRequest).UID)
			if err != nil {
				return nil, err
			}
			return AgentFeesResponse{Fees: fees}, nil
		}),
		Transactions: wrap("Transactions", func(ctx context.Context, req any) (any, error) {
			r := req.(TransactionsRequest)
			p, err := svc.Transactions(ctx, r.UID, r.Query)
			if err != nil {
				return nil, err
			}
			return TransactionsResponse{Page: p}, nil
		}),
		CreateCheckoutSession: wrap("CreateCheckoutSession", func(ctx context.Context, req any) (any, error) {
			res, err := svc.CreateCheckoutSession(ctx, req.(CheckoutRequest).Request)
			if err != nil {
				return nil, err
			}
			return CheckoutResponse{Result: res}, nil
		}),
		StripeWebhook: wrap("StripeWebhook", func(ctx context.Context, req any) (any, error) {
			r := req.(WebhookRequest)
			res, err := svc.HandleStripeWebhook(ctx, r.Payload, r.Signature)
			if err != nil {
				return nil, err
			}
			return WebhookResponse{Result: res}, nil
		}),
		Charge: wrap("Charge", func(ctx context.Context, req any) (any, error) {
			res, err := svc.Charge(ctx, req.(TransferRequest).Request)
			if err != nil {
				return nil, err
			}
			return TransferResponse{Result: res}, nil
		}),
		Credit: wrap("Credit", func(ctx context.Context, req any) (any, error) {
			res, err := svc.Credit(ctx, req.(TransferRequest).Request)
			if err != nil {
				return nil, err
			}
			return TransferResponse{Result: res}, nil
		}),
		GetBalance: wrap("GetBalance", func(ctx context.Context, req any) (any, error) {
			r := req.(BalanceRequest)
			b, err := svc.GetBalance(ctx, r.UID)
			if err != nil {
				return nil, err
			}
			out := BalanceResponse{Balance: b}
			if r.IncludeEarningsAndDebt {
				e, err := svc.Earnings(ctx, r.UID)
				if err != nil {
					return nil, err
				}
				out.EarningsMicros = e.PendingMicros + e.AvailableMicros + e.Payouts.InTransitMicros
				v, err := svc.Balance(ctx, r.UID)
				if err != nil {
					return nil, err
				}
				out.DebtMicros = v.DebtMicros
			}
			return out, nil
		}),
		Reserve: wrap("Reserve", func(ctx context.Context, req any) (any, error) {
			res, err := svc.Reserve(ctx, req.(ReserveRequest).Request)
			if err != nil {
				return nil, err
			}
			return HoldResponse{Result: res}, nil
		}),
		Capture: wrap("Capture", func(ctx context.Context, req any) (any, error) {
			res, err := svc.Capture(ctx, req.(CaptureRequest).Request)
			if err != nil {
				return nil, err
			}
			return HoldResponse{Result: res}, nil
		}),
		Release: wrap("Release", func(ctx context.Context, req any) (any, error) {
			res, err := svc.Release(ctx, req.(ReleaseRequest).HoldID)
			if err != nil {
				return nil, err
			}
			return HoldResponse{Result: res}, nil
		}),
	}
}

// Outcome classifies an endpoint result: "success", "client_error" (the
// caller's fault: validation, not found, bad input), "canceled" or "error".
func Outcome(err error) string { return outcome(err) }

var outcome = endpointmw.Default(endpointmw.ClientErrors(wallet.IsClientError))
