package wallet

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// Billing (issue 16): spend controls, debt, agent fees, auto-recharge.

// Additional event types (payloads in proto/agentic/events/v1/wallet_events.proto).
const (
	TypeSpendWarning      = topics.WalletSpendWarning
	TypeBalanceLow        = topics.WalletBalanceLow
	TypeDepositReversed   = topics.WalletDepositReversed
	TypeDepositReinstated = topics.WalletDepositReinstated
	TypeAgentPaused       = topics.WalletAgentPaused
	TypeAgentResumed      = topics.WalletAgentResumed
	TypeRechargeFailed    = topics.WalletRechargeFailed
)

// Transfer types added for reversals and debt (see migrations/00003).
const (
	// TypeRefund: wallet → stripe clearing, the part of a refunded top-up the wallet still had.
	TypeRefund TransferType = "refund"
	// TypeDispute: wallet → stripe clearing, the same for a dispute's withdrawal.
	TypeDispute TransferType = "dispute"
	// TypeDebt: debt:<uid> → stripe clearing, the part already spent (owed; not in the history).
	TypeDebt TransferType = "debt"
	// TypeRepayment: wallet → debt:<uid>, a later credit paying the debt first.
	TypeRepayment TransferType = "repayment"
)

// The monthly agent fee: $10.00 per agent per 30-day period (the pricing).
const (
	AgentFeeMicros = 10 * MicrosPerDollar
	AgentFeePeriod = 30 * 24 * time.Hour
)

// Reserve metadata keys the wallet reads (set by conversations), and the
// metadata of a fee's expense.
const (
	MetaAgentID   = "agent_id"
	MetaAgentName = "agent_name"
	MetaKind      = "kind"
	KindAgentFee  = "agent_fee"
	// MetaRechargeID is set on a recharge's PaymentIntent (and MetaUID).
	MetaRechargeID = "recharge_id"
	MetaUID        = "uid"
)

// DebtAccount is the ledger account of what uid owes (kind user_debt, never
// positive: the debt is its negated balance).
func DebtAccount(uid string) string { return "debt:" + uid }

// Settings bounds (dollars in the API: $0.50 .. $10,000, whole cents).
const (
	MinSettingMicros = 500_000
	MaxSettingMicros = 10_000 * MicrosPerDollar
)

// Spend warning thresholds (Balance.limitWarning and the spend.warning event).
const (
	LimitWarning80  = "limit_80"
	LimitWarning100 = "limit_100"
)

// Refusal errors of Reserve besides ErrInsufficientFunds (gRPC
// FAILED_PRECONDITION with the reason as message and ErrorInfo reason).
var (
	// ErrMonthlyLimit: this month's usage plus what is on hold plus the new
	// reservation (and a due agent fee) would exceed the monthly limit.
	ErrMonthlyLimit = errors.New("monthly_limit_reached")
	// ErrDebtOutstanding: the user owes money after a refund or a lost dispute.
	ErrDebtOutstanding = errors.New("debt_outstanding")
	// ErrAgentPaused: the agent's monthly fee is due and the wallet cannot pay it.
	ErrAgentPaused = errors.New("agent_paused")
	// ErrNoSavedCard: auto-recharge enabled without a card saved at Stripe.
	ErrNoSavedCard = errors.New("no saved card")
)

// SettingsError is an invalid billing setting (HTTP 400 invalid_settings).
type SettingsError struct{ Message string }

func (e *SettingsError) Error() string { return e.Message }

// AutoRechargeSettings is "when my available balance falls below Threshold, add Amount".
type AutoRechargeSettings struct {
	Enabled         bool
	ThresholdMicros *int64
	AmountMicros    *int64
}

// BillingSettings are the user's spend controls (nil = not set).
type BillingSettings struct {
	MonthlyLimitMicros        *int64
	LowBalanceThresholdMicros *int64
	AutoRecharge              AutoRechargeSettings
}

// AutoRechargeState is the auto-recharge part of the balance view.
type AutoRechargeState struct {
	HasCard        bool
	CardLabel      string
	DisabledReason string
	LastFailure    string
	InFlight       bool
}

// BalanceView is what GET /api/user/balance shows.
type BalanceView struct {
	Balance
	DebtMicros       int64
	MonthUsageMicros int64
	Settings         BillingSettings
	AutoRecharge     AutoRechargeState
	// LimitRefused: an answer was refused this month because of the current
	// monthly limit (the limit is reached in effect even when the usage is a
	// little below it: the refused reservation did not fit).
	LimitRefused bool
}

// LowBalance reports whether the available balance is below the low-balance threshold.
func (v BalanceView) LowBalance() bool {
	t := v.Settings.LowBalanceThresholdMicros
	return t != nil && v.AvailableMicros() < *t
}

// LimitWarning is "", LimitWarning80 or LimitWarning100 for this month's
// usage against the monthly limit.
func (v BalanceView) LimitWarning() string {
	l := v.Settings.MonthlyLimitMicros
	if l == nil {
		return ""
	}
	return limitWarning(v.MonthUsageMicros, *l, v.LimitRefused)
}

func limitWarning(usage, limit int64, refused bool) string {
	switch {
	case usage >= limit || refused:
		return LimitWarning100
	case usage*10 >= limit*8:
		return LimitWarning80
	}
	return ""
}

// DollarsToMicros converts a dollar amount from the API to micro-dollars; it
// must be a whole number of cents.
func DollarsToMicros(field string, d float64) (int64, error) {
	if math.IsNaN(d) || math.IsInf(d, 0) {
		return 0, &SettingsError{Message: field + " must be a number"}
	}
	cents := math.Round(d * 100)
	if math.Abs(d*100-cents) > 1e-6 {
		return 0, &SettingsError{Message: field + " must be a whole number of cents"}
	}
	if cents < -1e12 || cents > 1e12 {
		return 0, &SettingsError{Message: field + " must be between 0.50 and 10000"}
	}
	return int64(cents) * MicrosPerCent, nil
}

// ValidateSettings checks the spend controls: every amount set is $0.50 ..
// $10,000; enabled auto-recharge needs a threshold and an amount (> 0).
func ValidateSettings(s BillingSettings) error {
	check := func(field string, v *int64, required bool) error {
		if v == nil {
			if required {
				return &SettingsError{Message: field + " is required when auto-recharge is enabled"}
			}
			return nil
		}
		if *v <= 0 && field == "autoRecharge.amount" {
			return &SettingsError{Message: field + " must be greater than 0"}
		}
		if *v < MinSettingMicros || *v > MaxSettingMicros {
			return &SettingsError{Message: field + " must be between 0.50 and 10000 dollars"}
		}
		if *v%MicrosPerCent != 0 {
			return &SettingsError{Message: field + " must be a whole number of cents"}
		}
		return nil
	}
	if err := check("monthlyLimit", s.MonthlyLimitMicros, false); err != nil {
		return err
	}
	if err := check("lowBalanceThreshold", s.LowBalanceThresholdMicros, false); err != nil {
		return err
	}
	if err := check("autoRecharge.amount", s.AutoRecharge.AmountMicros, s.AutoRecharge.Enabled); err != nil {
		return err
	}
	return check("autoRecharge.threshold", s.AutoRecharge.ThresholdMicros, s.AutoRecharge.Enabled)
}

// monthKey formats the first day of a UTC month as the events show it ("2026-01").
func monthKey(month time.Time) string { return month.UTC().Format("2006-01") }

// FormatPeriod renders a fee period as the history shows it, "Dec 1 – Dec 30"
// (UTC; the end shown is the last day the period covers).
func FormatPeriod(start, end time.Time) string {
	return start.UTC().Format("Jan 2") + " – " + end.Add(-24*time.Hour).UTC().Format("Jan 2")
}

// FeeDescription is the history line of an agent fee.
func FeeDescription(agentName string, start, end time.Time) string {
	if agentName == "" {
		agentName = "Agent"
	}
	return fmt.Sprintf("Agentic User fee · %s · %s", agentName, FormatPeriod(start, end))
}
