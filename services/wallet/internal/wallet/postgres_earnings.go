package wallet

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/wallet/internal/ledger"
)

// Earnings in the ledger (migrations/00007_earnings.sql).
//
// Lock order: a user's wallet row, then (capture) the hold, the holds
// account, then the creator's earnings_pending row, then earnings_available,
// then the agent rows (a transfer to the wallet resuming paused agents), then
// system accounts. The earnings_pending row of a creator is locked by every
// earning credited to them (a consumer's capture, which holds the
// consumer's — never the creator's — wallet lock) and by every maturation;
// no transaction takes a wallet lock after it, so no cycle can form.

// earningCredit is an earning to credit inside a capture or charge.
type earningCredit struct {
	split              EarningSplit
	key                string
	consumer           string
	agentID, agentName string
	messageID          string
}

// earningFor builds the earning of a consumer's capture or charge: agent and
// message from the capture metadata (conversations' camelCase keys too), else
// from the Reserve metadata.
func earningFor(split EarningSplit, key, consumer string, meta, reserveMeta map[string]string) earningCredit {
	return earningCredit{split: split, key: key, consumer: consumer,
		agentID:   firstOf([]string{MetaAgentID, "agentId"}, meta, reserveMeta),
		agentName: firstOf([]string{MetaAgentName, "agentName"}, meta, reserveMeta),
		messageID: firstOf([]string{MetaMessageID, "messageId"}, meta, reserveMeta)}
}

// creditEarning moves e's amount platform revenue → earnings_pending:<creator>
// (the caller adjusts the revenue account's balance: it credits the
// expense's total minus this), records the earnings row and the creator's
// day line, and enqueues WalletEarningsCredited.
func (s *PostgresStore) creditEarning(ctx context.Context, tx pgx.Tx, e earningCredit) error {
	creator, amount := e.split.CreatorUID, e.split.Micros()
	pending := EarningsPendingAccount(creator)
	// The pending account first: created on the first earning, and its row
	// lock serialises every earning and maturation of this creator.
	if err := ledger.AddOrCreate(ctx, tx, ledger.KindUserEarningsPending, pending, creator, amount); err != nil {
		return fmt.Errorf("credit pending earnings: %w", err)
	}
	meta := map[string]string{
		MetaAgentID: e.agentID, MetaAgentName: e.agentName, "consumer_uid": e.consumer, MetaMessageID: e.messageID,
		MetaMarkupMicros: strconv.FormatInt(e.split.MarkupMicros, 10), MetaGreetingMicros: strconv.FormatInt(e.split.GreetingMicros, 10),
	}
	t, err := ledger.Insert(ctx, tx, ledger.Entry[TransferType]{Key: e.key, Debit: AccountPlatformRevenue, Credit: pending, Amount: amount,
		Type: TypeEarning, UID: creator, Description: "Earnings · " + orAgent(e.agentName), Provider: ProviderPlatform, Metadata: meta})
	if err != nil {
		return err
	}
	var availableAt time.Time
	if err := tx.QueryRow(ctx, `INSERT INTO earnings (transfer_id, creator_uid, agent_id, agent_name, consumer_uid, message_id,
			markup_micros, greeting_micros, amount_micros, created_at, available_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::timestamptz, $10::timestamptz + $11 * interval '1 microsecond')
		RETURNING available_at`, t.ID, creator, e.agentID, e.agentName, e.consumer, e.messageID,
		e.split.MarkupMicros, e.split.GreetingMicros, amount, t.CreatedAt, s.earningsHold.Microseconds()).Scan(&availableAt); err != nil {
		return fmt.Errorf("record earning: %w", err)
	}
	// The day line: created by the day's first earning (its seq drawn now,
	// under the pending lock), grown by the others.
	if _, err := tx.Exec(ctx, `INSERT INTO earnings_days (creator_uid, agent_id, day, id, seq, agent_name, amount_micros, answers, created_at, updated_at)
		VALUES ($1, $2, ($3::timestamptz AT TIME ZONE 'UTC')::date, $4, nextval(pg_get_serial_sequence('transfers', 'seq')), $5, $6, 1, $3, $3)
		ON CONFLICT (creator_uid, agent_id, day) DO UPDATE SET
			amount_micros = earnings_days.amount_micros + EXCLUDED.amount_micros,
			answers = earnings_days.answers + 1,
			agent_name = COALESCE(NULLIF(EXCLUDED.agent_name, ''), earnings_days.agent_name),
			updated_at = EXCLUDED.updated_at`,
		creator, e.agentID, t.CreatedAt, uuid.Must(uuid.NewV7()), e.agentName, amount); err != nil {
		return fmt.Errorf("record earnings day: %w", err)
	}
	return s.enqueue(ctx, tx, userEvent(creator, TypeEarningsCredited, &eventsv1.WalletEarningsCredited{
		CreatorUid: creator, AgentId: e.agentID, AgentName: e.agentName, ConsumerUid: e.consumer,
		AmountMicros: amount, MarkupMicros: e.split.MarkupMicros, GreetingMicros: e.split.GreetingMicros,
		MessageId: e.messageID, TransferId: t.ID, AvailableAt: ts(availableAt), OccurredAt: ts(t.CreatedAt),
	}))
}

func orAgent(name string) string {
	if name == "" {
		return "Agent"
	}
	return name
}

// matureEarnings moves uid's due pending earnings (available_at <= now) to
// available in one earning_release transfer and returns the amount. It locks
// the pending row (the caller may hold uid's wallet lock, never a lock that
// comes after it).
func (s *PostgresStore) matureEarnings(ctx context.Context, tx pgx.Tx, uid string) (int64, error) {
	pending, available := EarningsPendingAccount(uid), EarningsAvailableAccount(uid)
	var due int64
	_, err := ledger.LockBalance(ctx, tx, pending)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("lock pending earnings: %w", err)
	}
	// Under the pending lock no earning of uid can be inserted, so the sum
	// and the update below see the same rows.
	if err := tx.QueryRow(ctx, `SELECT COALESCE(sum(amount_micros), 0)::bigint FROM earnings
		WHERE creator_uid = $1 AND NOT released AND available_at <= now()`, uid).Scan(&due); err != nil {
		return 0, fmt.Errorf("due earnings: %w", err)
	}
	if due == 0 {
		return 0, nil
	}
	if err := ledger.AddOrCreate(ctx, tx, ledger.KindUserEarningsAvailable, available, uid, due); err != nil {
		return 0, fmt.Errorf("credit available earnings: %w", err)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return 0, err
	}
	t, err := ledger.Insert(ctx, tx, ledger.Entry[TransferType]{Key: "earnings:release:" + id.String(), Debit: pending, Credit: available,
		Amount: due, Type: TypeEarningRelease, UID: uid, Description: "Earnings released", Provider: ProviderPlatform})
	if err != nil {
		return 0, err
	}
	tag, err := tx.Exec(ctx, `UPDATE earnings SET released = true, release_transfer_id = $2
		WHERE creator_uid = $1 AND NOT released AND available_at <= now()`, uid, t.ID)
	if err != nil {
		return 0, fmt.Errorf("release earnings: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return 0, fmt.Errorf("release earnings of %s: no rows", uid)
	}
	if _, err := ledger.AddBalance(ctx, tx, pending, -due); err != nil {
		return 0, err
	}
	return due, nil
}

// hasDueEarnings reports (without locks) whether uid has earnings to mature.
func (s *PostgresStore) hasDueEarnings(ctx context.Context, uid string) (bool, error) {
	var due bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM earnings WHERE creator_uid = $1 AND NOT released AND available_at <= now())`,
		uid).Scan(&due)
	return due, err
}

// MatureUserEarnings matures uid's due earnings under uid's wallet lock (a
// read of the earnings, a transfer, a payout do it first). A no-op without
// due rows (checked first without locks).
func (s *PostgresStore) MatureUserEarnings(ctx context.Context, uid string) (int64, error) {
	due, err := s.hasDueEarnings(ctx, uid)
	if err != nil || !due {
		return 0, err
	}
	var moved int64
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, _, err := lockWallet(ctx, tx, uid); err != nil {
			return err
		}
		moved, err = s.matureEarnings(ctx, tx, uid)
		return err
	})
	return moved, err
}

// MatureEarnings implements Store: each round claims one creator with due
// earnings by their pending row, FOR UPDATE SKIP LOCKED (replicas take
// different creators and never wait for a request), and matures them.
func (s *PostgresStore) MatureEarnings(ctx context.Context, limit int) ([]string, error) {
	var out []string
	for len(out) < limit {
		var uid string
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			err := tx.QueryRow(ctx, `SELECT p.uid FROM accounts p
				WHERE p.id IN (SELECT 'earnings_pending:' || creator_uid FROM earnings WHERE NOT released AND available_at <= now())
				LIMIT 1 FOR UPDATE OF p SKIP LOCKED`).Scan(&uid)
			if errors.Is(err, pgx.ErrNoRows) {
				uid = ""
				return nil
			}
			if err != nil {
				return fmt.Errorf("claim due earnings: %w", err)
			}
			_, err = s.matureEarnings(ctx, tx, uid)
			return err
		})
		if err != nil {
			return out, err
		}
		if uid == "" {
			break
		}
		out = append(out, uid)
	}
	return out, nil
}

// Earnings implements Store.
func (s *PostgresStore) Earnings(ctx context.Context, uid string) (EarningsView, error) {
	if _, err := s.MatureUserEarnings(ctx, uid); err != nil {
		return EarningsView{}, err
	}
	var v EarningsView
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT
				COALESCE((SELECT balance_micros FROM accounts WHERE id = $1), 0),
				COALESCE((SELECT balance_micros FROM accounts WHERE id = $2), 0)`,
			EarningsPendingAccount(uid), EarningsAvailableAccount(uid)).Scan(&v.PendingMicros, &v.AvailableMicros); err != nil {
			return fmt.Errorf("read earnings: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT agent_id, (array_agg(agent_name ORDER BY created_at DESC))[1], count(*),
				count(DISTINCT consumer_uid), sum(amount_micros)::bigint
			FROM earnings WHERE creator_uid = $1 GROUP BY agent_id ORDER BY sum(amount_micros) DESC, agent_id`, uid)
		if err != nil {
			return err
		}
		v.ByAgent, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (AgentEarnings, error) {
			var a AgentEarnings
			err := r.Scan(&a.AgentID, &a.Name, &a.Answers, &a.Users, &a.EarnedMicros)
			return a, err
		})
		return err
	})
	if err != nil {
		return EarningsView{}, err
	}
	if v.ByAgent == nil {
		v.ByAgent = []AgentEarnings{}
	}
	v.Hold = s.earningsHold
	return v, nil
}

// EarningsSeries implements Store: the day lines in q's range, by day then agent.
func (s *PostgresStore) EarningsSeries(ctx context.Context, uid string, q SeriesQuery) ([]EarningsDay, error) {
	rows, err := s.pool.Query(ctx, `SELECT day, agent_id, agent_name, amount_micros, answers FROM earnings_days
		WHERE creator_uid = $1 AND day BETWEEN $2::date AND $3::date AND ($4 = '' OR agent_id = $4)
		ORDER BY day, agent_id`, uid, q.From.Format(time.DateOnly), q.To.Format(time.DateOnly), q.AgentID)
	if err != nil {
		return nil, fmt.Errorf("earnings series: %w", err)
	}
	days, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (EarningsDay, error) {
		var d EarningsDay
		err := r.Scan(&d.Date, &d.AgentID, &d.Name, &d.EarnedMicros, &d.Answers)
		return d, err
	})
	if err != nil {
		return nil, err
	}
	if days == nil {
		days = []EarningsDay{}
	}
	return days, nil
}

// TransferEarnings implements Store: under uid's wallet lock (the wallet is
// created if needed), due earnings mature, then micros move available →
// wallet as an earning_transfer; like any credit it pays a debt first and
// then the fees of paused agents.
func (s *PostgresStore) TransferEarnings(ctx context.Context, uid string, micros int64) (EarningsTransferResult, error) {
	if micros <= 0 {
		return EarningsTransferResult{}, &ValidationError{Message: "amount must be greater than 0"}
	}
	var res EarningsTransferResult
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		res = EarningsTransferResult{}
		wallet, available := UserAccount(uid), EarningsAvailableAccount(uid)
		if _, exists, err := lockWallet(ctx, tx, uid); err != nil {
			return err
		} else if !exists {
			if err := ledger.Create(ctx, tx, ledger.KindUserWallet, wallet, uid); err != nil {
				return fmt.Errorf("create wallet: %w", err)
			}
			if _, _, err := lockWallet(ctx, tx, uid); err != nil {
				return err
			}
		}
		if _, err := s.matureEarnings(ctx, tx, uid); err != nil {
			return err
		}
		have, err := ledger.LockBalance(ctx, tx, available)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("lock available earnings: %w", err)
		}
		if have < micros {
			return &EarningsShortError{AvailableMicros: have}
		}
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		t, err := ledger.Insert(ctx, tx, ledger.Entry[TransferType]{Key: "earnings:transfer:" + id.String(), Debit: available, Credit: wallet,
			Amount: micros, Type: TypeEarningTransfer, UID: uid, Description: TransferFromEarnings, Provider: ProviderPlatform})
		if err != nil {
			return err
		}
		if res.AvailableMicros, err = ledger.AddBalance(ctx, tx, available, -micros); err != nil {
			return err
		}
		if _, err := ledger.AddBalance(ctx, tx, wallet, micros); err != nil {
			return err
		}
		eff, err := s.afterCredit(ctx, tx, uid, t)
		if err != nil {
			return err
		}
		bal, err := userBalance(ctx, tx, uid)
		if err != nil {
			return err
		}
		res.Transfer, res.TransferredMicros, res.BalanceMicros, res.RechargeID = t, micros, bal.Micros, eff.rechargeID
		return nil
	})
	if err != nil {
		return EarningsTransferResult{}, err
	}
	return res, nil
}

// ensureCreatorFee is the first step of a consumer's Reserve, in its own
// transaction under the creator's wallet lock and the agent's row: the
// agent's monthly fee is charged to its creator when due (a paused agent is
// resumed by it); when the creator cannot pay, a due renewal pauses the
// agent (committed) and the consumer is refused with ErrAgentUnavailable.
// It also records that the agent was used in its period (renewals).
func (s *PostgresStore) ensureCreatorFee(ctx context.Context, creator, agentID, agentName string) (charged bool, rechargeID string, err error) {
	// The common case, without locks: the agent's period is paid, it is not
	// paused and its use in this period is already recorded. Every consumer
	// answer of a popular agent would otherwise queue on its creator's
	// wallet row. A pause committed just after this read only means the
	// answer was admitted a moment before it, as if it had come earlier.
	var paid bool
	err = s.pool.QueryRow(ctx, `SELECT COALESCE(uid = $2 AND status <> 'deleted' AND NOT paused
			AND paid_until > now() AND period_start <= now() AND last_used_at >= period_start, false)
		FROM agent_billing WHERE agent_id = $1`, agentID, creator).Scan(&paid)
	switch {
	case err == nil && paid:
		return false, "", nil
	case err != nil && !errors.Is(err, pgx.ErrNoRows):
		return false, "", fmt.Errorf("read agent billing: %w", err)
	}
	var refusal error
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		charged, rechargeID, refusal = false, "", nil
		available, exists, err := lockWallet(ctx, tx, creator)
		if err != nil {
			return err
		}
		a, err := lockAgent(ctx, tx, agentID, creator, agentName)
		if err != nil {
			return err
		}
		if a.uid != creator || a.status == "deleted" {
			refusal = fmt.Errorf("%w: agent %s is not %s's", ErrAgentUnavailable, agentID, creator)
			return nil
		}
		var now time.Time
		if err := tx.QueryRow(ctx, `SELECT now()`).Scan(&now); err != nil {
			return err
		}
		fee, err := s.planFee(ctx, tx, Reservation{UID: creator, Metadata: map[string]string{MetaAgentID: agentID, MetaAgentName: agentName}}, now, &a)
		if err != nil {
			return err
		}
		if fee.micros > 0 {
			debt, err := debtOf(ctx, tx, creator)
			if err != nil {
				return err
			}
			if exists && debt == 0 && available < fee.micros {
				// Expired holds the sweeper has not reached yet are free money.
				expired, err := s.expireUserHolds(ctx, tx, creator)
				if err != nil {
					return err
				}
				for _, h := range expired {
					available += h.AmountMicros
				}
			}
			if !exists || debt > 0 || available < fee.micros {
				if fee.renewal {
					if err := s.pauseAgent(ctx, tx, fee); err != nil {
						return err
					}
				}
				refusal = fmt.Errorf("%w: agent %s, creator cannot pay its fee of %d", ErrAgentUnavailable, agentID, fee.micros)
				return nil
			}
			eff, err := s.chargeFee(ctx, tx, fee)
			if err != nil {
				return err
			}
			charged, rechargeID = true, eff.rechargeID
		}
		for _, q := range fee.markUsed() {
			if _, err := tx.Exec(ctx, q.sql, q.args...); err != nil {
				return fmt.Errorf("mark agent used: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return false, "", err
	}
	return charged, rechargeID, refusal
}

// historySnapshot is the highest seq of uid's history (transfers and day
// lines). A creator's day lines are created under their earnings_pending
// row lock, their transfers under their wallet lock: two orders. Taking
// both rows FOR SHARE (wallet first: the lock order) waits for the writers
// in flight, so every line with a seq at or below the snapshot has
// committed and later pages neither repeat nor skip lines.
func (s *PostgresStore) historySnapshot(ctx context.Context, uid string) (int64, error) {
	var creator bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM accounts WHERE id = $1)`, EarningsPendingAccount(uid)).Scan(&creator); err != nil {
		return 0, fmt.Errorf("snapshot: %w", err)
	}
	const maxSQL = `SELECT GREATEST(
		(SELECT COALESCE(max(seq), 0) FROM transfers WHERE uid = $1 AND ` + visibleTypes + `),
		(SELECT COALESCE(max(seq), 0) FROM earnings_days WHERE creator_uid = $1))`
	var snapshot int64
	if !creator {
		err := s.pool.QueryRow(ctx, maxSQL, uid).Scan(&snapshot)
		return snapshot, err
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR SHARE`, UserAccount(uid)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR SHARE`, EarningsPendingAccount(uid)); err != nil {
			return err
		}
		return tx.QueryRow(ctx, maxSQL, uid).Scan(&snapshot)
	})
	if err != nil {
		return 0, fmt.Errorf("snapshot: %w", err)
	}
	return snapshot, nil
}

// dayLineColumns renders an earnings_days row (alias d) as a transfer row
// (ledger.TransferColumns' order): an income line "Earnings · <agent> · Nov 26".
const dayLineColumns = `d.id::text, d.seq, d.creator_uid, '` + AccountPlatformRevenue + `', 'earnings_pending:' || d.creator_uid,
	d.amount_micros, 'income', ` + dayDescriptionSQL + `, '` + ProviderPlatform + `',
	jsonb_build_object('kind', '` + KindEarningsDay + `', 'agent_id', d.agent_id, 'agent_name', d.agent_name,
		'day', d.day::text, 'answers', d.answers::text), '', d.created_at`

// dayDescriptionSQL is EarningsDayDescription in SQL ('Mon' is English
// whatever lc_time says; FMDD drops the leading zero).
const dayDescriptionSQL = `'Earnings · ' || COALESCE(NULLIF(d.agent_name, ''), 'Agent') || ' · ' || to_char(d.day, 'Mon FMDD')`

// earningRowColumns renders an earnings row (alias e, its transfer t) as a
// transfer row for the CSV export: one income line per answer.
const earningRowColumns = `e.transfer_id::text, t.seq, e.creator_uid, t.debit_account, t.credit_account, e.amount_micros,
	'income', 'Earnings · ' || COALESCE(NULLIF(e.agent_name, ''), 'Agent') || ' · ' ||
		to_char((e.created_at AT TIME ZONE 'UTC')::date, 'Mon FMDD'), '` + ProviderPlatform + `', t.metadata, t.idempotency_key, e.created_at`

// checkEarnings is CheckInvariants' part for earnings: every earning
// transfer is one earnings row of the same amount (so Σ earning transfers =
// Σ earnings rows = Σ markup + greeting credited); every consumer capture
// credited exactly its markup + greeting; every pending account holds its
// creator's unreleased rows and every release transfer its released rows;
// the day lines sum the rows of their day. (Accounts ≥ 0: the accounts check.)
func checkEarnings(ctx context.Context, tx pgx.Tx, report func(tx pgx.Tx, format, sql string) error) error {
	checks := []struct{ format, sql string }{
		{"earning %s: transfer %d, earnings row %d", `
			SELECT COALESCE(t.id, e.transfer_id)::text, COALESCE(t.amount_micros, 0), COALESCE(e.amount_micros, 0)
			FROM (SELECT id, amount_micros FROM transfers WHERE type = 'earning') t
			FULL JOIN earnings e ON e.transfer_id = t.id
			WHERE COALESCE(t.amount_micros, 0) <> COALESCE(e.amount_micros, 0)`},
		{"earnings total (%s): earning transfers %d, earnings rows %d", `
			SELECT 'all', (SELECT COALESCE(sum(amount_micros), 0) FROM transfers WHERE type = 'earning')::bigint,
				(SELECT COALESCE(sum(markup_micros + greeting_micros), 0) FROM earnings)::bigint
			WHERE (SELECT COALESCE(sum(amount_micros), 0) FROM transfers WHERE type = 'earning')
				<> (SELECT COALESCE(sum(markup_micros + greeting_micros), 0) FROM earnings)`},
		{"consumer capture %s: markup + greeting %d, earning %d", `
			SELECT h.id::text,
				(COALESCE(NULLIF(h.capture_metadata->>'markup_micros', ''), '0')::bigint
				 + COALESCE(NULLIF(h.capture_metadata->>'greeting_micros', ''), '0')::bigint),
				COALESCE(t.amount_micros, 0)
			FROM holds h LEFT JOIN transfers t ON t.idempotency_key = 'hold:' || h.id::text || ':earning'
			WHERE h.status = 'captured' AND h.capture_metadata->>'payer_role' = 'consumer'
			  AND (COALESCE(NULLIF(h.capture_metadata->>'markup_micros', ''), '0')::bigint
				 + COALESCE(NULLIF(h.capture_metadata->>'greeting_micros', ''), '0')::bigint) <> COALESCE(t.amount_micros, 0)`},
		{"pending earnings of %s: account %d, unreleased rows %d", `
			WITH un AS (SELECT creator_uid AS uid, sum(amount_micros) AS micros FROM earnings WHERE NOT released GROUP BY 1),
			     acc AS (SELECT uid, balance_micros FROM accounts WHERE kind = 'user_earnings_pending')
			SELECT COALESCE(acc.uid, un.uid), COALESCE(acc.balance_micros, 0), COALESCE(un.micros, 0)::bigint
			FROM acc FULL JOIN un ON un.uid = acc.uid
			WHERE COALESCE(acc.balance_micros, 0) <> COALESCE(un.micros, 0)`},
		{"earnings release %s: transfer %d, released rows %d", `
			WITH rel AS (SELECT release_transfer_id AS id, sum(amount_micros) AS micros FROM earnings WHERE released GROUP BY 1),
			     t AS (SELECT id, amount_micros FROM transfers WHERE type = 'earning_release')
			SELECT COALESCE(t.id, rel.id)::text, COALESCE(t.amount_micros, 0), COALESCE(rel.micros, 0)::bigint
			FROM t FULL JOIN rel ON rel.id = t.id
			WHERE COALESCE(t.amount_micros, 0) <> COALESCE(rel.micros, 0)`},
		{"earnings day %s: line %d, rows %d", `
			WITH e AS (SELECT creator_uid, agent_id, (created_at AT TIME ZONE 'UTC')::date AS day, sum(amount_micros) AS micros
				FROM earnings GROUP BY 1, 2, 3)
			SELECT COALESCE(d.creator_uid, e.creator_uid) || ' ' || COALESCE(d.agent_id, e.agent_id) || ' ' || COALESCE(d.day, e.day)::text,
				COALESCE(d.amount_micros, 0), COALESCE(e.micros, 0)::bigint
			FROM earnings_days d FULL JOIN e ON e.creator_uid = d.creator_uid AND e.agent_id = d.agent_id AND e.day = d.day
			WHERE COALESCE(d.amount_micros, 0) <> COALESCE(e.micros, 0)`},
	}
	for _, c := range checks {
		if err := report(tx, c.format, c.sql); err != nil {
			return err
		}
	}
	return nil
}
