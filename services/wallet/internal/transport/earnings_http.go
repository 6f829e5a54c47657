package transport

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"time"

	httptransport "github.com/go-kit/kit/transport/http"

	"github.com/agentic-app/agentic/services/platform/server"
	"github.com/agentic-app/agentic/services/wallet/internal/endpoints"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

// Earnings routes (docs/billing-api.md, "Earnings").
const (
	PathEarnings         = "/api/user/earnings"
	PathEarningsSeries   = "/api/user/earnings/series"
	PathEarningsTransfer = "/api/user/earnings/transfer-to-wallet"
)

// transferAmountMsg is the 400 of a transfer below $0.01 (or not a number).
const transferAmountMsg = "Enter an amount of at least $0.01."

// registerEarnings adds the earnings routes (called by RegisterHTTP): the
// transfer moves money (fresh token), the reads do not.
func registerEarnings(mux *http.ServeMux, set endpoints.Set, protect, fresh func(http.Handler) http.Handler, logger *slog.Logger) {
	opts := server.KitOptions(encodeEarningsError(logger))
	server.Route(mux, http.MethodGet, PathEarnings, protect(httptransport.NewServer(
		set.Earnings, decodeBalanceRequest, encodeEarnings, opts...)))
	server.Route(mux, http.MethodGet, PathEarningsSeries, protect(httptransport.NewServer(
		set.EarningsSeries, decodeEarningsSeries, encodeEarningsSeries, opts...)))
	server.Route(mux, http.MethodPost, PathEarningsTransfer, fresh(httptransport.NewServer(
		set.TransferEarnings, decodeEarningsTransfer, encodeEarningsTransfer, opts...)))
}

// EarningsJSON is GET /api/user/earnings (dollars, like the balance).
func EarningsJSON(v wallet.EarningsView) map[string]any {
	account := map[string]any{"status": v.Payouts.AccountStatus}
	if v.Payouts.AccountStatus == "" {
		account["status"] = wallet.PayoutAccountNone
	}
	if v.Payouts.AccountReason != "" {
		account["reason"] = v.Payouts.AccountReason
	}
	byAgent := make([]map[string]any, len(v.ByAgent))
	for i, a := range v.ByAgent {
		byAgent[i] = map[string]any{"agentId": a.AgentID, "name": a.Name, "answers": a.Answers, "users": a.Users,
			"earned": Dollars(a.EarnedMicros)}
	}
	return map[string]any{
		"pending":           Dollars(v.PendingMicros),
		"available":         Dollars(v.AvailableMicros),
		"paidOut":           Dollars(v.Payouts.PaidOutMicros),
		"inTransit":         Dollars(v.Payouts.InTransitMicros),
		"currency":          "usd",
		"minimumWithdrawal": Dollars(wallet.MinimumWithdrawalMicros),
		"holdSeconds":       int64(v.Hold / time.Second),
		"payoutAccount":     account,
		"byAgent":           byAgent,
	}
}

func encodeEarnings(_ context.Context, w http.ResponseWriter, resp any) error {
	w.Header().Set("Cache-Control", "no-store")
	server.WriteJSON(w, http.StatusOK, EarningsJSON(resp.(endpoints.EarningsResponse).View))
	return nil
}

// decodeEarningsSeries reads from, to (YYYY-MM-DD, UTC) and agentId.
func decodeEarningsSeries(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	var sq wallet.SeriesQuery
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"from", &sq.From}, {"to", &sq.To}} {
		vals := q[p.name]
		if len(vals) > 1 {
			return nil, server.BadRequest("invalid_range", p.name+" may be given once")
		}
		if len(vals) == 0 || strings.TrimSpace(vals[0]) == "" {
			continue
		}
		d, err := time.Parse(time.DateOnly, strings.TrimSpace(vals[0]))
		if err != nil {
			return nil, server.BadRequest("invalid_range", p.name+" must be a date YYYY-MM-DD")
		}
		*p.dst = d
	}
	if len(q["agentId"]) > 1 {
		return nil, server.BadRequest("invalid_request", "agentId may be given once")
	}
	sq.AgentID = strings.TrimSpace(q.Get("agentId"))
	return endpoints.EarningsSeriesRequest{UID: c.UID, Query: sq}, nil
}

func encodeEarningsSeries(_ context.Context, w http.ResponseWriter, resp any) error {
	days := resp.(endpoints.EarningsSeriesResponse).Days
	out := make([]map[string]any, len(days))
	for i, d := range days {
		out[i] = map[string]any{"date": d.Date.UTC().Format(time.DateOnly), "agentId": d.AgentID, "name": d.Name,
			"earned": Dollars(d.EarnedMicros), "answers": d.Answers}
	}
	w.Header().Set("Cache-Control", "no-store")
	server.WriteJSON(w, http.StatusOK, map[string]any{"days": out})
	return nil
}

// decodeEarningsTransfer reads {amount} (dollars; micro-dollar precision).
func decodeEarningsTransfer(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var body struct {
		Amount *float64 `json:"amount"`
	}
	if err := server.DecodeJSON(nil, r, &body); err != nil {
		return nil, err
	}
	if body.Amount == nil || math.IsNaN(*body.Amount) || math.IsInf(*body.Amount, 0) ||
		*body.Amount*wallet.MicrosPerDollar < wallet.MinEarningsTransferMicros-0.5 || *body.Amount > float64(wallet.MaxTransferMicros/wallet.MicrosPerDollar) {
		return nil, &wallet.ValidationError{Message: transferAmountMsg}
	}
	return endpoints.TransferEarningsRequest{UID: c.UID, AmountMicros: int64(math.Round(*body.Amount * wallet.MicrosPerDollar))}, nil
}

func encodeEarningsTransfer(_ context.Context, w http.ResponseWriter, resp any) error {
	res := resp.(endpoints.TransferEarningsResponse).Result
	w.Header().Set("Cache-Control", "no-store")
	server.WriteJSON(w, http.StatusOK, map[string]any{
		"transferred": Dollars(res.TransferredMicros), "available": Dollars(res.AvailableMicros), "balance": Dollars(res.BalanceMicros),
	})
	return nil
}

// EarningsInsufficientMessage is the 409's message: what is available, with
// as many digits as a sub-cent amount needs ("$0.0042", never "$0.00" for
// money that is there).
func EarningsInsufficientMessage(availableMicros int64, what string) string {
	return "You have $" + wallet.FormatMicros(availableMicros) + " available to " + what + "."
}

func encodeEarningsError(logger *slog.Logger) httptransport.ErrorEncoder {
	fallback := encodeHTTPError(logger)
	return func(ctx context.Context, err error, w http.ResponseWriter) {
		var (
			ve *wallet.ValidationError
			re *wallet.RangeError
			se *wallet.EarningsShortError
		)
		switch {
		case errors.As(err, &se):
			server.WriteError(w, &server.Error{Status: http.StatusConflict, Code: server.CodeEarningsInsufficient,
				Message: EarningsInsufficientMessage(se.AvailableMicros, "transfer")})
		case errors.As(err, &ve) && ve.Message == transferAmountMsg:
			server.WriteValidationFailed(w, ve.Message, map[string]string{"amount": ve.Message})
		case errors.As(err, &re):
			server.WriteError(w, server.BadRequest("invalid_range", re.Message))
		default:
			fallback(ctx, err, w)
		}
	}
}
