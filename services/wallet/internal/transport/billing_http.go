package transport

import (
	"context"
	"net/http"
	"time"

	"github.com/agentic-app/agentic/services/platform/server"
	"github.com/agentic-app/agentic/services/wallet/internal/endpoints"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

// Billing routes (docs/billing-api.md).
const (
	PathBillingSettings = "/api/user/billing-settings"
	PathAgentFees       = "/api/user/agent-fees"
	PathSetupSession    = "/api/stripe/setup-session"
)

// ErrNoSavedCard is the 400 for enabling auto-recharge without a card.
var ErrNoSavedCard = &server.Error{Status: http.StatusBadRequest, Code: "no_saved_card",
	Message: "Save a card for auto-recharge first (Stripe setup), then enable auto-recharge."}

// dollarsPtr converts optional micro-dollars to an optional dollar number (null when unset).
func dollarsPtr(m *int64) *float64 {
	if m == nil {
		return nil
	}
	d := Dollars(*m)
	return &d
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// balanceJSON is docs/billing-api.md's Balance.
func balanceJSON(v wallet.BalanceView) map[string]any {
	var warning *string
	if w := v.LimitWarning(); w != "" {
		warning = &w
	}
	// Each figure is converted from integer micro-dollars on its own (no
	// float arithmetic on dollars).
	return map[string]any{
		"balance":             Dollars(v.Micros),
		"held":                Dollars(v.HeldMicros),
		"available":           Dollars(v.AvailableMicros()),
		"debt":                Dollars(v.DebtMicros),
		"monthUsage":          Dollars(v.MonthUsageMicros),
		"monthlyLimit":        dollarsPtr(v.Settings.MonthlyLimitMicros),
		"lowBalanceThreshold": dollarsPtr(v.Settings.LowBalanceThresholdMicros),
		"lowBalance":          v.LowBalance(),
		"limitWarning":        warning,
		"autoRecharge": map[string]any{
			"enabled":        v.Settings.AutoRecharge.Enabled,
			"threshold":      dollarsPtr(v.Settings.AutoRecharge.ThresholdMicros),
			"amount":         dollarsPtr(v.Settings.AutoRecharge.AmountMicros),
			"hasCard":        v.AutoRecharge.HasCard,
			"cardLabel":      nullString(v.AutoRecharge.CardLabel),
			"disabledReason": nullString(v.AutoRecharge.DisabledReason),
			"lastFailure":    nullString(v.AutoRecharge.LastFailure),
			"inFlight":       v.AutoRecharge.InFlight,
		},
	}
}

func encodeBalanceResponse(_ context.Context, w http.ResponseWriter, resp any) error {
	v := resp.(endpoints.BalanceViewResponse).View
	w.Header().Set("Cache-Control", "no-store")
	server.WriteJSON(w, http.StatusOK, map[string]any{"success": true, "data": balanceJSON(v)})
	return nil
}

// settingsJSON is docs/billing-api.md's BillingSettings (dollars).
type settingsJSON struct {
	MonthlyLimit        *float64 `json:"monthlyLimit"`
	LowBalanceThreshold *float64 `json:"lowBalanceThreshold"`
	AutoRecharge        *struct {
		Enabled   *bool    `json:"enabled"`
		Threshold *float64 `json:"threshold"`
		Amount    *float64 `json:"amount"`
	} `json:"autoRecharge"`
}

func decodeGetSettings(ctx context.Context, _ *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.SettingsRequest{UID: c.UID}, nil
}

// decodePutSettings reads a whole BillingSettings (PUT replaces: a missing
// field is null, a missing autoRecharge is disabled).
func decodePutSettings(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var body settingsJSON
	if err := server.DecodeJSON(nil, r, &body); err != nil {
		return nil, err
	}
	micros := func(field string, d *float64) (*int64, error) {
		if d == nil {
			return nil, nil
		}
		m, err := wallet.DollarsToMicros(field, *d)
		if err != nil {
			return nil, err
		}
		return &m, nil
	}
	var bs wallet.BillingSettings
	if bs.MonthlyLimitMicros, err = micros("monthlyLimit", body.MonthlyLimit); err != nil {
		return nil, err
	}
	if bs.LowBalanceThresholdMicros, err = micros("lowBalanceThreshold", body.LowBalanceThreshold); err != nil {
		return nil, err
	}
	if ar := body.AutoRecharge; ar != nil {
		bs.AutoRecharge.Enabled = ar.Enabled != nil && *ar.Enabled
		if bs.AutoRecharge.ThresholdMicros, err = micros("autoRecharge.threshold", ar.Threshold); err != nil {
			return nil, err
		}
		if bs.AutoRecharge.AmountMicros, err = micros("autoRecharge.amount", ar.Amount); err != nil {
			return nil, err
		}
	}
	return endpoints.SettingsRequest{UID: c.UID, Settings: &bs}, nil
}

func settingsOut(s wallet.BillingSettings) map[string]any {
	return map[string]any{
		"monthlyLimit":        dollarsPtr(s.MonthlyLimitMicros),
		"lowBalanceThreshold": dollarsPtr(s.LowBalanceThresholdMicros),
		"autoRecharge": map[string]any{
			"enabled":   s.AutoRecharge.Enabled,
			"threshold": dollarsPtr(s.AutoRecharge.ThresholdMicros),
			"amount":    dollarsPtr(s.AutoRecharge.AmountMicros),
		},
	}
}

func encodeSettingsResponse(_ context.Context, w http.ResponseWriter, resp any) error {
	w.Header().Set("Cache-Control", "no-store")
	server.WriteJSON(w, http.StatusOK, map[string]any{"success": true, "data": settingsOut(resp.(endpoints.SettingsResponse).Settings)})
	return nil
}

// encodeAgentFees answers [{agentId, agentName, periodStart, periodEnd, status}].
func encodeAgentFees(_ context.Context, w http.ResponseWriter, resp any) error {
	fees := resp.(endpoints.AgentFeesResponse).Fees
	out := make([]map[string]any, len(fees))
	for i, f := range fees {
		status := "paid"
		if f.Paused {
			status = "paused"
		}
		out[i] = map[string]any{
			"agentId": f.AgentID, "agentName": f.AgentName, "status": status,
			"periodStart": f.PeriodStart.UTC().Format(time.RFC3339), "periodEnd": f.PeriodEnd.UTC().Format(time.RFC3339),
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	server.WriteJSON(w, http.StatusOK, map[string]any{"success": true, "data": out})
	return nil
}

// decodeSetupSession takes no body (an empty JSON object is accepted too).
func decodeSetupSession(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var body struct{}
	if err := server.DecodeJSON(nil, r, &body, server.AllowEmpty()); err != nil {
		return nil, err
	}
	return endpoints.SetupSessionRequest{UID: c.UID, Email: c.Email}, nil
}

func encodeSetupSession(_ context.Context, w http.ResponseWriter, resp any) error {
	ps := resp.(endpoints.SetupSessionResponse).Session
	w.Header().Set("Cache-Control", "no-store")
	server.WriteJSON(w, http.StatusOK, map[string]any{"success": true, "data": map[string]any{"url": ps.URL, "sessionId": ps.ID}})
	return nil
}
