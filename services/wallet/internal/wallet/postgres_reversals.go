package wallet

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// debtOf reads what uid owes (0 without a debt account), locking the debt
// account; the caller holds the wallet lock.
func debtOf(ctx context.Context, tx pgx.Tx, uid string) (int64, error) {
	var debt int64
	err := tx.QueryRow(ctx, `SELECT -balance_micros FROM accounts WHERE id = $1 FOR UPDATE`, DebtAccount(uid)).Scan(&debt)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read debt: %w", err)
	}
	return debt, nil
}

// repayDebt pays uid's debt from the wallet, as far as the wallet allows,
// right after credit brought money in (wallet locked): a "repayment"
// transfer wallet → debt keyed by the credit, so it happens once per credit.
// It returns the available balance after it.
func (s *PostgresStore) repayDebt(ctx context.Context, tx pgx.Tx, uid string, credit Transfer) (int64, error) {
	var available int64
	if err := tx.QueryRow(ctx, `SELECT balance_micros FROM accounts WHERE id = $1`, UserAccount(uid)).Scan(&available); err != nil {
		return 0, fmt.Errorf("read wallet: %w", err)
	}
	debt, err := debtOf(ctx, tx, uid)
	if err != nil || debt == 0 {
		return available, err
	}
	pay := min(debt, available)
	if pay <= 0 {
		return available, nil
	}
	if _, err := insertTransfer(ctx, tx, transferRow{key: "debt:repay:" + credit.ID, debit: UserAccount(uid),
		credit: DebtAccount(uid), amount: pay, typ: TypeRepayment, uid: uid, description: "Debt repayment",
		provider: credit.Provider, metadata: map[string]string{"credit_transfer_id": credit.ID}}); err != nil {
		return 0, err
	}
	if available, err = addBalance(ctx, tx, UserAccount(uid), -pay); err != nil {
		return 0, err
	}
	if _, err := addBalance(ctx, tx, DebtAccount(uid), pay); err != nil {
		return 0, err
	}
	return available, nil
}
