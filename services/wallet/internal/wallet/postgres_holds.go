package wallet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agentic-app/agentic/services/wallet/internal/ledger"
)

// Holds in the ledger (see migrations/00002_holds.sql): a hold is a transfer
// wallet → holds:<uid>, so the wallet account's balance is the available
// balance and its CHECK (>= 0) is what makes overdrawing impossible, whatever
// the interleaving. Lock order everywhere: the user's wallet row, then the
// hold row, then the holds account, then a system account (as Charge: wallet
// then system), so holds, charges and the sweeper cannot deadlock.

const holdColumns = `id::text, uid, amount_micros, status, captured_micros, COALESCE(capture_transfer_id::text, ''),
	idempotency_key, metadata, capture_description, capture_metadata, expires_at, created_at`

func scanHold(row pgx.Row, extra ...any) (Hold, error) {
	var (
		h                 Hold
		status            string
		meta, captureMeta []byte
	)
	dest := append([]any{&h.ID, &h.UID, &h.AmountMicros, &status, &h.CapturedMicros, &h.TransferID,
		&h.IdempotencyKey, &meta, &h.CaptureDescription, &captureMeta, &h.ExpiresAt, &h.CreatedAt}, extra...)
	if err := row.Scan(dest...); err != nil {
		return Hold{}, err
	}
	h.Status = HoldStatus(status)
	var err error
	if h.Metadata, err = decodeMetadata(meta); err != nil {
		return Hold{}, fmt.Errorf("hold %s metadata: %w", h.ID, err)
	}
	if h.CaptureMetadata, err = decodeMetadata(captureMeta); err != nil {
		return Hold{}, fmt.Errorf("hold %s capture metadata: %w", h.ID, err)
	}
	return h, nil
}

func decodeMetadata(raw []byte) (map[string]string, error) {
	var m map[string]string
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

func encodeMetadata(m map[string]string) ([]byte, error) {
	if m == nil {
		m = map[string]string{}
	}
	return json.Marshal(m)
}

// Transfer keys of a hold's movements. They live in the transfers' key space;
// Charge/Credit refuse keys starting with "hold:" so they cannot collide.
func holdTransferKey(holdID, what string) string { return "hold:" + holdID + ":" + what }

// Reserve implements Store.
func (s *PostgresStore) Reserve(ctx context.Context, r Reservation) (HoldResult, error) {
	if r.AmountMicros <= 0 {
		return HoldResult{}, &ValidationError{Message: "amount must be greater than 0"}
	}
	if r.TTL <= 0 {
		return HoldResult{}, &ValidationError{Message: "ttl must be greater than 0"}
	}
	// A consumer's answer: the creator pays the agent's monthly fee, in its
	// own transaction first (the creator's wallet is never locked with the
	// consumer's, so creators consuming each other's agents cannot
	// deadlock). A paused agent, or a fee its creator cannot pay, refuses
	// the consumer with ErrAgentUnavailable and nothing is held.
	var creatorFee consumerFee
	if IsConsumer(r.Metadata) {
		var err error
		if creatorFee, err = s.consumerReserveFee(ctx, r); err != nil {
			return HoldResult{Touched: creatorFee.touched}, err
		}
	}
	var (
		res   HoldResult
		after error // returned after the commit (expired holds returned on the way are kept)
	)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		res, after, err = s.reserve(ctx, tx, r)
		return err
	})
	if errors.Is(err, ledger.ErrKeyRace) {
		// A concurrent Reserve with the same key (for another user: the
		// same user's would have waited on the wallet lock) committed first.
		res, err = s.replayReserve(ctx, r)
	}
	res.Touched = creatorFee.touched
	if creatorFee.charged {
		res.FeeCharged = true
		if res.RechargeID == "" {
			res.RechargeID = creatorFee.rechargeID
		}
	}
	if err != nil {
		return HoldResult{Touched: creatorFee.touched}, err
	}
	return res, after
}

// consumerFee is what the creator's side of a consumer's Reserve did.
type consumerFee struct {
	charged    bool
	rechargeID string
	touched    []string
}

// consumerReserveFee validates a consumer's Reserve (creator_uid and
// agent_id given, the creator is not the payer) and ensures the agent's fee
// (ensureCreatorFee). A repeated Reserve whose hold exists skips it: it
// answers from the hold, whatever happened to the agent since.
func (s *PostgresStore) consumerReserveFee(ctx context.Context, r Reservation) (consumerFee, error) {
	creator, agentID := strings.TrimSpace(r.Metadata[MetaCreatorUID]), strings.TrimSpace(r.Metadata[MetaAgentID])
	switch {
	case creator == "":
		return consumerFee{}, &ValidationError{Message: "metadata creator_uid is required when payer_role is consumer"}
	case agentID == "":
		return consumerFee{}, &ValidationError{Message: "metadata agent_id is required when payer_role is consumer"}
	case creator == r.UID:
		return consumerFee{}, &ValidationError{Message: "metadata creator_uid must not be the payer"}
	}
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM holds WHERE idempotency_key = $1)`, r.IdempotencyKey).Scan(&exists); err != nil {
		return consumerFee{}, fmt.Errorf("read hold by key: %w", err)
	}
	if exists {
		return consumerFee{}, nil
	}
	charged, rechargeID, err := s.ensureCreatorFee(ctx, creator, agentID, r.Metadata[MetaAgentName])
	f := consumerFee{charged: charged, rechargeID: rechargeID}
	if charged || errors.Is(err, ErrAgentUnavailable) {
		f.touched = []string{creator}
	}
	return f, err
}

func (s *PostgresStore) replayReserve(ctx context.Context, r Reservation) (HoldResult, error) {
	h, err := scanHold(s.pool.QueryRow(ctx, `SELECT `+holdColumns+` FROM holds WHERE idempotency_key = $1`, r.IdempotencyKey))
	if err != nil {
		return HoldResult{}, fmt.Errorf("read hold by key: %w", err)
	}
	if !r.Matches(h) {
		return HoldResult{}, ErrIdempotencyConflict
	}
	bal, err := userBalance(ctx, s.pool, h.UID)
	if err != nil {
		return HoldResult{}, err
	}
	return HoldResult{Hold: h, Replayed: true, Balance: bal}, nil
}

// reserve runs a Reserve inside tx. refusal (insufficient funds) is
// returned after the commit; err rolls back.
//
//	lock + read (wallet, same-key hold, billing state, agent) → replay
//	→ debt → agent fee plan → monthly limit → funds → fee + hold.
func (s *PostgresStore) reserve(ctx context.Context, tx pgx.Tx, r Reservation) (res HoldResult, refusal error, err error) {
	v := &reserving{r: r, tx: tx, wallet: UserAccount(r.UID), holds: HoldsAccount(r.UID)}
	if err = s.lockForReserve(ctx, v); err != nil {
		return HoldResult{}, nil, err
	}
	var done bool
	if res, done, err = s.replayHeld(ctx, v); done {
		return res, nil, err
	}

	if v.st.debt > 0 {
		return HoldResult{}, fmt.Errorf("%w: owes %d", ErrDebtOutstanding, v.st.debt), nil
	}

	// 4. The agent's monthly fee, when the answer is for an agent whose paid
	// period does not cover now (its first answer, a due renewal, a paused
	// agent): charged here, before the hold, in this transaction.
	if !v.consumer {
		if v.fee, err = s.planFee(ctx, tx, r, v.st.now, v.agent); err != nil {
			return HoldResult{}, nil, err
		}
	}
	v.need = r.AmountMicros + v.fee.micros

	if res, refusal, err = s.checkLimit(ctx, v); refusal != nil || err != nil {
		return res, refusal, err
	}
	if res, refusal, err = s.checkFunds(ctx, v); refusal != nil || err != nil {
		return res, refusal, err
	}
	return s.takeHold(ctx, v)
}

// reserving is one Reserve on its way through reserve's steps, inside one
// transaction (tx): what each step read or decided, for the steps after it.
type reserving struct {
	r             Reservation
	tx            pgx.Tx
	wallet, holds string

	// lockForReserve
	available    int64
	walletExists bool
	h            Hold
	holdErr      error
	st           reserveState
	consumer     bool
	agent        *agentRow

	// reserve
	fee  feePlan
	need int64

	// expireStale
	expired []SweptHold
}

// lockForReserve is reserve's first step: the wallet lock and the reads it
// protects, in one batch.
func (s *PostgresStore) lockForReserve(ctx context.Context, v *reserving) error {
	r := v.r
	// 1. The wallet lock: every Reserve, Capture, Release, Charge and sweep of
	// this user serialises here (and seq values are drawn under it).
	// Steps 1–3 (and 4's agent lock) read in one round trip: the statements
	// of a batch run in order, so the reads after the lock see what it
	// protects.
	b := &pgx.Batch{}
	b.Queue(ledger.LockBalanceSQL, v.wallet).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&v.available)
		v.walletExists = err == nil
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("lock wallet: %w", err)
		}
		return nil
	})
	// 2. Idempotency: a same-key Reserve of this user has committed or not
	// started; another user's is caught by the unique key at the insert.
	b.Queue(`SELECT `+holdColumns+` FROM holds WHERE idempotency_key = $1`, r.IdempotencyKey).QueryRow(func(row pgx.Row) error {
		v.h, v.holdErr = scanHold(row)
		return nil
	})
	// 3. The user's billing state, exact under the wallet lock: debt, what is
	// on hold, this month's usage and the monthly limit.
	sql, args := reserveStateQuery(r.UID)
	b.Queue(sql, args...).QueryRow(func(row pgx.Row) (err error) {
		v.st, err = scanReserveState(row)
		return err
	})
	// 4a. The agent's row, locked (after the wallet: the lock order), for
	// its monthly fee below; an agent seen for the first time is created
	// there instead.
	// (A consumer's agent fee was seen to by its creator's transaction.)
	v.consumer = IsConsumer(r.Metadata)
	if agentID := r.Metadata[MetaAgentID]; agentID != "" && !v.consumer {
		b.Queue(lockAgentSQL, agentID).QueryRow(func(row pgx.Row) error {
			a, err := scanAgent(row)
			switch {
			case err == nil:
				v.agent = &a
			case !errors.Is(err, pgx.ErrNoRows):
				return fmt.Errorf("lock agent: %w", err)
			}
			return nil
		})
	}
	return v.tx.SendBatch(ctx, b).Close()
}

// replayHeld answers a Reserve whose key already has a hold from that hold
// (done); any other error than "no such hold" ends the Reserve too.
func (s *PostgresStore) replayHeld(ctx context.Context, v *reserving) (res HoldResult, done bool, err error) {
	err = v.holdErr
	switch {
	case err == nil:
		if !v.r.Matches(v.h) {
			return HoldResult{}, true, ErrIdempotencyConflict
		}
		bal, err := userBalance(ctx, v.tx, v.h.UID)
		if err != nil {
			return HoldResult{}, true, err
		}
		return HoldResult{Hold: v.h, Replayed: true, Balance: bal}, true, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return HoldResult{}, true, fmt.Errorf("read hold by key: %w", err)
	}
	return HoldResult{}, false, nil
}

// Expired holds the sweeper has not reached yet still sit in the holds
// account: return them (under the wallet lock) before refusing, so that
// nobody is refused for money that is free. Those expiries are committed
// even when the Reserve is then refused.
func (s *PostgresStore) expireStale(ctx context.Context, v *reserving) error {
	if !v.walletExists || v.expired != nil {
		return nil
	}
	var err error
	if v.expired, err = s.expireUserHolds(ctx, v.tx, v.r.UID); err != nil {
		return err
	}
	if v.expired == nil {
		v.expired = []SweptHold{}
	}
	for _, h := range v.expired {
		v.st.held -= h.AmountMicros
		v.available += h.AmountMicros
	}
	return nil
}

// checkLimit refuses a Reserve over the monthly limit.
func (s *PostgresStore) checkLimit(ctx context.Context, v *reserving) (res HoldResult, refusal, err error) {
	st, need := &v.st, v.need
	// 5. The monthly limit: what this month has spent, what is on hold and
	// this reservation (with a due fee) must fit; so captures, which never
	// exceed their holds, can never take the month over the limit.
	if l := st.limit; l != nil && st.usage+st.held+need > *l {
		if err := s.expireStale(ctx, v); err != nil {
			return HoldResult{}, nil, err
		}
		if st.usage+st.held+need > *l {
			// "Reached" as far as the owner is concerned: warn (once).
			if err := s.spendWarning(ctx, v.tx, v.r.UID, st.month, LimitWarning100, *l, st.usage); err != nil {
				return HoldResult{}, nil, err
			}
			return HoldResult{Expired: v.expired}, fmt.Errorf("%w: used %d, held %d, requested %d, limit %d",
				ErrMonthlyLimit, st.usage, st.held, need, *l), nil
		}
	}
	return HoldResult{}, nil, nil
}

// checkFunds refuses a Reserve the available balance cannot pay (fee and
// hold).
func (s *PostgresStore) checkFunds(ctx context.Context, v *reserving) (res HoldResult, refusal, err error) {
	fee, need := v.fee, v.need
	// 6. Funds: the fee and the hold both come from the available balance.
	if v.available < need {
		if err := s.expireStale(ctx, v); err != nil {
			return HoldResult{}, nil, err
		}
	}
	if !v.walletExists || v.available < need {
		if fee.renewal {
			// A renewal that cannot be paid pauses the agent (committed with
			// the refusal) until a deposit pays it.
			if err := s.pauseAgent(ctx, v.tx, fee); err != nil {
				return HoldResult{}, nil, err
			}
			return HoldResult{Expired: v.expired}, fmt.Errorf("%w: agent %s, fee %d, requested %d, available %d",
				ErrAgentPaused, fee.agentID, fee.micros, v.r.AmountMicros, max(v.available, 0)), nil
		}
		return HoldResult{Expired: v.expired}, &FundsShortError{NeededMicros: need, AvailableMicros: max(v.available, 0), FeeMicros: fee.micros}, nil
	}
	return HoldResult{}, nil, nil
}

// takeHold is reserve's last step: the due fee, then the hold.
func (s *PostgresStore) takeHold(ctx context.Context, v *reserving) (res HoldResult, refusal error, err error) {
	fee := v.fee
	var eff debitEffects
	if fee.micros > 0 {
		if eff, err = s.chargeFee(ctx, v.tx, fee); err != nil {
			return HoldResult{}, nil, err
		}
	}
	res, err = s.hold(ctx, v.tx, v.r, v.wallet, v.holds, fee.markUsed()...)
	if err != nil {
		return HoldResult{}, nil, err
	}
	res.Expired = v.expired
	res.RechargeID = eff.rechargeID
	res.FeeCharged = fee.micros > 0
	return res, nil, nil
}

// reserveState is what Reserve checks besides the available balance.
type reserveState struct {
	now   time.Time
	month time.Time
	debt  int64
	held  int64
	usage int64
	limit *int64
}

// reserveStateQuery reads what Reserve checks besides the available balance.
func reserveStateQuery(uid string) (string, []any) {
	return `SELECT now(), ` + monthSQL + `,
			COALESCE((SELECT -balance_micros FROM accounts WHERE id = $2), 0),
			COALESCE((SELECT balance_micros FROM accounts WHERE id = $3), 0),
			COALESCE((SELECT micros FROM usage_months WHERE uid = $1 AND month = ` + monthSQL + `), 0),
			(SELECT monthly_limit_micros FROM billing_settings WHERE uid = $1)`,
		[]any{uid, DebtAccount(uid), HoldsAccount(uid)}
}

func scanReserveState(row pgx.Row) (reserveState, error) {
	var st reserveState
	if err := row.Scan(&st.now, &st.month, &st.debt, &st.held, &st.usage, &st.limit); err != nil {
		return reserveState{}, fmt.Errorf("read billing state: %w", err)
	}
	return st, nil
}

// hold moves the money (wallet → holds) and records the hold. The caller
// holds the wallet lock and has checked the funds; the wallet's CHECK is the
// backstop if it ever had not.
func (s *PostgresStore) hold(ctx context.Context, tx pgx.Tx, r Reservation, wallet, holds string, also ...batched) (HoldResult, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return HoldResult{}, err
	}
	transferSQL, transferArgs, err := ledger.InsertStatement(ledger.Entry[TransferType]{Key: holdTransferKey(id.String(), "reserve"), Debit: wallet,
		Credit: holds, Amount: r.AmountMicros, Type: TypeHold, UID: r.UID, Description: "Hold", Provider: ProviderPlatform})
	if err != nil {
		return HoldResult{}, err
	}
	meta, err := encodeMetadata(r.Metadata)
	if err != nil {
		return HoldResult{}, err
	}
	// The writes go as one batch (one round trip under the wallet lock);
	// they run in order and the first failure fails the rest. The transfer's
	// id is chosen here, so the hold can name it in the same batch.
	var (
		available, held int64
		h               Hold
	)
	b := &pgx.Batch{}
	b.Queue(ledger.AddBalanceSQL, wallet, -r.AmountMicros).QueryRow(func(row pgx.Row) (err error) {
		available, err = ledger.ScanBalance(row, wallet)
		return err
	})
	// The holds account is created on the first Reserve (an upsert: one
	// statement, under the wallet lock so never contended).
	b.Queue(ledger.AddOrCreateSQL(ledger.KindUserHolds)+`
		RETURNING balance_micros`, holds, r.UID, r.AmountMicros).QueryRow(func(row pgx.Row) error {
		if err := row.Scan(&held); err != nil {
			return fmt.Errorf("update holds account: %w", err)
		}
		return nil
	})
	b.Queue(transferSQL, transferArgs...).QueryRow(func(row pgx.Row) error {
		_, err := ledger.ScanInserted[TransferType](row)
		return err
	})
	b.Queue(`
		INSERT INTO holds (id, uid, idempotency_key, amount_micros, status, metadata, hold_transfer_id, expires_at)
		VALUES ($1, $2, $3, $4, 'held', $5, $6, now() + $7 * interval '1 microsecond')
		ON CONFLICT (idempotency_key) DO NOTHING
		RETURNING `+holdColumns, id, r.UID, r.IdempotencyKey, r.AmountMicros, meta, transferArgs[0], r.TTL.Microseconds()).
		QueryRow(func(row pgx.Row) (err error) {
			h, err = scanHold(row)
			if errors.Is(err, pgx.ErrNoRows) {
				return ledger.ErrKeyRace
			}
			if err != nil {
				return fmt.Errorf("insert hold: %w", err)
			}
			return nil
		})
	for _, q := range also {
		b.Queue(q.sql, q.args...).Exec(func(pgconn.CommandTag) error { return nil })
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return HoldResult{}, err
	}
	return HoldResult{Hold: h, Balance: Balance{Micros: available + held, HeldMicros: held}}, nil
}

// batched is a statement sent in another's batch.
type batched struct {
	sql  string
	args []any
}

// lockHold locks the wallet of the hold's owner, then the hold, and reports
// whether the hold is past its expiry (database clock: one clock for every
// replica).
func lockHold(ctx context.Context, tx pgx.Tx, holdID string) (Hold, bool, error) {
	if _, err := uuid.Parse(holdID); err != nil {
		return Hold{}, false, ErrHoldNotFound
	}
	var uid string
	err := tx.QueryRow(ctx, `SELECT uid FROM holds WHERE id = $1`, holdID).Scan(&uid) // uid never changes
	if errors.Is(err, pgx.ErrNoRows) {
		return Hold{}, false, ErrHoldNotFound
	}
	if err != nil {
		return Hold{}, false, fmt.Errorf("read hold: %w", err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, UserAccount(uid)); err != nil {
		return Hold{}, false, fmt.Errorf("lock wallet: %w", err)
	}
	var pastExpiry bool
	h, err := scanHold(tx.QueryRow(ctx, `SELECT `+holdColumns+`, expires_at <= now() FROM holds WHERE id = $1 FOR UPDATE`, holdID), &pastExpiry)
	if err != nil {
		return Hold{}, false, fmt.Errorf("lock hold: %w", err)
	}
	return h, pastExpiry, nil
}

// Capture implements Store.
func (s *PostgresStore) Capture(ctx context.Context, c Capture) (HoldResult, error) {
	if c.AmountMicros < 0 {
		return HoldResult{}, &ValidationError{Message: "amount must not be negative"}
	}
	var (
		res   HoldResult
		after error
	)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		res, after = HoldResult{}, nil
		h, pastExpiry, err := lockHold(ctx, tx, c.HoldID)
		if err != nil {
			return err
		}
		switch h.Status {
		case HoldCaptured:
			if !c.Matches(h) {
				return ErrIdempotencyConflict
			}
			bal, err := userBalance(ctx, tx, h.UID)
			res = HoldResult{Hold: h, Replayed: true, Balance: bal}
			return err
		case HoldReleased:
			return ErrHoldReleased
		case HoldExpired:
			return ErrHoldExpired
		}
		if pastExpiry {
			// Too late to charge: expire it now (the money goes back at
			// once, not at the next sweep), commit, and refuse.
			res, err = s.settle(ctx, tx, h, HoldExpired, nil)
			res.Expired = []SweptHold{{ID: h.ID, UID: h.UID, AmountMicros: h.AmountMicros}}
			after = ErrHoldExpired
			return err
		}
		if c.AmountMicros > h.AmountMicros {
			return &ValidationError{Message: fmt.Sprintf("amount_micros %d exceeds the held amount %d", c.AmountMicros, h.AmountMicros)}
		}
		// A consumer's answer: the creator's part must fit in what is
		// captured, and the creator is not the payer.
		if split, ok, err := ConsumerSplit(c.Metadata); err != nil {
			return err
		} else if ok {
			if err := validateSplit(split, h.UID, c.AmountMicros); err != nil {
				return err
			}
		}
		res, err = s.settle(ctx, tx, h, HoldCaptured, &c)
		return err
	})
	if err != nil {
		return HoldResult{}, err
	}
	return res, after
}

// Release implements Store.
func (s *PostgresStore) Release(ctx context.Context, holdID string) (HoldResult, error) {
	var res HoldResult
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		h, pastExpiry, err := lockHold(ctx, tx, holdID)
		if err != nil {
			return err
		}
		switch h.Status {
		case HoldCaptured:
			return ErrHoldCaptured
		case HoldReleased, HoldExpired:
			bal, err := userBalance(ctx, tx, h.UID)
			res = HoldResult{Hold: h, Replayed: true, Balance: bal}
			return err
		}
		// After its expiry a hold can only end as expired, whoever returns it.
		to := HoldReleased
		if pastExpiry {
			to = HoldExpired
		}
		res, err = s.settle(ctx, tx, h, to, nil)
		if to == HoldExpired {
			res.Expired = []SweptHold{{ID: h.ID, UID: h.UID, AmountMicros: h.AmountMicros}}
		}
		return err
	})
	if err != nil {
		return HoldResult{}, err
	}
	return res, nil
}

// settle closes an open hold h (wallet and hold locked by the caller): c's
// amount (capture) becomes an expense holds → platform revenue, the rest
// goes back holds → wallet. Without c (release, expiry) everything goes
// back. Enqueues c.Events with the expense.
func (s *PostgresStore) settle(ctx context.Context, tx pgx.Tx, h Hold, to HoldStatus, c *Capture) (HoldResult, error) {
	v := &settling{h: h, to: to}
	if c != nil {
		v.captured, v.description, v.meta = c.AmountMicros, c.Description, c.Metadata
	}
	v.rest = h.AmountMicros - v.captured
	if err := v.post(ctx, tx); err != nil {
		return HoldResult{}, err
	}
	bal := Balance{Micros: v.available + v.held, HeldMicros: v.held}
	if v.captured == 0 {
		return HoldResult{Hold: v.settled, Balance: bal}, nil
	}
	rechargeID, touched, err := s.afterCapture(ctx, tx, v, c, bal)
	if err != nil {
		return HoldResult{}, err
	}
	return HoldResult{Hold: v.settled, Balance: bal, RechargeID: rechargeID, Touched: touched}, nil
}

// settling is one settle: what it moves and what its batch read back.
type settling struct {
	h           Hold
	to          HoldStatus
	captured    int64 // holds → platform revenue
	rest        int64 // holds → wallet
	description string
	meta        map[string]string

	expense         Transfer
	held, available int64
	settled         Hold
}

// post writes the transfers, the two user balances and the hold's new state
// as one batch (one round trip under the wallet lock; in order, the first
// failure fails the rest). Transfer ids are chosen here so that the hold can
// name them in the same batch.
func (v *settling) post(ctx context.Context, tx pgx.Tx) error {
	h := v.h
	wallet, holds := UserAccount(h.UID), HoldsAccount(h.UID)
	metaJSON, err := encodeMetadata(v.meta)
	if err != nil {
		return err
	}
	var captureID, returnID *string
	b := &pgx.Batch{}
	if v.captured > 0 {
		sql, args, err := ledger.InsertStatement(ledger.Entry[TransferType]{Key: holdTransferKey(h.ID, "capture"), Debit: holds,
			Credit: AccountPlatformRevenue, Amount: v.captured, Type: TypeExpense, UID: h.UID,
			Description: v.description, Provider: ProviderPlatform, Metadata: v.meta})
		if err != nil {
			return err
		}
		id := args[0].(uuid.UUID).String()
		captureID = &id
		b.Queue(sql, args...).QueryRow(func(row pgx.Row) (err error) {
			v.expense, err = ledger.ScanInserted[TransferType](row)
			return err
		})
	}
	if v.rest > 0 {
		sql, args, err := ledger.InsertStatement(ledger.Entry[TransferType]{Key: holdTransferKey(h.ID, "release"), Debit: holds, Credit: wallet,
			Amount: v.rest, Type: TypeHoldRelease, UID: h.UID, Description: "Hold " + string(v.to), Provider: ProviderPlatform})
		if err != nil {
			return err
		}
		id := args[0].(uuid.UUID).String()
		returnID = &id
		b.Queue(sql, args...).QueryRow(func(row pgx.Row) error {
			_, err := ledger.ScanInserted[TransferType](row)
			return err
		})
	}
	b.Queue(ledger.AddBalanceSQL, holds, -h.AmountMicros).QueryRow(func(row pgx.Row) (err error) {
		v.held, err = ledger.ScanBalance(row, holds)
		return err
	})
	b.Queue(ledger.AddBalanceSQL, wallet, v.rest).QueryRow(func(row pgx.Row) (err error) {
		v.available, err = ledger.ScanBalance(row, wallet)
		return err
	})
	b.Queue(`UPDATE holds SET status = $2, captured_micros = $3, capture_description = $4,
		capture_metadata = $5, capture_transfer_id = $6, release_transfer_id = $7, settled_at = now()
		WHERE id = $1 AND status = 'held' RETURNING `+holdColumns,
		h.ID, string(v.to), v.captured, v.description, metaJSON, captureID, returnID).QueryRow(func(row pgx.Row) (err error) {
		if v.settled, err = scanHold(row); err != nil {
			return fmt.Errorf("settle hold %s: %w", h.ID, err)
		}
		return nil
	})
	return tx.SendBatch(ctx, b).Close()
}

// afterCapture does what a capture means beyond the hold: c's events, the
// usage and its billing rules, the creator's earning and platform revenue.
// It returns the auto-recharge the debit started, if any, and the creators
// whose earnings changed.
func (s *PostgresStore) afterCapture(ctx context.Context, tx pgx.Tx, v *settling, c *Capture, bal Balance) (rechargeID string, touched []string, err error) {
	uid := v.h.UID
	if c.Events != nil {
		for _, ev := range c.Events(v.expense, bal.Micros) {
			if _, err := s.outbox.Enqueue(ctx, tx, ev); err != nil {
				return "", nil, err
			}
		}
	}
	// The capture is usage: this month's total, spend warnings, low
	// balance and auto-recharge, under the wallet lock the caller holds.
	usage, month, err := recordExpense(ctx, tx, uid, v.captured)
	if err != nil {
		return "", nil, err
	}
	eff, err := s.afterDebit(ctx, tx, uid, v.available, usage, month)
	if err != nil {
		return "", nil, err
	}
	// A consumer's answer: the creator's part (markup + greeting) goes
	// on from platform revenue to their pending earnings, in this
	// transaction (key hold:<id>:earning).
	revenue := v.captured
	split, consumer, err := ConsumerSplit(v.meta)
	if err != nil {
		return "", nil, err
	}
	if consumer && split.Micros() > 0 {
		if err := s.creditEarning(ctx, tx, earningFor(split, holdTransferKey(v.h.ID, "earning"), uid, v.meta, v.h.Metadata)); err != nil {
			return "", nil, err
		}
		revenue -= split.Micros()
		touched = []string{split.CreatorUID}
	}
	// The shared revenue row last, just before the commit: every
	// capture of every user waits for its lock, so it is held for one
	// statement and the commit, not for the bookkeeping above.
	if _, err := ledger.AddBalance(ctx, tx, AccountPlatformRevenue, revenue); err != nil {
		return "", nil, err
	}
	return eff.rechargeID, touched, nil
}

// expireUserHolds expires uid's open holds past their expiry; the caller
// holds uid's wallet lock.
func (s *PostgresStore) expireUserHolds(ctx context.Context, tx pgx.Tx, uid string) ([]SweptHold, error) {
	rows, err := tx.Query(ctx, `SELECT `+holdColumns+` FROM holds
		WHERE uid = $1 AND status = 'held' AND expires_at <= now() ORDER BY expires_at FOR UPDATE`, uid)
	if err != nil {
		return nil, fmt.Errorf("find expired holds: %w", err)
	}
	expired, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Hold, error) { return scanHold(r) })
	if err != nil {
		return nil, fmt.Errorf("find expired holds: %w", err)
	}
	var out []SweptHold
	for _, h := range expired {
		if _, err := s.settle(ctx, tx, h, HoldExpired, nil); err != nil {
			return nil, err
		}
		out = append(out, SweptHold{ID: h.ID, UID: h.UID, AmountMicros: h.AmountMicros})
	}
	return out, nil
}

// SweepExpiredHolds implements Store. Each hold is claimed together with its
// owner's wallet row by FOR UPDATE ... SKIP LOCKED, oldest expiry first, and
// expired in its own short transaction: replicas sweeping at the same time
// take different holds, a wallet busy with a charge is skipped until the
// next round (never waited for), and the sweeper never waits on a lock, so
// it cannot deadlock with the request path.
func (s *PostgresStore) SweepExpiredHolds(ctx context.Context, limit int) ([]SweptHold, error) {
	var out []SweptHold
	for len(out) < limit {
		var (
			swept SweptHold
			found bool
		)
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			h, err := scanHold(tx.QueryRow(ctx, `SELECT h.id::text, h.uid, h.amount_micros, h.status, h.captured_micros,
					COALESCE(h.capture_transfer_id::text, ''), h.idempotency_key, h.metadata, h.capture_description,
					h.capture_metadata, h.expires_at, h.created_at
				FROM holds h JOIN accounts w ON w.id = 'user:' || h.uid
				WHERE h.status = 'held' AND h.expires_at <= now()
				ORDER BY h.expires_at LIMIT 1
				FOR UPDATE OF w, h SKIP LOCKED`))
			if errors.Is(err, pgx.ErrNoRows) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("claim expired hold: %w", err)
			}
			if _, err := s.settle(ctx, tx, h, HoldExpired, nil); err != nil {
				return err
			}
			swept, found = SweptHold{ID: h.ID, UID: h.UID, AmountMicros: h.AmountMicros}, true
			return nil
		})
		if err != nil {
			return out, err
		}
		if !found {
			break
		}
		out = append(out, swept)
	}
	return out, nil
}

// HoldStats implements Store (an index scan over the open holds only).
func (s *PostgresStore) HoldStats(ctx context.Context) (HoldStats, error) {
	var st HoldStats
	err := s.pool.QueryRow(ctx, `SELECT count(*), COALESCE(sum(amount_micros), 0)::bigint FROM holds WHERE status = 'held'`).
		Scan(&st.Open, &st.HeldMicros)
	return st, err
}
