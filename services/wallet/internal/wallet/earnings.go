package wallet

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// Creator earnings (issue 28, migrations/00007_earnings.sql). A consumer of
// a listed agent pays cost + fee + markup (+ greeting); the capture books the
// whole total as the consumer's expense to platform revenue and, in the same
// transaction, an 'earning' transfer of markup + greeting from platform
// revenue to the creator's pending earnings. Pending earnings mature after
// the earnings hold; available earnings go to the creator's wallet or out as
// payouts.

// TypeEarningsCredited is the event of a credited earning (WalletEarningsCredited).
const TypeEarningsCredited = topics.WalletEarningsCredited

// Transfer types of earnings and payouts.
const (
	// TypeEarning: system:platform_revenue → earnings_pending:<creator>.
	TypeEarning TransferType = "earning"
	// TypeEarningRelease: pending → available, after the earnings hold.
	TypeEarningRelease TransferType = "earning_release"
	// TypeEarningTransfer: available → the creator's wallet (shown in the
	// history as a deposit "Transfer from earnings").
	TypeEarningTransfer TransferType = "earning_transfer"
	// TypePayout: available → payouts_in_transit (a Stripe transfer started).
	TypePayout TransferType = "payout"
	// TypePayoutPaid: in transit → system:creator_payouts.
	TypePayoutPaid TransferType = "payout_paid"
	// TypePayoutReturn: in transit → available (failed), or
	// system:creator_payouts → available (reversed).
	TypePayoutReturn TransferType = "payout_return"
)

// AccountCreatorPayouts is the system account of money sent to creators'
// connected accounts.
const AccountCreatorPayouts = "system:creator_payouts"

// EarningsPendingAccount is uid's earnings that have not matured yet.
func EarningsPendingAccount(uid string) string { return "earnings_pending:" + uid }

// EarningsAvailableAccount is uid's earnings that may be transferred or paid out.
func EarningsAvailableAccount(uid string) string { return "earnings_available:" + uid }

// PayoutsInTransitAccount is uid's payouts on their way to the connected account.
func PayoutsInTransitAccount(uid string) string { return "payouts_in_transit:" + uid }

// Metadata keys of a consumer's Reserve, Capture and Charge (set by
// conversations).
const (
	MetaPayerRole      = "payer_role"
	PayerRoleConsumer  = "consumer"
	MetaCreatorUID     = "creator_uid"
	MetaMarkupMicros   = "markup_micros"
	MetaGreetingMicros = "greeting_micros"
	MetaMessageID      = "message_id"
	// KindEarningsDay marks a history line that sums a day's earnings of an agent.
	KindEarningsDay = "earnings_day"
)

// Earnings settings.
const (
	// DefaultEarningsHold is how long earnings stay pending (EARNINGS_HOLD).
	DefaultEarningsHold = 7 * 24 * time.Hour
	// MinimumWithdrawalMicros is the smallest payout ($10.00).
	MinimumWithdrawalMicros = 10 * MicrosPerDollar
	// MinEarningsTransferMicros is the smallest transfer to the wallet ($0.01).
	MinEarningsTransferMicros = MicrosPerCent
	// DefaultSeriesDays and MaxSeriesDays bound GET /api/user/earnings/series.
	DefaultSeriesDays = 30
	MaxSeriesDays     = 366
	// TransferFromEarnings is the history line of an earning_transfer.
	TransferFromEarnings = "Transfer from earnings"
)

// ErrAgentUnavailable refuses a consumer's Reserve: the agent is paused or
// its creator cannot pay its monthly fee (gRPC FAILED_PRECONDITION, reason
// agent_unavailable). Nothing is held.
var ErrAgentUnavailable = errors.New("agent_unavailable")

// ErrEarningsInsufficient: more was asked of the available earnings than
// they hold (HTTP 409 earnings_insufficient).
var ErrEarningsInsufficient = errors.New("earnings_insufficient")

// EarningsShortError is an ErrEarningsInsufficient with what is available.
type EarningsShortError struct{ AvailableMicros int64 }

func (e *EarningsShortError) Error() string {
	return fmt.Sprintf("%v: available %d", ErrEarningsInsufficient, e.AvailableMicros)
}

// Unwrap makes an EarningsShortError an ErrEarningsInsufficient.
func (e *EarningsShortError) Unwrap() error { return ErrEarningsInsufficient }

// PayoutSummary is the payouts part of GET /api/user/earnings (helper P's
// payouts implement PayoutSummarizer).
type PayoutSummary struct {
	PaidOutMicros, InTransitMicros int64
	// AccountStatus is none, onboarding, enabled or restricted; AccountReason
	// says why a restricted account cannot receive payouts.
	AccountStatus, AccountReason string
}

// PayoutSummarizer reports a creator's payouts and payout account.
type PayoutSummarizer interface {
	PayoutSummary(ctx context.Context, uid string) (PayoutSummary, error)
}

// Payout account states.
const (
	PayoutAccountNone = "none"
)

// EarningSplit is the creator's part of a consumer's answer.
type EarningSplit struct {
	CreatorUID                   string
	MarkupMicros, GreetingMicros int64
}

// Micros is what the creator earns.
func (e EarningSplit) Micros() int64 { return e.MarkupMicros + e.GreetingMicros }

// IsConsumer reports whether metadata describes a consumer's answer.
func IsConsumer(meta map[string]string) bool { return meta[MetaPayerRole] == PayerRoleConsumer }

// ConsumerSplit reads the creator's part from a consumer's Capture or Charge
// metadata (ok false for other answers). The amounts are decimal
// micro-dollars ≥ 0 (missing: 0); creator_uid is required.
func ConsumerSplit(meta map[string]string) (EarningSplit, bool, error) {
	if !IsConsumer(meta) {
		return EarningSplit{}, false, nil
	}
	e := EarningSplit{CreatorUID: strings.TrimSpace(meta[MetaCreatorUID])}
	if e.CreatorUID == "" {
		return EarningSplit{}, true, &ValidationError{Message: "metadata creator_uid is required when payer_role is consumer"}
	}
	parse := func(key string) (int64, error) {
		v := strings.TrimSpace(meta[key])
		if v == "" {
			return 0, nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || n > MaxTransferMicros {
			return 0, &ValidationError{Message: "metadata " + key + " must be a whole number of micro-dollars between 0 and 1000000000000"}
		}
		return n, nil
	}
	var err error
	if e.MarkupMicros, err = parse(MetaMarkupMicros); err != nil {
		return EarningSplit{}, true, err
	}
	if e.GreetingMicros, err = parse(MetaGreetingMicros); err != nil {
		return EarningSplit{}, true, err
	}
	return e, true, nil
}

// validateSplit checks a consumer's split against the payer and the amount charged.
func validateSplit(e EarningSplit, payer string, charged int64) error {
	if e.CreatorUID == payer {
		return &ValidationError{Message: "metadata creator_uid must not be the payer"}
	}
	if e.Micros() > charged {
		return &ValidationError{Message: fmt.Sprintf("markup_micros + greeting_micros (%d) exceed the amount charged (%d)", e.Micros(), charged)}
	}
	return nil
}

// firstOf returns the first non-empty value of keys in the maps, in order.
func firstOf(keys []string, maps ...map[string]string) string {
	for _, m := range maps {
		for _, k := range keys {
			if v := strings.TrimSpace(m[k]); v != "" {
				return v
			}
		}
	}
	return ""
}

// EarningsDayDescription is the creator's history line of an agent's day:
// "Earnings · Math Tutor · Nov 26" (UTC day).
func EarningsDayDescription(agentName string, day time.Time) string {
	if agentName == "" {
		agentName = "Agent"
	}
	return "Earnings · " + agentName + " · " + day.UTC().Format("Jan 2")
}

// Display is the type the history shows for t: an earning_transfer is a deposit.
func (t TransferType) Display() TransferType {
	if t == TypeEarningTransfer {
		return TypeDeposit
	}
	return t
}

// AgentEarnings is one agent's line of GET /api/user/earnings.
type AgentEarnings struct {
	AgentID, Name  string
	Answers, Users int64
	EarnedMicros   int64
}

// EarningsView is GET /api/user/earnings.
type EarningsView struct {
	PendingMicros, AvailableMicros int64
	Payouts                        PayoutSummary
	Hold                           time.Duration
	ByAgent                        []AgentEarnings
}

// EarningsDay is one agent's UTC day in GET /api/user/earnings/series.
type EarningsDay struct {
	Date          time.Time
	AgentID, Name string
	EarnedMicros  int64
	Answers       int64
}

// SeriesQuery selects days (UTC dates, inclusive) and optionally one agent.
type SeriesQuery struct {
	From, To time.Time
	AgentID  string
}

// EarningsTransferResult is POST /api/user/earnings/transfer-to-wallet.
type EarningsTransferResult struct {
	Transfer          Transfer
	TransferredMicros int64
	AvailableMicros   int64 // available earnings after it
	BalanceMicros     int64 // the wallet balance after it
	RechargeID        string
}

// ValidateSeries checks a series query and fills in the defaults: to is
// today (UTC), from DefaultSeriesDays-1 days before to; at most MaxSeriesDays.
func ValidateSeries(q SeriesQuery, now time.Time) (SeriesQuery, error) {
	today := time.Date(now.UTC().Year(), now.UTC().Month(), now.UTC().Day(), 0, 0, 0, 0, time.UTC)
	if q.To.IsZero() {
		q.To = today
		if !q.From.IsZero() && q.From.After(today) {
			q.To = q.From
		}
	}
	if q.From.IsZero() {
		q.From = q.To.AddDate(0, 0, -(DefaultSeriesDays - 1))
	}
	if q.To.Before(q.From) {
		return q, &RangeError{Message: "to must not be before from"}
	}
	if days := int(q.To.Sub(q.From).Hours()/24) + 1; days > MaxSeriesDays {
		return q, &RangeError{Message: fmt.Sprintf("the range must be at most %d days", MaxSeriesDays)}
	}
	if len(q.AgentID) > 200 {
		return q, &ValidationError{Message: "agentId is too long"}
	}
	return q, nil
}

// RangeError is an invalid date range (HTTP 400 invalid_range).
type RangeError struct{ Message string }

func (e *RangeError) Error() string { return e.Message }
