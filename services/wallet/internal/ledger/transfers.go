package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Transfer is one immutable ledger entry: AmountMicros moved from
// DebitAccount to CreditAccount. Its Type is in the caller's vocabulary
// (T): the ledger stores it and never interprets it.
type Transfer[T ~string] struct {
	ID             string
	Seq            int64
	UID            string
	DebitAccount   string
	CreditAccount  string
	AmountMicros   int64
	Type           T
	Description    string
	Provider       string
	Metadata       map[string]string
	IdempotencyKey string
	CreatedAt      time.Time
}

// TransferColumns are the columns ScanTransfer reads, in its order.
const TransferColumns = `id::text, seq, uid, debit_account, credit_account, amount_micros, type, description,
	provider, metadata, idempotency_key, created_at`

// ScanTransfer reads a row of TransferColumns.
func ScanTransfer[T ~string](row pgx.Row) (Transfer[T], error) {
	var (
		t    Transfer[T]
		typ  string
		meta []byte
	)
	if err := row.Scan(&t.ID, &t.Seq, &t.UID, &t.DebitAccount, &t.CreditAccount, &t.AmountMicros, &typ,
		&t.Description, &t.Provider, &meta, &t.IdempotencyKey, &t.CreatedAt); err != nil {
		return Transfer[T]{}, err
	}
	t.Type = T(typ)
	if len(meta) > 0 {
		if err := json.Unmarshal(meta, &t.Metadata); err != nil {
			return Transfer[T]{}, fmt.Errorf("transfer %s metadata: %w", t.ID, err)
		}
	}
	if len(t.Metadata) == 0 {
		t.Metadata = nil
	}
	return t, nil
}

// Entry is a transfer to insert (T as in Transfer).
type Entry[T ~string] struct {
	Key           string
	Debit, Credit string
	Amount        int64
	Type          T
	UID           string
	Description   string
	Provider      string
	Metadata      map[string]string
}

// Insert inserts one immutable transfer (a fresh UUIDv7, seq drawn now, so
// callers hold the user's wallet lock). ErrKeyRace when a concurrent
// transaction committed the same idempotency key first. It does not touch
// the balances: the caller moves them with AddBalance, in the order its
// lock order requires.
func Insert[T ~string](ctx context.Context, tx pgx.Tx, e Entry[T]) (Transfer[T], error) {
	sql, args, err := InsertStatement(e)
	if err != nil {
		return Transfer[T]{}, err
	}
	return ScanInserted[T](tx.QueryRow(ctx, sql, args...))
}

// InsertStatement is the statement Insert runs (a fresh UUIDv7 id, its
// first argument), for callers that send it in a batch.
func InsertStatement[T ~string](e Entry[T]) (string, []any, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return "", nil, err
	}
	meta := e.Metadata
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
		RETURNING ` + TransferColumns,
		[]any{id, e.Key, e.Debit, e.Credit, e.Amount, string(e.Type), e.UID, e.Description, e.Provider, metaJSON}, nil
}

// ScanInserted reads the row of InsertStatement: ErrKeyRace when a
// concurrent transaction committed the same idempotency key first.
func ScanInserted[T ~string](row pgx.Row) (Transfer[T], error) {
	t, err := ScanTransfer[T](row)
	if errors.Is(err, pgx.ErrNoRows) {
		return Transfer[T]{}, ErrKeyRace
	}
	if err != nil {
		return Transfer[T]{}, fmt.Errorf("insert transfer: %w", err)
	}
	return t, nil
}
