package wallet

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// resumePausedAgents charges the fees of uid's paused agents from available
// (wallet locked) and resumes them. (Agent fees: see postgres_fees.go.)
func (s *PostgresStore) resumePausedAgents(ctx context.Context, tx pgx.Tx, uid string, available int64) (debitEffects, int64, error) {
	return debitEffects{}, available, nil
}

// feePlan is an agent fee a Reserve has to charge before its hold.
type feePlan struct {
	uid, agentID, agentName string
	// micros is 0 when nothing is due.
	micros     int64
	start, end time.Time
	// renewal: the fee is a due renewal (or the agent is paused), so a
	// refusal is agent_paused and pauses the agent.
	renewal bool
}

func (s *PostgresStore) planFee(ctx context.Context, tx pgx.Tx, r Reservation, now time.Time) (feePlan, error) {
	return feePlan{}, nil
}

func (s *PostgresStore) chargeFee(ctx context.Context, tx pgx.Tx, p feePlan) (debitEffects, error) {
	return debitEffects{}, nil
}

func (s *PostgresStore) pauseAgent(ctx context.Context, tx pgx.Tx, p feePlan) error { return nil }

func (s *PostgresStore) markAgentUsed(ctx context.Context, tx pgx.Tx, p feePlan) error { return nil }
