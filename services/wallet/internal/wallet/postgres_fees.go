package wallet

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/wallet/internal/ledger"
)

// The monthly agent fee in the ledger (migrations/00005_agent_fees.sql).
// A fee is an ordinary expense wallet → platform revenue ("Agentic User fee
// · Math Tutor · Dec 1 – Dec 30"), so it counts towards the month's usage,
// and one agent_fee_periods row per (agent, period start) makes it
// impossible to charge a period twice. Lock order: the owner's wallet, then
// the agent row (Reserve, deposits and the scheduler alike).

// agentRow is a locked agent_billing row.
type agentRow struct {
	uid, name, status      string
	paused                 bool
	periodStart, paidUntil *time.Time
	lastUsed               *time.Time
}

const agentColumns = `uid, agent_name, status, paused, period_start, paid_until, last_used_at`

func scanAgent(row pgx.Row) (agentRow, error) {
	var a agentRow
	err := row.Scan(&a.uid, &a.name, &a.status, &a.paused, &a.periodStart, &a.paidUntil, &a.lastUsed)
	return a, err
}

// feePlan is an agent fee a Reserve (or a deposit, or the scheduler) has to charge.
type feePlan struct {
	uid, agentID, agentName string
	// micros is 0 when nothing is due.
	micros     int64
	start, end time.Time
	// renewal: the fee is a due renewal or the agent is paused, so a refusal
	// is agent_paused (and pauses the agent).
	renewal   bool
	wasPaused bool
	// owned: the agent is uid's (answers for someone else's agent leave the
	// fee alone).
	owned bool
}

// lockAgentSQL locks an agent's row (the caller holds its owner's wallet lock).
const lockAgentSQL = `SELECT ` + agentColumns + ` FROM agent_billing WHERE agent_id = $1 FOR UPDATE`

// lockAgent locks (creating it if needed) the agent's row; the caller holds
// uid's wallet lock.
func lockAgent(ctx context.Context, tx pgx.Tx, agentID, uid, name string) (agentRow, error) {
	a, err := scanAgent(tx.QueryRow(ctx, lockAgentSQL, agentID))
	if errors.Is(err, pgx.ErrNoRows) {
		// First seen here (its catalog events may come later): the payer of
		// its first answer is its owner, as for every private agent.
		if _, err := tx.Exec(ctx, `INSERT INTO agent_billing (agent_id, uid, agent_name) VALUES ($1, $2, $3)
			ON CONFLICT (agent_id) DO NOTHING`, agentID, uid, name); err != nil {
			return agentRow{}, fmt.Errorf("record agent: %w", err)
		}
		a, err = scanAgent(tx.QueryRow(ctx, lockAgentSQL, agentID))
	}
	if err != nil {
		return agentRow{}, fmt.Errorf("lock agent: %w", err)
	}
	return a, nil
}

// planFee decides whether the answer r is for an agent whose paid period
// does not cover now (wallet locked): its first answer (a period from now),
// a due renewal (the next period, contiguous), or a paused agent (a period
// from now). Metadata agent_id/agent_name come from conversations; without
// agent_id there is no fee.
//
// locked is the agent's row when the caller has already locked it (Reserve
// reads it in its first round trip); nil: it is locked (or created) here.
func (s *PostgresStore) planFee(ctx context.Context, tx pgx.Tx, r Reservation, now time.Time, locked *agentRow) (feePlan, error) {
	agentID := r.Metadata[MetaAgentID]
	if agentID == "" {
		return feePlan{}, nil
	}
	name := r.Metadata[MetaAgentName]
	var a agentRow
	if locked != nil {
		a = *locked
	} else {
		var err error
		if a, err = lockAgent(ctx, tx, agentID, r.UID, name); err != nil {
			return feePlan{}, err
		}
	}
	if a.uid != r.UID || a.status == AgentDeleted {
		// Someone else's agent, or a deleted one (issue 29: its fee stops;
		// an answer still in flight when it was deleted starts no period).
		return feePlan{}, nil
	}
	if name != "" && name != a.name {
		if _, err := tx.Exec(ctx, `UPDATE agent_billing SET agent_name = $2, updated_at = now() WHERE agent_id = $1`, agentID, name); err != nil {
			return feePlan{}, fmt.Errorf("update agent name: %w", err)
		}
		a.name = name
	}
	p := feePlan{uid: r.UID, agentID: agentID, agentName: a.name, owned: true}
	if a.paidUntil != nil && a.paidUntil.After(now) {
		return p, nil // covered
	}
	if a.status == AgentInactive {
		// The owner trying out an inactive agent pays the usage only
		// (issue 29: an inactive agent is not charged its fee; it renews
		// at its first answer after reactivation).
		return p, nil
	}
	p.micros, p.wasPaused = AgentFeeMicros, a.paused
	p.start, p.renewal = nextPeriodStart(a, now)
	p.end = p.start.Add(AgentFeePeriod)
	return p, nil
}

// nextPeriodStart: a renewal of an agent used during its last period starts
// where that period ended (unless a whole period has been missed); anything
// else (first answer, lapsed, paused) starts now. renewal reports whether a
// renewal was due (or the agent is paused).
func nextPeriodStart(a agentRow, now time.Time) (time.Time, bool) {
	if a.paused {
		return now, true
	}
	if a.paidUntil != nil && a.lastUsed != nil && !a.lastUsed.Before(*a.periodStart) {
		if now.Before(a.paidUntil.Add(AgentFeePeriod)) {
			return *a.paidUntil, true
		}
		return now, true
	}
	return now, false
}

// FeeKey is the transfer key of an agent's fee for the period starting at start.
func FeeKey(agentID string, start time.Time) string {
	return "fee:" + agentID + ":" + strconv.FormatInt(start.UnixMicro(), 10)
}

// chargeFee charges p (wallet and agent locked, funds checked): the expense,
// the period row, the agent's paid period (resumed if it was paused), the
// usage and the events.
func (s *PostgresStore) chargeFee(ctx context.Context, tx pgx.Tx, p feePlan) (debitEffects, error) {
	wallet := UserAccount(p.uid)
	t, err := ledger.Insert(ctx, tx, ledger.Entry[TransferType]{Key: FeeKey(p.agentID, p.start), Debit: wallet, Credit: AccountPlatformRevenue,
		Amount: p.micros, Type: TypeExpense, UID: p.uid, Description: FeeDescription(p.agentName, p.start, p.end),
		Provider: ProviderPlatform, Metadata: map[string]string{
			MetaKind: KindAgentFee, MetaAgentID: p.agentID, MetaAgentName: p.agentName,
			"period_start": p.start.UTC().Format(time.RFC3339), "period_end": p.end.UTC().Format(time.RFC3339),
		}})
	if err != nil {
		return debitEffects{}, fmt.Errorf("fee of %s: %w", p.agentID, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO agent_fee_periods (agent_id, period_start, period_end, uid, transfer_id)
		VALUES ($1, $2, $3, $4, $5)`, p.agentID, p.start, p.end, p.uid, t.ID); err != nil {
		return debitEffects{}, fmt.Errorf("record fee period: %w", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE agent_billing SET period_start = $2, paid_until = $3, paused = false, paused_at = NULL,
		updated_at = now() WHERE agent_id = $1`, p.agentID, p.start, p.end); err != nil {
		return debitEffects{}, fmt.Errorf("update agent period: %w", err)
	}
	available, err := ledger.AddBalance(ctx, tx, wallet, -p.micros)
	if err != nil {
		return debitEffects{}, err
	}
	if _, err := ledger.AddBalance(ctx, tx, AccountPlatformRevenue, p.micros); err != nil {
		return debitEffects{}, err
	}
	usage, month, err := recordExpense(ctx, tx, p.uid, p.micros)
	if err != nil {
		return debitEffects{}, err
	}
	bal, err := userBalance(ctx, tx, p.uid)
	if err != nil {
		return debitEffects{}, err
	}
	evs := []events.Event{chargedEvent(t, bal.Micros)}
	if p.wasPaused {
		evs = append(evs, userEvent(p.uid, TypeAgentResumed, &eventsv1.WalletAgentResumed{Uid: p.uid, AgentId: p.agentID,
			AgentName: p.agentName, PeriodStart: ts(p.start), PeriodEnd: ts(p.end), TransferId: t.ID, OccurredAt: ts(t.CreatedAt)}))
	}
	if err := s.enqueue(ctx, tx, evs...); err != nil {
		return debitEffects{}, err
	}
	return s.afterDebit(ctx, tx, p.uid, available, usage, month)
}

// pauseAgent marks the agent paused (its fee is due and unpaid) and says so
// once with an event.
func (s *PostgresStore) pauseAgent(ctx context.Context, tx pgx.Tx, p feePlan) error {
	var at time.Time
	err := tx.QueryRow(ctx, `UPDATE agent_billing SET paused = true, paused_at = now(), updated_at = now()
		WHERE agent_id = $1 AND NOT paused RETURNING now()`, p.agentID).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pause agent: %w", err)
	}
	return s.enqueue(ctx, tx, userEvent(p.uid, TypeAgentPaused, &eventsv1.WalletAgentPaused{Uid: p.uid, AgentId: p.agentID,
		AgentName: p.agentName, FeeMicros: p.micros, OccurredAt: ts(at)}))
}

// markUsed is the statement that records that the agent answered in its current period (a
// write only on the first answer of a period).
func (p feePlan) markUsed() []batched {
	if !p.owned {
		return nil
	}
	return []batched{{sql: `UPDATE agent_billing SET last_used_at = now()
		WHERE agent_id = $1 AND (last_used_at IS NULL OR period_start IS NULL OR last_used_at < period_start)`, args: []any{p.agentID}}}
}

// resumePausedAgents charges the fees of uid's paused (active) agents from
// the available balance after a credit (wallet locked), oldest pause first,
// as far as the money goes; a new period starts now for each. It returns
// the available balance after them.
func (s *PostgresStore) resumePausedAgents(ctx context.Context, tx pgx.Tx, uid string, available int64) (debitEffects, int64, error) {
	rows, err := tx.Query(ctx, `SELECT agent_id, agent_name, now() FROM agent_billing
		WHERE uid = $1 AND paused AND status = 'active' ORDER BY paused_at, agent_id FOR UPDATE`, uid)
	if err != nil {
		return debitEffects{}, available, fmt.Errorf("find paused agents: %w", err)
	}
	type paused struct {
		id, name string
		now      time.Time
	}
	agents, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (paused, error) {
		var p paused
		return p, r.Scan(&p.id, &p.name, &p.now)
	})
	if err != nil || len(agents) == 0 {
		return debitEffects{}, available, err
	}
	debt, err := debtOf(ctx, tx, uid)
	if err != nil || debt > 0 {
		return debitEffects{}, available, err
	}
	var eff debitEffects
	for _, a := range agents {
		if available < AgentFeeMicros {
			break
		}
		p := feePlan{uid: uid, agentID: a.id, agentName: a.name, micros: AgentFeeMicros, start: a.now,
			end: a.now.Add(AgentFeePeriod), wasPaused: true, owned: true}
		e, err := s.chargeFee(ctx, tx, p)
		if err != nil {
			return debitEffects{}, available, err
		}
		if e.rechargeID != "" {
			eff = e
		}
		available -= AgentFeeMicros
	}
	return eff, available, nil
}

// FeeRenewal is what the scheduler did with one due agent.
type FeeRenewal struct {
	UID, AgentID string
	Charged      bool // false: paused
	RechargeID   string
}

// RenewAgentFees renews at most limit due agents (active, not paused, paid
// period over, used during it), each in its own transaction: the agent is
// claimed together with its owner's wallet row by FOR UPDATE ... SKIP
// LOCKED, so replicas take different agents and never wait for a request;
// the fee is charged for the next period, or the agent is paused when the
// wallet cannot pay it (or owes a debt).
func (s *PostgresStore) RenewAgentFees(ctx context.Context, limit int) ([]FeeRenewal, error) {
	var out []FeeRenewal
	for len(out) < limit {
		var (
			r     FeeRenewal
			found bool
		)
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			var (
				a         agentRow
				agentID   string
				available int64
				now       time.Time
			)
			err := tx.QueryRow(ctx, `SELECT a.agent_id, a.uid, a.agent_name, a.status, a.paused, a.period_start, a.paid_until,
					a.last_used_at, w.balance_micros, now()
				FROM agent_billing a JOIN accounts w ON w.id = 'user:' || a.uid
				WHERE a.status = 'active' AND NOT a.paused AND a.paid_until <= now() AND a.last_used_at >= a.period_start
				ORDER BY a.paid_until LIMIT 1
				FOR UPDATE OF w, a SKIP LOCKED`).Scan(&agentID, &a.uid, &a.name, &a.status, &a.paused, &a.periodStart,
				&a.paidUntil, &a.lastUsed, &available, &now)
			if errors.Is(err, pgx.ErrNoRows) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("claim due agent: %w", err)
			}
			found = true
			start, _ := nextPeriodStart(a, now)
			p := feePlan{uid: a.uid, agentID: agentID, agentName: a.name, micros: AgentFeeMicros, start: start,
				end: start.Add(AgentFeePeriod), renewal: true, owned: true}
			r = FeeRenewal{UID: a.uid, AgentID: agentID}
			debt, err := debtOf(ctx, tx, a.uid)
			if err != nil {
				return err
			}
			if debt > 0 || available < p.micros {
				return s.pauseAgent(ctx, tx, p)
			}
			eff, err := s.chargeFee(ctx, tx, p)
			r.Charged, r.RechargeID = true, eff.rechargeID
			return err
		})
		if err != nil {
			return out, err
		}
		if !found {
			break
		}
		out = append(out, r)
	}
	return out, nil
}

// AgentFee is one agent's fee state for GET /api/user/agent-fees.
type AgentFee struct {
	AgentID, AgentName     string
	PeriodStart, PeriodEnd time.Time
	Paused                 bool
}

// AgentFees lists uid's agents with a paid period covering now or paused
// (fee due and unpaid), by name.
func (s *PostgresStore) AgentFees(ctx context.Context, uid string) ([]AgentFee, error) {
	rows, err := s.pool.Query(ctx, `SELECT agent_id, agent_name, period_start, paid_until, paused FROM agent_billing
		WHERE uid = $1 AND period_start IS NOT NULL AND (paused OR (paid_until > now() AND status <> 'deleted'))
		ORDER BY lower(agent_name), agent_id`, uid)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (AgentFee, error) {
		var f AgentFee
		return f, r.Scan(&f.AgentID, &f.AgentName, &f.PeriodStart, &f.PeriodEnd, &f.Paused)
	})
}

// SetAgentStatus applies a catalog event to the agent's row (created when
// missing): owner and name when given, status when given. An agent that is
// no longer active is not paused any more (it renews nothing and owes
// nothing until it answers again). A change of status forgets the use of
// the current period (issue 29): an agent deactivated is never renewed by
// the scheduler, not even once reactivated; its fee renews at its next
// answer after reactivation (a period from then, or at the end of the
// current one if it answers again before it ends).
func SetAgentStatus(ctx context.Context, tx pgx.Tx, agentID, ownerUID, name, status string) error {
	_, err := tx.Exec(ctx, `INSERT INTO agent_billing (agent_id, uid, agent_name, status)
		VALUES ($1, $2, $3, COALESCE(NULLIF($4, ''), 'active'))
		ON CONFLICT (agent_id) DO UPDATE SET
			uid = COALESCE(NULLIF(EXCLUDED.uid, ''), agent_billing.uid),
			agent_name = COALESCE(NULLIF($3, ''), agent_billing.agent_name),
			status = COALESCE(NULLIF($4, ''), agent_billing.status),
			last_used_at = CASE WHEN COALESCE(NULLIF($4, ''), agent_billing.status) <> agent_billing.status
				THEN NULL ELSE agent_billing.last_used_at END,
			paused = agent_billing.paused AND COALESCE(NULLIF($4, ''), agent_billing.status) = 'active',
			paused_at = CASE WHEN agent_billing.paused AND COALESCE(NULLIF($4, ''), agent_billing.status) = 'active'
				THEN agent_billing.paused_at END,
			updated_at = now()`, agentID, ownerUID, name, status)
	if err != nil {
		return fmt.Errorf("apply agent %s: %w", agentID, err)
	}
	return nil
}
