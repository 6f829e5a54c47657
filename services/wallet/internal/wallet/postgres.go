package wallet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/wallet/internal/ledger"
)

// PostgresStore is the Store backed by PostgreSQL and the platform outbox.
type PostgresStore struct {
	pool   *pgxpool.Pool
	outbox *events.Outbox
	// earningsHold is how long a credited earning stays pending.
	earningsHold time.Duration
}

// NewPostgresStore returns a Store using pool; events go to the outbox table
// of the same database.
func NewPostgresStore(pool *pgxpool.Pool) *PostgresStore {
	return &PostgresStore{pool: pool, outbox: events.NewOutbox(Source), earningsHold: DefaultEarningsHold}
}

// SetEarningsHold sets how long credited earnings stay pending (EARNINGS_HOLD;
// 0 matures them at once). Call before use.
func (s *PostgresStore) SetEarningsHold(d time.Duration) *PostgresStore {
	if d >= 0 {
		s.earningsHold = d
	}
	return s
}

// EarningsHold is how long credited earnings stay pending.
func (s *PostgresStore) EarningsHold() time.Duration { return s.earningsHold }

// Post implements Store.
func (s *PostgresStore) Post(ctx context.Context, p Posting) (PostResult, error) {
	var res PostResult
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		res, err = s.post(ctx, tx, p)
		return err
	})
	if errors.Is(err, ledger.ErrKeyRace) {
		// The winner has committed (ON CONFLICT waited for it): compare with it.
		return s.replay(ctx, s.pool, p)
	}
	return res, err
}

// replay returns the transfer stored under p's key if it matches p.
func (s *PostgresStore) replay(ctx context.Context, q ledger.Querier, p Posting) (PostResult, error) {
	t, err := ledger.ScanTransfer[TransferType](q.QueryRow(ctx, `SELECT `+ledger.TransferColumns+` FROM transfers WHERE idempotency_key = $1`, p.IdempotencyKey))
	if err != nil {
		return PostResult{}, fmt.Errorf("read transfer by key: %w", err)
	}
	if !p.Matches(t) {
		return PostResult{}, ErrIdempotencyConflict
	}
	bal, err := userBalance(ctx, q, p.UID)
	if err != nil {
		return PostResult{}, err
	}
	return PostResult{Transfer: t, Replayed: true, BalanceMicros: bal.Micros}, nil
}

// balanceSQL reads a user's balance (wallet + holds) and held amount in one
// statement (one snapshot). Inside a transaction that holds the wallet lock
// it is exact: the holds account only changes under that lock.
const balanceSQL = `SELECT COALESCE(sum(balance_micros), 0)::bigint,
	COALESCE(sum(balance_micros) FILTER (WHERE kind = 'user_holds'), 0)::bigint
	FROM accounts WHERE id IN ($1, $2)`

func userBalance(ctx context.Context, q ledger.Querier, uid string) (Balance, error) {
	var b Balance
	if err := q.QueryRow(ctx, balanceSQL, UserAccount(uid), HoldsAccount(uid)).Scan(&b.Micros, &b.HeldMicros); err != nil {
		return Balance{}, fmt.Errorf("read balance: %w", err)
	}
	return b, nil
}

// post runs a posting inside tx. Lock order: the user wallet first, then the
// system account, so concurrent postings never deadlock.
func (s *PostgresStore) post(ctx context.Context, tx pgx.Tx, p Posting) (PostResult, error) {
	if p.AmountMicros <= 0 {
		return PostResult{}, &ValidationError{Message: "amount must be greater than 0"}
	}
	if p.Type != TypeDeposit && p.Type != TypeIncome && p.Type != TypeExpense {
		return PostResult{}, fmt.Errorf("post: transfer type %q cannot be posted directly", p.Type)
	}
	debit, credit, err := p.Type.Accounts(p.UID)
	if err != nil {
		return PostResult{}, err
	}
	user := UserAccount(p.UID)
	system := credit
	if p.Type != TypeExpense {
		system = debit
	}

	// 1. Lock the wallet (create it for credits). Every posting of a user
	// serialises here, which also orders the user's seq values by commit.
	balance, err := ledger.LockBalance(ctx, tx, user)
	walletExists := err == nil
	switch {
	case errors.Is(err, pgx.ErrNoRows) && p.Type != TypeExpense:
		if err := ledger.Create(ctx, tx, ledger.KindUserWallet, user, p.UID); err != nil {
			return PostResult{}, fmt.Errorf("create wallet: %w", err)
		}
		if balance, err = ledger.LockBalance(ctx, tx, user); err != nil {
			return PostResult{}, fmt.Errorf("lock new wallet: %w", err)
		}
		walletExists = true
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return PostResult{}, fmt.Errorf("lock wallet: %w", err)
	}

	// 2. Idempotency: under the lock, a same-key posting of this user has
	// either committed (visible now) or not started.
	existing, err := ledger.ScanTransfer[TransferType](tx.QueryRow(ctx, `SELECT `+ledger.TransferColumns+` FROM transfers WHERE idempotency_key = $1`, p.IdempotencyKey))
	switch {
	case err == nil:
		if !p.Matches(existing) {
			return PostResult{}, ErrIdempotencyConflict
		}
		bal, err := userBalance(ctx, tx, p.UID)
		if err != nil {
			return PostResult{}, err
		}
		return PostResult{Transfer: existing, Replayed: true, BalanceMicros: bal.Micros}, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return PostResult{}, fmt.Errorf("read transfer by key: %w", err)
	}

	// A consumer's charge: the creator's part fits in the amount and the
	// creator is not the payer.
	if split, consumer, err := ConsumerSplit(p.Metadata); err != nil {
		return PostResult{}, err
	} else if consumer {
		if p.Type != TypeExpense {
			return PostResult{}, &ValidationError{Message: "payer_role consumer is only valid for a charge"}
		}
		if err := validateSplit(split, p.UID, p.AmountMicros); err != nil {
			return PostResult{}, err
		}
	}

	// 3. Funds. The wallet account holds the available balance (money on
	// hold has left it), so Charge cannot spend held money.
	delta := p.AmountMicros
	if p.Type == TypeExpense {
		if !walletExists || balance < p.AmountMicros {
			return PostResult{}, ErrInsufficientFunds
		}
		delta = -p.AmountMicros
	}
	if balance, err = ledger.AddBalance(ctx, tx, user, delta); err != nil {
		return PostResult{}, fmt.Errorf("update wallet: %w", err)
	}

	// 4. The transfer (seq drawn now, under the wallet lock).
	t, err := ledger.Insert(ctx, tx, ledger.Entry[TransferType]{Key: p.IdempotencyKey, Debit: debit, Credit: credit,
		Amount: p.AmountMicros, Type: p.Type, UID: p.UID, Description: p.Description, Provider: p.Provider, Metadata: p.Metadata})
	if err != nil {
		return PostResult{}, err
	}

	// 5. The system side. Every user's postings wait for this shared row's
	// lock until their commit, so an expense takes it last, after its
	// bookkeeping (below). A credit keeps the old place: what it does after
	// (debt, paused agents' fees) may credit platform revenue, and taking
	// the two system rows in one fixed order keeps postings free of
	// deadlocks.
	if p.Type != TypeExpense {
		if _, err := ledger.AddBalance(ctx, tx, system, -delta); err != nil {
			return PostResult{}, err
		}
	}

	// 6. Billing rules under the same lock: an expense counts towards this
	// month's usage (warnings, low balance, auto-recharge); a credit pays the
	// debt first, then the fees of paused agents.
	var eff debitEffects
	if p.Type == TypeExpense {
		usage, month, err := recordExpense(ctx, tx, p.UID, p.AmountMicros)
		if err != nil {
			return PostResult{}, err
		}
		if eff, err = s.afterDebit(ctx, tx, p.UID, balance, usage, month); err != nil {
			return PostResult{}, err
		}
	} else {
		if eff, err = s.afterCredit(ctx, tx, p.UID, t); err != nil {
			return PostResult{}, err
		}
		if err := tx.QueryRow(ctx, `SELECT balance_micros FROM accounts WHERE id = $1`, user).Scan(&balance); err != nil {
			return PostResult{}, fmt.Errorf("read wallet: %w", err)
		}
	}

	// The user's balance includes money on hold (read under the wallet lock:
	// exact).
	var held int64
	if err := tx.QueryRow(ctx, `SELECT COALESCE((SELECT balance_micros FROM accounts WHERE id = $1), 0)`,
		HoldsAccount(p.UID)).Scan(&held); err != nil {
		return PostResult{}, fmt.Errorf("read holds: %w", err)
	}
	total := balance + held

	if p.Events != nil {
		for _, ev := range p.Events(t, total) {
			if _, err := s.outbox.Enqueue(ctx, tx, ev); err != nil {
				return PostResult{}, err
			}
		}
	}
	var touched []string
	if p.Type == TypeExpense {
		// A consumer's charge (the late-charge fallback of an answer): the
		// creator's part goes on to their pending earnings, key <key>:earning.
		revenue := -delta
		if split, consumer, err := ConsumerSplit(p.Metadata); err != nil {
			return PostResult{}, err
		} else if consumer && split.Micros() > 0 {
			if err := s.creditEarning(ctx, tx, earningFor(split, p.IdempotencyKey+":earning", p.UID, p.Metadata, nil)); err != nil {
				return PostResult{}, err
			}
			revenue -= split.Micros()
			touched = []string{split.CreatorUID}
		}
		if _, err := ledger.AddBalance(ctx, tx, system, revenue); err != nil {
			return PostResult{}, err
		}
	}
	return PostResult{Transfer: t, BalanceMicros: total, RechargeID: eff.rechargeID, Touched: touched}, nil
}

// Balance implements Store.
func (s *PostgresStore) Balance(ctx context.Context, uid string) (Balance, error) {
	return userBalance(ctx, s.pool, uid)
}

// visibleTypes is the history's filter; it matches the predicate of the
// partial index transfers_uid_seq_visible_idx (keep them identical).
const visibleTypes = `type IN ('deposit', 'income', 'expense', 'refund', 'dispute', 'repayment', 'earning_transfer')`

// Transfers implements Store: the user's history, without the hold and
// hold_release transfers (only a capture's expense is shown), with a
// creator's per-agent per-day earnings lines (earnings_days) among them.
// Without a snapshot it uses the user's highest visible seq (see
// historySnapshot): every line of the user with a lower seq has committed,
// so the set "seq <= snapshot" never changes and later pages neither repeat
// nor skip items (a day line keeps its place while its sum grows).
func (s *PostgresStore) Transfers(ctx context.Context, uid string, q PageQuery) (Page, error) {
	var snapshot int64
	if q.Snapshot != nil {
		snapshot = *q.Snapshot
	} else {
		var err error
		if snapshot, err = s.historySnapshot(ctx, uid); err != nil {
			return Page{}, err
		}
	}
	rows, err := s.pool.Query(ctx, `SELECT * FROM (
			SELECT `+ledger.TransferColumns+` FROM transfers WHERE uid = $1 AND `+visibleTypes+` AND seq <= $2
			UNION ALL
			SELECT `+dayLineColumns+` FROM earnings_days d WHERE d.creator_uid = $1 AND d.seq <= $2
		) h ORDER BY seq DESC LIMIT $3 OFFSET $4`, uid, snapshot, q.Limit+1, q.Offset)
	if err != nil {
		return Page{}, err
	}
	defer rows.Close()
	items := []Transfer{}
	for rows.Next() {
		t, err := ledger.ScanTransfer[TransferType](rows)
		if err != nil {
			return Page{}, err
		}
		items = append(items, t)
	}
	if err := rows.Err(); err != nil {
		return Page{}, err
	}
	p := Page{Limit: q.Limit, Offset: q.Offset, Snapshot: snapshot}
	if len(items) > q.Limit {
		p.HasMore = true
		items = items[:q.Limit]
	}
	p.Items = items
	return p, nil
}

// CreateCheckoutSession implements Store.
func (s *PostgresStore) CreateCheckoutSession(ctx context.Context, cs CheckoutSession) error {
	status := cs.Status
	if status == "" {
		status = SessionOpen
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO checkout_sessions (id, uid, amount_cents, currency, status, url)
		VALUES ($1, $2, $3, $4, $5, $6)`, cs.ID, cs.UID, cs.AmountCents, cs.Currency, string(status), cs.URL)
	return err
}

const sessionColumns = `id, uid, amount_cents, currency, status, url, COALESCE(transfer_id::text, ''), created_at,
	COALESCE(payment_intent_id, '')`

func scanSession(row pgx.Row) (CheckoutSession, error) {
	var (
		cs     CheckoutSession
		status string
	)
	err := row.Scan(&cs.ID, &cs.UID, &cs.AmountCents, &cs.Currency, &status, &cs.URL, &cs.TransferID, &cs.CreatedAt,
		&cs.PaymentIntentID)
	cs.Status = SessionStatus(status)
	return cs, err
}

// CheckoutSession returns a recorded session (pgx.ErrNoRows when unknown).
func (s *PostgresStore) CheckoutSession(ctx context.Context, id string) (CheckoutSession, error) {
	return scanSession(s.pool.QueryRow(ctx, `SELECT `+sessionColumns+` FROM checkout_sessions WHERE id = $1`, id))
}
