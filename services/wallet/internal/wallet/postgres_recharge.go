package wallet

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// rechargeInFlightSQL tells (in Overview's statement) whether uid ($1) has
// an auto-recharge in flight.
const rechargeInFlightSQL = `false`

// maybeStartRecharge starts an auto-recharge when the debit left the
// available balance below the user's threshold.
func (s *PostgresStore) maybeStartRecharge(ctx context.Context, tx pgx.Tx, uid string, st settingsRow, available int64) (debitEffects, error) {
	return debitEffects{}, nil
}
