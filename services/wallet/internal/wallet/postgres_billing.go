package wallet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/wallet/internal/ledger"
)

// Spend controls in the ledger (migrations/00003_spend_controls.sql). Every
// function here runs inside a ledger transaction that holds the user's wallet
// row lock, so what it reads about the user (usage, holds, debt, settings)
// cannot change underneath it: the limits it enforces are exact under any
// concurrency. Lock order after the wallet: hold → agent → holds account →
// debt account → settings → recharge → usage → system accounts.

// monthSQL is the first day of the current UTC month by the database clock
// (one clock for every replica; now() is the transaction's start).
const monthSQL = `(date_trunc('month', now() AT TIME ZONE 'UTC'))::date`

// lockWallet locks uid's wallet row; exists is false for a user without one.
func lockWallet(ctx context.Context, tx pgx.Tx, uid string) (available int64, exists bool, err error) {
	available, err = ledger.LockBalance(ctx, tx, UserAccount(uid))
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("lock wallet: %w", err)
	}
	return available, true, nil
}

// recordExpense adds amount to uid's usage of the current month and returns
// the month's usage after it.
func recordExpense(ctx context.Context, tx pgx.Tx, uid string, amount int64) (usage int64, month time.Time, err error) {
	err = tx.QueryRow(ctx, `INSERT INTO usage_months (uid, month, micros) VALUES ($1, `+monthSQL+`, $2)
		ON CONFLICT (uid, month) DO UPDATE SET micros = usage_months.micros + EXCLUDED.micros
		RETURNING micros, month`, uid, amount).Scan(&usage, &month)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("record usage: %w", err)
	}
	return usage, month, nil
}

// settingsRow is a billing_settings row (zero values when the user has none).
type settingsRow struct {
	BillingSettings
	exists         bool
	armed          bool
	customerID     string
	paymentMethod  string
	cardLabel      string
	failures       int
	disabledReason string
	lastFailure    string
	// retryReady: no back-off after a declined recharge is running.
	retryReady bool
}

// settingsColumns reads billing_settings aliased s (LEFT JOIN-safe).
const settingsColumns = `s.uid IS NOT NULL, s.monthly_limit_micros, s.low_balance_threshold_micros,
	COALESCE(s.low_balance_armed, true), COALESCE(s.auto_recharge_enabled, false), s.auto_recharge_threshold_micros,
	s.auto_recharge_amount_micros, COALESCE(s.stripe_customer_id, ''), COALESCE(s.payment_method_id, ''),
	COALESCE(s.card_label, ''), COALESCE(s.auto_recharge_failures, 0), COALESCE(s.auto_recharge_disabled_reason, ''),
	COALESCE(s.auto_recharge_last_failure, ''), (s.auto_recharge_retry_at IS NULL OR s.auto_recharge_retry_at <= now())`

func (r *settingsRow) dest() []any {
	return []any{&r.exists, &r.MonthlyLimitMicros, &r.LowBalanceThresholdMicros, &r.armed, &r.AutoRecharge.Enabled,
		&r.AutoRecharge.ThresholdMicros, &r.AutoRecharge.AmountMicros, &r.customerID, &r.paymentMethod, &r.cardLabel,
		&r.failures, &r.disabledReason, &r.lastFailure, &r.retryReady}
}

func readSettings(ctx context.Context, q ledger.Querier, uid string) (settingsRow, error) {
	var r settingsRow
	err := q.QueryRow(ctx, `SELECT `+settingsColumns+` FROM (SELECT 1) one
		LEFT JOIN billing_settings s ON s.uid = $1`, uid).Scan(r.dest()...)
	if err != nil {
		return settingsRow{}, fmt.Errorf("read billing settings: %w", err)
	}
	return r, nil
}

// spendWarning records a spend warning once per (user, month, threshold,
// limit) and enqueues its event when it is new.
func (s *PostgresStore) spendWarning(ctx context.Context, tx pgx.Tx, uid string, month time.Time, threshold string, limit, usage int64) error {
	var at time.Time
	err := tx.QueryRow(ctx, `INSERT INTO spend_warnings (uid, month, threshold, limit_micros, usage_micros)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING created_at`,
		uid, month, threshold, limit, usage).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // sent before
	}
	if err != nil {
		return fmt.Errorf("record spend warning: %w", err)
	}
	_, err = s.outbox.Enqueue(ctx, tx, userEvent(uid, TypeSpendWarning, &eventsv1.WalletSpendWarning{
		Uid: uid, Threshold: threshold, Month: monthKey(month), MonthUsageMicros: usage,
		MonthlyLimitMicros: limit, OccurredAt: ts(at),
	}))
	return err
}

// debitEffects is what afterDebit started.
type debitEffects struct {
	rechargeID string
}

// afterDebit runs after money left uid's wallet as usage (a capture, a
// charge, an agent fee), with the wallet's available balance and this
// month's usage after it: spend warnings at 80% and 100% of the monthly
// limit, the low-balance event once per crossing, and the auto-recharge
// trigger.
func (s *PostgresStore) afterDebit(ctx context.Context, tx pgx.Tx, uid string, available, usage int64, month time.Time) (debitEffects, error) {
	st, err := readSettings(ctx, tx, uid)
	if err != nil || !st.exists {
		return debitEffects{}, err
	}
	if l := st.MonthlyLimitMicros; l != nil {
		if usage*10 >= *l*8 {
			if err := s.spendWarning(ctx, tx, uid, month, LimitWarning80, *l, usage); err != nil {
				return debitEffects{}, err
			}
		}
		if usage >= *l {
			if err := s.spendWarning(ctx, tx, uid, month, LimitWarning100, *l, usage); err != nil {
				return debitEffects{}, err
			}
		}
	}
	if t := st.LowBalanceThresholdMicros; t != nil && st.armed && available < *t {
		var at time.Time
		if err := tx.QueryRow(ctx, `UPDATE billing_settings SET low_balance_armed = false WHERE uid = $1 RETURNING now()`,
			uid).Scan(&at); err != nil {
			return debitEffects{}, fmt.Errorf("disarm low balance: %w", err)
		}
		if _, err := s.outbox.Enqueue(ctx, tx, userEvent(uid, TypeBalanceLow, &eventsv1.WalletBalanceLow{
			Uid: uid, AvailableMicros: available, ThresholdMicros: *t, OccurredAt: ts(at),
		})); err != nil {
			return debitEffects{}, err
		}
	}
	return s.maybeStartRecharge(ctx, tx, uid, st, available)
}

// afterCredit runs after money came into uid's wallet from outside (a
// deposit, an income, a reinstated dispute), wallet locked: the debt is paid
// first, then fees of paused agents, then the low-balance event is re-armed
// if the wallet is back at its threshold. credit is the transfer that brought
// the money (its key makes the repayment's key).
func (s *PostgresStore) afterCredit(ctx context.Context, tx pgx.Tx, uid string, credit Transfer) (debitEffects, error) {
	available, err := s.repayDebt(ctx, tx, uid, credit)
	if err != nil {
		return debitEffects{}, err
	}
	eff, available, err := s.resumePausedAgents(ctx, tx, uid, available)
	if err != nil {
		return debitEffects{}, err
	}
	if _, err := tx.Exec(ctx, `UPDATE billing_settings SET low_balance_armed = true
		WHERE uid = $1 AND NOT low_balance_armed AND low_balance_threshold_micros <= $2`, uid, available); err != nil {
		return debitEffects{}, fmt.Errorf("re-arm low balance: %w", err)
	}
	return eff, nil
}

// userEvents enqueues evs in tx.
func (s *PostgresStore) enqueue(ctx context.Context, tx pgx.Tx, evs ...events.Event) error {
	for _, ev := range evs {
		if _, err := s.outbox.Enqueue(ctx, tx, ev); err != nil {
			return err
		}
	}
	return nil
}

// Settings returns uid's billing settings (all unset for a user without any).
func (s *PostgresStore) Settings(ctx context.Context, uid string) (BillingSettings, error) {
	st, err := readSettings(ctx, s.pool, uid)
	return st.BillingSettings, err
}

// PutSettings replaces uid's spend controls (validated by the caller) under
// the wallet lock. Enabling auto-recharge needs a saved card
// (ErrNoSavedCard); enabling it again after it was turned off clears the
// failure count and the reason. A changed low-balance threshold re-arms its
// event.
func (s *PostgresStore) PutSettings(ctx context.Context, uid string, bs BillingSettings) (BillingSettings, error) {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, _, err := lockWallet(ctx, tx, uid); err != nil {
			return err
		}
		cur, err := readSettings(ctx, tx, uid)
		if err != nil {
			return err
		}
		if bs.AutoRecharge.Enabled && cur.paymentMethod == "" {
			return ErrNoSavedCard
		}
		// A new row is never enabled (enabling needs a saved card, which
		// creates the row), so the inserted values say false and the update
		// takes $4: the CHECK holds for both.
		_, err = tx.Exec(ctx, `INSERT INTO billing_settings (uid, monthly_limit_micros, low_balance_threshold_micros,
				auto_recharge_enabled, auto_recharge_threshold_micros, auto_recharge_amount_micros)
			VALUES ($1, $2, $3, false, $5, $6)
			ON CONFLICT (uid) DO UPDATE SET
				monthly_limit_micros = EXCLUDED.monthly_limit_micros,
				low_balance_threshold_micros = EXCLUDED.low_balance_threshold_micros,
				low_balance_armed = billing_settings.low_balance_armed OR
					billing_settings.low_balance_threshold_micros IS DISTINCT FROM EXCLUDED.low_balance_threshold_micros,
				auto_recharge_enabled = $4,
				auto_recharge_threshold_micros = EXCLUDED.auto_recharge_threshold_micros,
				auto_recharge_amount_micros = EXCLUDED.auto_recharge_amount_micros,
				auto_recharge_failures = CASE WHEN $4 AND NOT billing_settings.auto_recharge_enabled
					THEN 0 ELSE billing_settings.auto_recharge_failures END,
				auto_recharge_disabled_reason = CASE WHEN $4 THEN NULL
					ELSE billing_settings.auto_recharge_disabled_reason END,
				auto_recharge_retry_at = CASE WHEN $4 AND NOT billing_settings.auto_recharge_enabled
					THEN NULL ELSE billing_settings.auto_recharge_retry_at END,
				updated_at = now()`,
			uid, bs.MonthlyLimitMicros, bs.LowBalanceThresholdMicros, bs.AutoRecharge.Enabled,
			bs.AutoRecharge.ThresholdMicros, bs.AutoRecharge.AmountMicros)
		if err != nil {
			return fmt.Errorf("save billing settings: %w", err)
		}
		return nil
	})
	if err != nil {
		return BillingSettings{}, err
	}
	return s.Settings(ctx, uid)
}

// Overview is the balance view of uid in one statement (one snapshot).
func (s *PostgresStore) Overview(ctx context.Context, uid string) (BalanceView, error) {
	var (
		v        BalanceView
		st       settingsRow
		inFlight bool
	)
	dest := append([]any{&v.Micros, &v.HeldMicros, &v.DebtMicros, &v.MonthUsageMicros, &v.LimitRefused, &inFlight}, st.dest()...)
	err := s.pool.QueryRow(ctx, `SELECT
			COALESCE((SELECT sum(balance_micros) FROM accounts WHERE id IN ($2, $3)), 0)::bigint,
			COALESCE((SELECT balance_micros FROM accounts WHERE id = $3), 0),
			COALESCE((SELECT -balance_micros FROM accounts WHERE id = $4), 0),
			COALESCE((SELECT micros FROM usage_months WHERE uid = $1 AND month = `+monthSQL+`), 0),
			EXISTS (SELECT 1 FROM spend_warnings w WHERE w.uid = $1 AND w.month = `+monthSQL+`
				AND w.threshold = 'limit_100' AND w.limit_micros = s.monthly_limit_micros),
			`+rechargeInFlightSQL+`,
			`+settingsColumns+`
		FROM (SELECT 1) one LEFT JOIN billing_settings s ON s.uid = $1`,
		uid, UserAccount(uid), HoldsAccount(uid), DebtAccount(uid)).Scan(dest...)
	if err != nil {
		return BalanceView{}, fmt.Errorf("read balance view: %w", err)
	}
	v.Settings = st.BillingSettings
	v.AutoRecharge = AutoRechargeState{HasCard: st.paymentMethod != "", CardLabel: st.cardLabel,
		DisabledReason: st.disabledReason, LastFailure: st.lastFailure, InFlight: inFlight}
	return v, nil
}
