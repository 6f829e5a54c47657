package wallet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentic-app/agentic/services/platform/events"
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

// errKeyRace: a concurrent transaction inserted the same idempotency key
// first (for another wallet); the caller re-reads the winner.
var errKeyRace = errors.New("idempotency key inserted concurrently")

const transferColumns = `id::text, seq, uid, debit_account, credit_account, amount_micros, type, description,
	provider, metadata, idempotency_key, created_at`

func scanTransfer(row pgx.Row) (Transfer, error) {
	var (
		t    Transfer
		typ  string
		meta []byte
	)
	if err := row.Scan(&t.ID, &t.Seq, &t.UID, &t.DebitAccount, &t.CreditAccount, &t.AmountMicros, &typ,
		&t.Description, &t.Provider, &meta, &t.IdempotencyKey, &t.CreatedAt); err != nil {
		return Transfer{}, err
	}
	t.Type = TransferType(typ)
	if len(meta) > 0 {
		if err := json.Unmarshal(meta, &t.Metadata); err != nil {
			return Transfer{}, fmt.Errorf("transfer %s metadata: %w", t.ID, err)
		}
	}
	if len(t.Metadata) == 0 {
		t.Metadata = nil
	}
	return t, nil
}

// Post implements Store.
func (s *PostgresStore) Post(ctx context.Context, p Posting) (PostResult, error) {
	var res PostResult
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		res, err = s.post(ctx, tx, p)
		return err
	})
	if errors.Is(err, errKeyRace) {
		// The winner has committed (ON CONFLICT waited for it): compare with it.
		return s.replay(ctx, s.pool, p)
	}
	return res, err
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// replay returns the transfer stored under p's key if it matches p.
func (s *PostgresStore) replay(ctx context.Context, q querier, p Posting) (PostResult, error) {
	t, err := scanTransfer(q.QueryRow(ctx, `SELECT `+transferColumns+` FROM transfers WHERE idempotency_key = $1`, p.IdempotencyKey))
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

func userBalance(ctx context.Context, q querier, uid string) (Balance, error) {
	var b Balance
	if err := q.QueryRow(ctx, balanceSQL, UserAccount(uid), HoldsAccount(uid)).Scan(&b.Micros, &b.HeldMicros); err != nil {
		return Balance{}, fmt.Errorf("read balance: %w", err)
	}
	return b, nil
}

// transferRow is a transfer to insert.
type transferRow struct {
	key           string
	debit, credit string
	amount        int64
	typ           TransferType
	uid           string
	description   string
	provider      string
	metadata      map[string]string
}

// insertTransfer inserts one immutable transfer (a fresh UUIDv7, seq drawn
// now, so callers hold the user's wallet lock). errKeyRace when a concurrent
// transaction committed the same idempotency key first.
func insertTransfer(ctx context.Context, tx pgx.Tx, r transferRow) (Transfer, error) {
	sql, args, err := transferInsert(r)
	if err != nil {
		return Transfer{}, err
	}
	return scanInsertedTransfer(tx.QueryRow(ctx, sql, args...))
}

// transferInsert is the statement insertTransfer runs (a fresh UUIDv7 id),
// for callers that send it in a batch.
func transferInsert(r transferRow) (string, []any, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return "", nil, err
	}
	meta := r.metadata
	if meta == nil {
		meta = map[string]string{}
	}
	metaJSON, err := json.Marshal(meta)
	if err != nil {
		return "", nil, err
	}
	return `
		INSERT INTO transfers (id, idempotency_key, debit_account, credit_account, amount_micros, type, uid,
			description, provider, metadata)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (idempotency_key) DO NOTHING
		RETURNING ` + transferColumns,
		[]any{id, r.key, r.debit, r.credit, r.amount, string(r.typ), r.uid, r.description, r.provider, metaJSON}, nil
}

// scanInsertedTransfer reads the row of transferInsert: errKeyRace when a
// concurrent transaction committed the same idempotency key first.
func scanInsertedTransfer(row pgx.Row) (Transfer, error) {
	t, err := scanTransfer(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return Transfer{}, errKeyRace
	}
	if err != nil {
		return Transfer{}, fmt.Errorf("insert transfer: %w", err)
	}
	return t, nil
}

// addBalance adds delta to an existing account and returns its new balance;
// the accounts' CHECK constraints refuse a negative user account here.
func addBalance(ctx context.Context, tx pgx.Tx, account string, delta int64) (int64, error) {
	return scanBalance(tx.QueryRow(ctx, addBalanceSQL, account, delta), account)
}

const addBalanceSQL = `UPDATE accounts SET balance_micros = balance_micros + $2, updated_at = now()
		WHERE id = $1 RETURNING balance_micros`

// scanBalance reads the row of addBalanceSQL.
func scanBalance(row pgx.Row, account string) (int64, error) {
	var bal int64
	err := row.Scan(&bal)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("account %s missing", account)
	}
	if err != nil {
		return 0, fmt.Errorf("update %s: %w", account, err)
	}
	return bal, nil
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
	var balance int64
	err = tx.QueryRow(ctx, `SELECT balance_micros FROM accounts WHERE id = $1 FOR UPDATE`, user).Scan(&balance)
	walletExists := err == nil
	switch {
	case errors.Is(err, pgx.ErrNoRows) && p.Type != TypeExpense:
		if _, err := tx.Exec(ctx, `INSERT INTO accounts (id, kind, uid) VALUES ($1, 'user_wallet', $2) ON CONFLICT (id) DO NOTHING`,
			user, p.UID); err != nil {
			return PostResult{}, fmt.Errorf("create wallet: %w", err)
		}
		if err := tx.QueryRow(ctx, `SELECT balance_micros FROM accounts WHERE id = $1 FOR UPDATE`, user).Scan(&balance); err != nil {
			return PostResult{}, fmt.Errorf("lock new wallet: %w", err)
		}
		walletExists = true
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return PostResult{}, fmt.Errorf("lock wallet: %w", err)
	}

	// 2. Idempotency: under the lock, a same-key posting of this user has
	// either committed (visible now) or not started.
	existing, err := scanTransfer(tx.QueryRow(ctx, `SELECT `+transferColumns+` FROM transfers WHERE idempotency_key = $1`, p.IdempotencyKey))
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
	if balance, err = addBalance(ctx, tx, user, delta); err != nil {
		return PostResult{}, fmt.Errorf("update wallet: %w", err)
	}

	// 4. The transfer (seq drawn now, under the wallet lock).
	t, err := insertTransfer(ctx, tx, transferRow{key: p.IdempotencyKey, debit: debit, credit: credit,
		amount: p.AmountMicros, typ: p.Type, uid: p.UID, description: p.Description, provider: p.Provider, metadata: p.Metadata})
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
		if _, err := addBalance(ctx, tx, system, -delta); err != nil {
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
		if _, err := addBalance(ctx, tx, system, revenue); err != nil {
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
			SELECT `+transferColumns+` FROM transfers WHERE uid = $1 AND `+visibleTypes+` AND seq <= $2
			UNION ALL
			SELECT `+dayLineColumns+` FROM earnings_days d WHERE d.creator_uid = $1 AND d.seq <= $2
		) h ORDER BY seq DESC LIMIT $3 OFFSET $4`, uid, snapshot, q.Limit+1, q.Offset)
	if err != nil {
		return Page{}, err
	}
	defer rows.Close()
	items := []Transfer{}
	for rows.Next() {
		t, err := scanTransfer(rows)
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

// withEvent runs fn in one transaction that first records the Stripe event
// id: a concurrent delivery of the same id waits on the insert and then sees
// a duplicate, and a later one finds it. The event's effect and its record
// commit together, so an event is applied exactly once.
func (s *PostgresStore) withEvent(ctx context.Context, ev WebhookEvent, object string, fn func(tx pgx.Tx) (WebhookResult, error)) (WebhookResult, error) {
	var res WebhookResult
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		res = WebhookResult{}
		tag, err := tx.Exec(ctx, `INSERT INTO processed_webhook_events (event_id, type, session_id) VALUES ($1, $2, NULLIF($3, ''))
			ON CONFLICT (event_id) DO NOTHING`, ev.ID, ev.Type, object)
		if err != nil {
			return fmt.Errorf("record event: %w", err)
		}
		if tag.RowsAffected() == 0 {
			res.Outcome = OutcomeDuplicateEvent
			return nil
		}
		if res, err = fn(tx); err != nil {
			return err
		}
		return s.setOutcome(ctx, tx, ev.ID, res.Outcome)
	})
	return res, err
}

// ApplyWebhook implements Store. One transaction: record the event id,
// move the session with a conditional update (only one transaction can take
// it from open/processing to paid), and credit the recorded amount with the
// session's deposit key (unique in transfers: a third line of defence). The
// payment (PaymentIntent) is recorded with the deposit for later refunds and
// disputes.
func (s *PostgresStore) ApplyWebhook(ctx context.Context, ev WebhookEvent, deposit func(CheckoutSession) Posting) (WebhookResult, error) {
	return s.withEvent(ctx, ev, ev.SessionID, func(tx pgx.Tx) (WebhookResult, error) {
		var (
			res  WebhookResult
			to   SessionStatus
			from []string
		)
		switch {
		case (ev.Type == EventCheckoutCompleted && ev.PaymentStatus == "paid") || ev.Type == EventCheckoutAsyncPaymentSucceded:
			to, from = SessionPaid, []string{string(SessionOpen), string(SessionProcessing)}
		case ev.Type == EventCheckoutCompleted && ev.PaymentStatus == "unpaid":
			// Delayed payment methods: async_payment_succeeded/failed follows.
			to, from = SessionProcessing, []string{string(SessionOpen)}
		case ev.Type == EventCheckoutAsyncPaymentFailed:
			to, from = SessionFailed, []string{string(SessionOpen), string(SessionProcessing)}
		case ev.Type == EventCheckoutExpired:
			to, from = SessionExpired, []string{string(SessionOpen)}
		default:
			res.Outcome = OutcomeIgnored
			return res, nil
		}

		cs, err := scanSession(tx.QueryRow(ctx, `UPDATE checkout_sessions SET status = $2, updated_at = now(),
				payment_intent_id = COALESCE(payment_intent_id, NULLIF($4, ''))
			WHERE id = $1 AND status = ANY($3) RETURNING `+sessionColumns, ev.SessionID, string(to), from, ev.PaymentIntentID))
		if errors.Is(err, pgx.ErrNoRows) {
			cs, err = scanSession(tx.QueryRow(ctx, `SELECT `+sessionColumns+` FROM checkout_sessions WHERE id = $1`, ev.SessionID))
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				res.Outcome = OutcomeUnknownSession
			case err != nil:
				return res, fmt.Errorf("read session: %w", err)
			default:
				res.Outcome, res.Session = OutcomeAlreadyFinal, cs
				// A session credited before its PaymentIntent was known
				// (an event without it, or before payments were recorded)
				// learns it from a later event.
				if cs.Status == SessionPaid && cs.TransferID != "" && ev.PaymentIntentID != "" {
					// Early refund/dispute events may apply now: under the owner's wallet lock.
					if _, _, err := lockWallet(ctx, tx, cs.UID); err != nil {
						return res, err
					}
					if err := s.recordPayment(ctx, tx, stripePayment{pi: ev.PaymentIntentID, uid: cs.UID,
						cents: cs.AmountCents, transferID: cs.TransferID, sessionID: cs.ID}); err != nil {
						return res, err
					}
				}
			}
			return res, nil
		}
		if err != nil {
			return res, fmt.Errorf("update session: %w", err)
		}
		res.Session = cs
		if to != SessionPaid {
			res.Outcome = OutcomeMarked
			return res, nil
		}

		pr, err := s.post(ctx, tx, deposit(cs))
		if err != nil {
			return res, fmt.Errorf("credit session %s: %w", cs.ID, err)
		}
		if _, err := tx.Exec(ctx, `UPDATE checkout_sessions SET transfer_id = $2 WHERE id = $1`, cs.ID, pr.Transfer.ID); err != nil {
			return res, fmt.Errorf("link transfer: %w", err)
		}
		if pi := cs.PaymentIntentID; pi != "" {
			if err := s.recordPayment(ctx, tx, stripePayment{pi: pi, uid: cs.UID, cents: cs.AmountCents,
				transferID: pr.Transfer.ID, sessionID: cs.ID}); err != nil {
				return res, err
			}
		}
		res.Session.TransferID = pr.Transfer.ID
		res.Outcome, res.Credit = OutcomeCredited, &pr
		return res, nil
	})
}

func (s *PostgresStore) setOutcome(ctx context.Context, tx pgx.Tx, eventID string, o WebhookOutcome) error {
	_, err := tx.Exec(ctx, `UPDATE processed_webhook_events SET outcome = $2 WHERE event_id = $1`, eventID, string(o))
	return err
}

// InvariantViolation describes a broken ledger invariant.
type InvariantViolation struct{ Problems []string }

func (e *InvariantViolation) Error() string {
	return fmt.Sprintf("ledger invariants violated: %v", e.Problems)
}

// CheckInvariants verifies, in one REPEATABLE READ snapshot, that the sum of
// all debits equals the sum of all credits (the balances sum to zero), that
// every account's stored balance equals its credits minus its debits, that no
// user account (wallet or holds) is negative and no debt account positive,
// that the monthly usage counters equal the expenses of their month, that
// every holds account equals its user's open holds and that every settled
// hold's captured and returned transfers add up to the hold (and, with the
// later migrations, the agent-fee and Stripe payment checks). It returns an
// *InvariantViolation listing the problems.
func (s *PostgresStore) CheckInvariants(ctx context.Context) error {
	var problems []string
	// report runs a query whose rows (three columns) each describe a problem.
	report := func(tx pgx.Tx, format, sql string) error {
		rows, err := tx.Query(ctx, sql)
		if err != nil {
			return err
		}
		found, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
			var id string
			var a, b int64
			err := r.Scan(&id, &a, &b)
			return fmt.Sprintf(format, id, a, b), err
		})
		problems = append(problems, found...)
		return err
	}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var debits, credits, balances int64
		if err := tx.QueryRow(ctx, `SELECT
				(SELECT COALESCE(sum(amount_micros), 0) FROM transfers),
				(SELECT COALESCE(sum(amount_micros), 0) FROM transfers),
				(SELECT COALESCE(sum(balance_micros), 0) FROM accounts)`).Scan(&debits, &credits, &balances); err != nil {
			return err
		}
		if debits != credits || balances != 0 {
			problems = append(problems, fmt.Sprintf("debits %d, credits %d, sum of balances %d", debits, credits, balances))
		}
		if err := report(tx, "account %s: stored %d, from transfers %d", `
			WITH movements AS (
				SELECT credit_account AS account, amount_micros AS delta FROM transfers
				UNION ALL
				SELECT debit_account, -amount_micros FROM transfers
			)
			SELECT a.id, a.balance_micros, COALESCE(sum(m.delta), 0)::bigint
			FROM accounts a LEFT JOIN movements m ON m.account = a.id
			GROUP BY a.id, a.balance_micros, a.kind
			HAVING a.balance_micros <> COALESCE(sum(m.delta), 0)
			    OR (a.kind IN ('user_wallet', 'user_holds', 'user_earnings_pending', 'user_earnings_available',
			        'user_payouts_in_transit') AND a.balance_micros < 0)
			    OR (a.kind = 'user_debt' AND a.balance_micros > 0)`); err != nil {
			return err
		}
		// This month's usage counters equal the expenses of their month.
		if err := report(tx, "usage of %s: counter %d, expenses %d", `
			WITH spent AS (
				SELECT uid, (date_trunc('month', created_at AT TIME ZONE 'UTC'))::date AS month, sum(amount_micros) AS micros
				FROM transfers WHERE type = 'expense' GROUP BY 1, 2
			)
			SELECT COALESCE(u.uid, e.uid) || ' ' || COALESCE(u.month, e.month)::text,
				COALESCE(u.micros, 0), COALESCE(e.micros, 0)::bigint
			FROM usage_months u FULL JOIN spent e ON e.uid = u.uid AND e.month = u.month
			WHERE COALESCE(u.micros, 0) <> COALESCE(e.micros, 0)`); err != nil {
			return err
		}
		// Refunds and disputes moved exactly what their rows say: a payment's
		// refunded cents are its refund transfers (wallet and debt parts), a
		// dispute's withdrawn and reinstated cents its transfers.
		if err := report(tx, "stripe %s: recorded %d, transfers %d", `
			SELECT 'refunds of ' || p.payment_intent_id, p.refunded_cents * 10000,
				COALESCE((SELECT sum(amount_micros) FROM transfers t
					WHERE starts_with(t.idempotency_key, 'stripe:refund:' || p.payment_intent_id || ':')), 0)::bigint
			FROM stripe_payments p
			WHERE p.refunded_cents * 10000 <> COALESCE((SELECT sum(amount_micros) FROM transfers t
				WHERE starts_with(t.idempotency_key, 'stripe:refund:' || p.payment_intent_id || ':')), 0)
			UNION ALL
			SELECT 'dispute ' || d.id, d.withdrawn_cents * 10000 - d.reinstated_cents * 10000,
				(COALESCE((SELECT sum(amount_micros) FROM transfers t WHERE starts_with(t.idempotency_key, 'stripe:dispute:' || d.id || ':withdrawn:')), 0)
				 - COALESCE((SELECT sum(amount_micros) FROM transfers t WHERE t.idempotency_key = 'stripe:dispute:' || d.id || ':reinstated'), 0))::bigint
			FROM stripe_disputes d
			WHERE d.withdrawn_cents * 10000 <> COALESCE((SELECT sum(amount_micros) FROM transfers t
					WHERE starts_with(t.idempotency_key, 'stripe:dispute:' || d.id || ':withdrawn:')), 0)
			   OR d.reinstated_cents * 10000 <> COALESCE((SELECT sum(amount_micros) FROM transfers t
					WHERE t.idempotency_key = 'stripe:dispute:' || d.id || ':reinstated'), 0)`); err != nil {
			return err
		}
		// Every holds account carries exactly its user's open holds.
		if err := report(tx, "holds of %s: account %d, open holds %d", `
			WITH open AS (SELECT uid, sum(amount_micros) AS held FROM holds WHERE status = 'held' GROUP BY uid),
			     acc AS (SELECT uid, balance_micros FROM accounts WHERE kind = 'user_holds')
			SELECT COALESCE(acc.uid, open.uid), COALESCE(acc.balance_micros, 0), COALESCE(open.held, 0)::bigint
			FROM acc FULL JOIN open ON open.uid = acc.uid
			WHERE COALESCE(acc.balance_micros, 0) <> COALESCE(open.held, 0)`); err != nil {
			return err
		}
		// Earnings (issue 28): see checkEarnings.
		if err := checkEarnings(ctx, tx, report); err != nil {
			return err
		}
		// A settled hold's expense and returned parts add up to the hold.
		return report(tx, "hold %s: captured + returned %d, held %d", `
			SELECT h.id::text, COALESCE(c.amount_micros, 0) + COALESCE(r.amount_micros, 0), h.amount_micros
			FROM holds h
			LEFT JOIN transfers c ON c.id = h.capture_transfer_id
			LEFT JOIN transfers r ON r.id = h.release_transfer_id
			WHERE h.status <> 'held'
			  AND (h.captured_micros <> COALESCE(c.amount_micros, 0)
			    OR h.amount_micros <> COALESCE(c.amount_micros, 0) + COALESCE(r.amount_micros, 0))`)
	})
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return &InvariantViolation{Problems: problems}
	}
	return nil
}
