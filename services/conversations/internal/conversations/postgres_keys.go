package conversations

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

const apiKeyColumns = `id::text, agent_id::text, owner_uid, name, prefix, key_hash, expires_at,
	COALESCE(monthly_limit_micros, 0), created_at, last_used_at, revoked_at`

func scanAPIKey(row pgx.Row, extra ...any) (APIKey, error) {
	var k APIKey
	dst := append([]any{&k.ID, &k.AgentID, &k.OwnerUID, &k.Name, &k.Prefix, &k.Hash, &k.ExpiresAt,
		&k.MonthlyLimitMicros, &k.CreatedAt, &k.LastUsedAt, &k.RevokedAt}, extra...)
	if err := row.Scan(dst...); err != nil {
		return APIKey{}, err
	}
	return k, nil
}

// CreateAPIKey implements KeyStore. The agent's live keys are counted under
// a transaction-scoped advisory lock on the agent, so concurrent creations
// cannot pass the bound together.
func (s *PostgresStore) CreateAPIKey(ctx context.Context, k APIKey, maxLive int) (APIKey, error) {
	var out APIKey
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('api_keys:' || $1, 0))`, k.AgentID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM api_keys WHERE agent_id = $1 AND revoked_at IS NULL`, k.AgentID).Scan(&n); err != nil {
			return err
		}
		if n >= maxLive {
			return ErrTooManyKeys
		}
		var limit *int64
		if k.MonthlyLimitMicros > 0 {
			limit = &k.MonthlyLimitMicros
		}
		var err error
		out, err = scanAPIKey(tx.QueryRow(ctx, `
			INSERT INTO api_keys (id, agent_id, owner_uid, name, prefix, key_hash, expires_at, monthly_limit_micros, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			RETURNING `+apiKeyColumns,
			k.ID, k.AgentID, k.OwnerUID, k.Name, k.Prefix, k.Hash, k.ExpiresAt, limit, k.CreatedAt))
		return err
	})
	return out, err
}

// ListAPIKeys implements KeyStore.
func (s *PostgresStore) ListAPIKeys(ctx context.Context, agentID, ownerUID string, month time.Time) ([]APIKey, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT `+apiKeyColumns+`, COALESCE(sp.spent_micros, 0)
		FROM api_keys k LEFT JOIN api_key_spend sp ON sp.key_id = k.id AND sp.month = $3
		WHERE k.agent_id = $1 AND k.owner_uid = $2 AND k.revoked_at IS NULL
		ORDER BY k.created_at DESC, k.id DESC`, agentID, ownerUID, month)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []APIKey{}
	for rows.Next() {
		var spent int64
		k, err := scanAPIKey(rows, &spent)
		if err != nil {
			return nil, err
		}
		k.MonthSpendMicros = spent
		out = append(out, k)
	}
	return out, rows.Err()
}

// RevokeAPIKey implements KeyStore.
func (s *PostgresStore) RevokeAPIKey(ctx context.Context, agentID, ownerUID, id string, at time.Time) error {
	tag, err := s.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = $4, revocation_logged_at = now()
		WHERE id = $1 AND agent_id = $2 AND owner_uid = $3 AND revoked_at IS NULL`, id, agentID, ownerUID, at)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return ErrAPIKeyNotFound
	}
	return nil
}

// RevokedAPIKeysSince implements KeyRevocationFeed: one round trip that
// returns the database's clock and the keys whose revocation (or deletion
// with their agent) was logged from since minus margin on (since zero:
// from now minus margin).
func (s *PostgresStore) RevokedAPIKeysSince(ctx context.Context, since time.Time, margin time.Duration) ([]string, time.Time, error) {
	var (
		from *time.Time
		ids  []string
		now  time.Time
	)
	if !since.IsZero() {
		from = &since
	}
	// Keys of deleted agents (deleted_api_keys, agent_deleted.go) count as
	// revoked: their rows are gone, but a replica may still cache them.
	err := s.pool.QueryRow(ctx, `SELECT now(), ARRAY(
			SELECT id::text FROM api_keys
			WHERE revocation_logged_at >= COALESCE($1, now()) - make_interval(secs => $2)
			UNION ALL
			SELECT id::text FROM deleted_api_keys
			WHERE deleted_at >= COALESCE($1, now()) - make_interval(secs => $2))`,
		from, margin.Seconds()).Scan(&now, &ids)
	return ids, now, err
}

// APIKeyByHash implements KeyStore.
func (s *PostgresStore) APIKeyByHash(ctx context.Context, hash []byte) (APIKey, error) {
	k, err := scanAPIKey(s.pool.QueryRow(ctx, `SELECT `+apiKeyColumns+` FROM api_keys WHERE key_hash = $1`, hash))
	if errors.Is(err, pgx.ErrNoRows) {
		return APIKey{}, ErrAPIKeyInvalid
	}
	return k, err
}

// checkKeyCharge is BeginTurn's check of an API answer's key, in the turn's
// transaction: the key row is read again (a revocation committed a moment
// ago stops the answer here, whatever a replica's cache says) and, for a
// key with a monthly limit, locked while its month's spend, its open
// charges and this reservation are added up, so that concurrent requests
// are checked one after the other and cannot exceed the limit together.
// Open charges count with their reservation (their worst case) until the
// actual amount is known.
func checkKeyCharge(ctx context.Context, tx pgx.Tx, c Charge) error {
	q := `SELECT revoked_at IS NOT NULL, expires_at, COALESCE(monthly_limit_micros, 0) FROM api_keys WHERE id = $1`
	if c.APIKeyLimitMicros > 0 {
		q += ` FOR UPDATE`
	}
	var (
		revoked bool
		expires *time.Time
		limit   int64
	)
	err := tx.QueryRow(ctx, q, c.APIKeyID).Scan(&revoked, &expires, &limit)
	switch {
	case errors.Is(err, pgx.ErrNoRows), err == nil && revoked:
		return ErrAPIKeyInvalid
	case err != nil:
		return fmt.Errorf("api key: %w", err)
	case expires != nil && !c.CreatedAt.Before(*expires):
		return ErrAPIKeyExpired
	}
	if limit > 0 {
		if c.APIKeyLimitMicros == 0 {
			// Limits are set at creation and never change, so this cannot
			// happen; refuse rather than check without the lock.
			return errors.New("api key: limit not known when the turn started")
		}
		var used int64
		err := tx.QueryRow(ctx, `
			SELECT COALESCE((SELECT spent_micros FROM api_key_spend WHERE key_id = $1 AND month = $2), 0)
			     + COALESCE((SELECT SUM(CASE WHEN state = 'capturing' THEN capture_micros ELSE reserve_micros END)
			                 FROM charges WHERE api_key_id = $1 AND state IN ('reserving', 'held', 'capturing')), 0)`,
			c.APIKeyID, MonthStart(c.CreatedAt)).Scan(&used)
		if err != nil {
			return fmt.Errorf("api key spend: %w", err)
		}
		if used+c.ReserveMicros > limit {
			return &KeyLimitError{LimitMicros: limit, UsedMicros: used, NeededMicros: c.ReserveMicros}
		}
	}
	// Last use, to the minute: most requests of a busy key skip the write.
	_, err = tx.Exec(ctx, `UPDATE api_keys SET last_used_at = $2
		WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`, c.APIKeyID, c.CreatedAt)
	return err
}

// The statements of the subscriber cap (checkSubscriberCap, FinishCharge).
const (
	// lockSubscriberCapSQL serialises the capped turns of one (agent, subscriber).
	lockSubscriberCapSQL = `SELECT pg_advisory_xact_lock(hashtextextended('subscriber_cap:' || $1::text || ':' || $2::text, 0))`
	// subscriberUsedSQL is what subscriber $2's answers of agent $1 cost
	// their payer in month $3: the captured spend, plus the open charges at
	// their reservation (their actual amount once capturing). The open
	// charges' condition is the partial index's (charges_open_subscriber_idx).
	subscriberUsedSQL = `
		SELECT COALESCE((SELECT spent_micros FROM subscriber_spend WHERE agent_id = $1 AND user_uid = $2 AND month = $3), 0)
		     + COALESCE((SELECT SUM(CASE WHEN state = 'capturing' THEN capture_micros ELSE reserve_micros END)
		                 FROM charges WHERE agent_id = $1 AND user_uid = $2
		                   AND payer_uid <> user_uid AND state IN ('reserving', 'held', 'capturing')), 0)`
	insertSubscriberCapNoticeSQL = `
		INSERT INTO subscriber_cap_notices (agent_id, user_uid, month, cap_micros, spent_micros, created_at)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (agent_id, user_uid, month) DO NOTHING`
	upsertSubscriberSpendSQL = `
		INSERT INTO subscriber_spend (agent_id, user_uid, month, spent_micros) VALUES ($1, $2, $3, $4)
		ON CONFLICT (agent_id, user_uid, month) DO UPDATE SET spent_micros = subscriber_spend.spent_micros + EXCLUDED.spent_micros`
)

// checkSubscriberCap is BeginTurn's check of a capped subscriber's turn, in
// the turn's transaction, as checkKeyCharge is for a key's limit: under a
// transaction-scoped lock on (agent, subscriber), so that their concurrent
// turns are checked one after the other, the month's spend, the open
// charges and this reservation must fit the cap. Over it, the refusal is
// returned (not as an error: the transaction commits) and, the first time
// in the month, a notice is recorded and SubscriberCapReached enqueued.
func (s *PostgresStore) checkSubscriberCap(ctx context.Context, tx pgx.Tx, c Charge) (*SubscriberCapError, error) {
	capped := c.SubscriberCap
	if _, err := tx.Exec(ctx, lockSubscriberCapSQL, c.AgentID, c.UserUID); err != nil {
		return nil, fmt.Errorf("subscriber cap lock: %w", err)
	}
	month := MonthStart(c.CreatedAt)
	var used int64
	if err := tx.QueryRow(ctx, subscriberUsedSQL, c.AgentID, c.UserUID, month).Scan(&used); err != nil {
		return nil, fmt.Errorf("subscriber spend: %w", err)
	}
	if used+c.ReserveMicros <= capped.CapMicros {
		return nil, nil
	}
	tag, err := tx.Exec(ctx, insertSubscriberCapNoticeSQL, c.AgentID, c.UserUID, month, capped.CapMicros, used, c.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("subscriber cap notice: %w", err)
	}
	if tag.RowsAffected() == 1 {
		if _, err := s.outbox.Enqueue(ctx, tx, subscriberCapEvent(c, used, month, c.CreatedAt)); err != nil {
			return nil, fmt.Errorf("subscriber cap event: %w", err)
		}
	}
	return &SubscriberCapError{CapMicros: capped.CapMicros, SpentMicros: used, NeededMicros: c.ReserveMicros}, nil
}
