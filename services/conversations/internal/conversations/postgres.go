package conversations

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentic-app/agentic/services/platform/events"
)

// PostgresStore is the Store backed by PostgreSQL and the platform outbox.
type PostgresStore struct {
	pool   *pgxpool.Pool
	outbox *events.Outbox
}

// NewPostgresStore returns a Store using pool; events go to the outbox table
// of the same database.
func NewPostgresStore(pool *pgxpool.Pool) *PostgresStore {
	return &PostgresStore{pool: pool, outbox: events.NewOutbox(Source)}
}

const conversationColumns = `id::text, agent_id::text, user_uid, title, channel, created_at, updated_at, last_message_at,
	COALESCE(greeting, ''), COALESCE(greeting_message_id::text, ''), COALESCE(access_role, '')`

func scanConversation(row pgx.Row) (Conversation, error) {
	var c Conversation
	err := row.Scan(&c.ID, &c.AgentID, &c.UserUID, &c.Title, &c.Channel, &c.CreatedAt, &c.UpdatedAt, &c.LastMessageAt,
		&c.Greeting, &c.GreetingMessageID, &c.AccessRole)
	if errors.Is(err, pgx.ErrNoRows) {
		return Conversation{}, ErrConversationNotFound
	}
	return c, err
}

// CreateConversation implements Store.
func (s *PostgresStore) CreateConversation(ctx context.Context, c Conversation) (Conversation, error) {
	return scanConversation(s.pool.QueryRow(ctx, `
		INSERT INTO conversations (id, agent_id, user_uid, title, channel, created_at, updated_at, greeting, greeting_message_id,
			access_role)
		VALUES ($1, $2, $3, $4, $5, $6, $7, NULLIF($8, ''), NULLIF($9, '')::uuid, NULLIF($10, ''))
		RETURNING `+conversationColumns,
		c.ID, c.AgentID, c.UserUID, c.Title, c.Channel, c.CreatedAt, c.UpdatedAt, c.Greeting, c.GreetingMessageID, c.AccessRole))
}

// ThreadConversation implements Store. Concurrent first messages of a
// thread meet on the unique index: the loser reads the winner's row.
func (s *PostgresStore) ThreadConversation(ctx context.Context, c Conversation, threadKey string) (Conversation, error) {
	for range 3 {
		out, err := scanConversation(s.pool.QueryRow(ctx, `SELECT `+conversationColumns+` FROM conversations
			WHERE agent_id = $1 AND user_uid = $2 AND channel = $3 AND thread_key = $4 AND deleted_at IS NULL`,
			c.AgentID, c.UserUID, c.Channel, threadKey))
		if !errors.Is(err, ErrConversationNotFound) {
			return out, err
		}
		out, err = scanConversation(s.pool.QueryRow(ctx, `
			INSERT INTO conversations (id, agent_id, user_uid, title, channel, created_at, updated_at, thread_key, access_role)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULLIF($9, ''))
			ON CONFLICT DO NOTHING
			RETURNING `+conversationColumns,
			c.ID, c.AgentID, c.UserUID, c.Title, c.Channel, c.CreatedAt, c.UpdatedAt, threadKey, c.AccessRole))
		if !errors.Is(err, ErrConversationNotFound) {
			return out, err
		}
		// Lost the race to a concurrent insert: read it.
	}
	return Conversation{}, errors.New("thread conversation: could not insert or find")
}

// ListConversations implements Store.
func (s *PostgresStore) ListConversations(ctx context.Context, uid, agentID string) ([]Conversation, error) {
	// The agent API's conversations (one per key) are the record of its
	// answers, not chats: they are not listed.
	rows, err := s.pool.Query(ctx, `SELECT `+conversationColumns+` FROM conversations
		WHERE user_uid = $1 AND agent_id = $2 AND deleted_at IS NULL AND channel <> 'api'
		ORDER BY COALESCE(last_message_at, created_at) DESC, id DESC`, uid, agentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Conversation{}
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Library implements Store: the user's live consumer conversations (not the
// agent API's), grouped by agent, the agents by their latest activity
// (conversations_library_idx).
func (s *PostgresStore) Library(ctx context.Context, uid string, maxAgents, maxPerAgent int) ([]LibraryEntry, error) {
	rows, err := s.pool.Query(ctx, `
		WITH mine AS (
			SELECT id, agent_id, user_uid, title, channel, created_at, updated_at, last_message_at, greeting,
				greeting_message_id, access_role, COALESCE(last_message_at, created_at) AS activity
			FROM conversations
			WHERE user_uid = $1 AND deleted_at IS NULL AND access_role = 'consumer' AND channel <> 'api'
		), agents AS (
			SELECT agent_id, max(activity) AS last_activity FROM mine
			GROUP BY agent_id ORDER BY last_activity DESC, agent_id DESC LIMIT $2
		), ranked AS (
			SELECT m.*, a.last_activity,
				row_number() OVER (PARTITION BY m.agent_id ORDER BY m.activity DESC, m.id DESC) AS n
			FROM mine m JOIN agents a ON a.agent_id = m.agent_id
		)
		SELECT id::text, agent_id::text, user_uid, title, channel, created_at, updated_at, last_message_at,
			COALESCE(greeting, ''), COALESCE(greeting_message_id::text, ''), COALESCE(access_role, ''), last_activity
		FROM ranked WHERE n <= $3
		ORDER BY last_activity DESC, agent_id DESC, activity DESC, id DESC`, uid, maxAgents, maxPerAgent)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []LibraryEntry{}
	for rows.Next() {
		var (
			c    Conversation
			last time.Time
		)
		if err := rows.Scan(&c.ID, &c.AgentID, &c.UserUID, &c.Title, &c.Channel, &c.CreatedAt, &c.UpdatedAt, &c.LastMessageAt,
			&c.Greeting, &c.GreetingMessageID, &c.AccessRole, &last); err != nil {
			return nil, err
		}
		if n := len(out); n == 0 || out[n-1].AgentID != c.AgentID {
			out = append(out, LibraryEntry{AgentID: c.AgentID, LastActivityAt: last})
		}
		e := &out[len(out)-1]
		e.Conversations = append(e.Conversations, c)
	}
	return out, rows.Err()
}

// GetConversation implements Store.
func (s *PostgresStore) GetConversation(ctx context.Context, uid, id string) (Conversation, error) {
	return scanConversation(s.pool.QueryRow(ctx, `SELECT `+conversationColumns+` FROM conversations
		WHERE id = $1 AND user_uid = $2 AND deleted_at IS NULL`, id, uid))
}

// RenameConversation implements Store. A title that does not change keeps updatedAt.
func (s *PostgresStore) RenameConversation(ctx context.Context, uid, id, title string, at time.Time) (Conversation, error) {
	return scanConversation(s.pool.QueryRow(ctx, `
		UPDATE conversations SET title = $3, updated_at = CASE WHEN title = $3 THEN updated_at ELSE $4 END
		WHERE id = $1 AND user_uid = $2 AND deleted_at IS NULL
		RETURNING `+conversationColumns, id, uid, title, at))
}

// DeleteConversation implements Store.
func (s *PostgresStore) DeleteConversation(ctx context.Context, uid, id string, at time.Time) error {
	tag, err := s.pool.Exec(ctx, `UPDATE conversations SET deleted_at = $3
		WHERE id = $1 AND user_uid = $2 AND deleted_at IS NULL`, id, uid, at)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return ErrConversationNotFound
	}
	return nil
}

const messageColumns = `id::text, conversation_id::text, role, content, citations, status, COALESCE(client_message_id, ''),
	COALESCE(reply_to::text, ''), model, input_tokens, output_tokens, cost_micros, fee_micros, total_micros, usage_estimated,
	COALESCE(hold_id, ''), COALESCE(transfer_id, ''), created_at, updated_at, markup_micros, greeting_micros`

func scanMessage(row pgx.Row) (Message, error) {
	var (
		m         Message
		citations []byte
		model     *string
		in, out   *int64
		cost, fee *int64
		total     *int64
		estimated bool
		markup    int64
		greeting  int64
	)
	err := row.Scan(&m.ID, &m.ConversationID, &m.Role, &m.Content, &citations, &m.Status, &m.ClientMessageID,
		&m.ReplyTo, &model, &in, &out, &cost, &fee, &total, &estimated, &m.HoldID, &m.TransferID, &m.CreatedAt, &m.UpdatedAt,
		&markup, &greeting)
	if err != nil {
		return Message{}, err
	}
	m.Citations = []Citation{}
	if len(citations) > 0 {
		if err := json.Unmarshal(citations, &m.Citations); err != nil {
			return Message{}, fmt.Errorf("message %s citations: %w", m.ID, err)
		}
	}
	if model != nil && in != nil && out != nil && cost != nil && fee != nil && total != nil {
		m.Usage = &Usage{Model: *model, InputTokens: *in, OutputTokens: *out, CostMicros: *cost, FeeMicros: *fee,
			MarkupMicros: markup, GreetingMicros: greeting, TotalMicros: *total, Estimated: estimated}
	}
	return m, nil
}

func collectMessages(rows pgx.Rows) ([]Message, error) {
	defer rows.Close()
	out := []Message{}
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// Messages implements Store.
func (s *PostgresStore) Messages(ctx context.Context, conversationID string) ([]Message, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+messageColumns+` FROM messages
		WHERE conversation_id = $1 AND status <> 'pending' ORDER BY seq`, conversationID)
	if err != nil {
		return nil, err
	}
	return collectMessages(rows)
}

// historySQL reads the last $2 answered turns of conversation $1, newest first.
const historySQL = `
		SELECT u.content, a.content FROM messages a JOIN messages u ON u.id = a.reply_to
		WHERE a.conversation_id = $1 AND a.status IN ('complete', 'partial')
		ORDER BY u.seq DESC LIMIT $2`

// historyOf collects the rows of historySQL as alternating user/assistant
// messages, oldest first.
func historyOf(rows pgx.Rows) ([]Message, error) {
	defer rows.Close()
	var turns [][2]string
	for rows.Next() {
		var q, a string
		if err := rows.Scan(&q, &a); err != nil {
			return nil, err
		}
		turns = append(turns, [2]string{q, a})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]Message, 0, 2*len(turns))
	for i := len(turns) - 1; i >= 0; i-- {
		out = append(out, Message{Role: RoleUser, Content: turns[i][0]}, Message{Role: RoleAssistant, Content: turns[i][1]})
	}
	return out, nil
}

// usersConversationSQL reads conversation $1 if it is user $2's.
const usersConversationSQL = `SELECT ` + conversationColumns + ` FROM conversations
		WHERE id = $1 AND user_uid = $2 AND deleted_at IS NULL`

// OpenTurn implements Store: the three reads travel as one batch (one
// round trip); the turn and the history are only returned when the
// conversation is the caller's.
func (s *PostgresStore) OpenTurn(ctx context.Context, uid, conversationID, clientMessageID string, maxTurns int) (Opened, error) {
	var (
		o    Opened
		errs [3]error
	)
	b := &pgx.Batch{}
	b.Queue(usersConversationSQL, conversationID, uid).QueryRow(func(row pgx.Row) error {
		o.Conversation, errs[0] = scanConversation(row)
		return nil
	})
	b.Queue(findTurnSQL, conversationID, clientMessageID).Query(func(rows pgx.Rows) error {
		o.Turn, o.Replay, errs[1] = turnOf(rows)
		return nil
	})
	if maxTurns > 0 {
		b.Queue(historySQL, conversationID, maxTurns).Query(func(rows pgx.Rows) error {
			o.History, errs[2] = historyOf(rows)
			return nil
		})
	}
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return Opened{}, err
	}
	for _, err := range errs {
		if err != nil {
			return Opened{}, err // ErrConversationNotFound first
		}
	}
	return o, nil
}

// findTurnSQL reads the turn (user message and its reply, in no particular
// order: turnOf sorts them by role) of a clientMessageId. Two lookups, each
// on a unique index, joined by UNION ALL: the same condition written as
// "id = … OR reply_to = …" is planned as a sequential scan when the
// statement is prepared while the table is small (a new database), and pgx
// keeps that prepared statement, and PostgreSQL its generic plan, for the
// connection's life unless an ANALYZE invalidates it. It read every message
// of every conversation before each answer, 11 ms at 16,000 messages
// (TestHotQueriesUseIndexesOnANewDatabase).
const findTurnSQL = `
		WITH turn AS (SELECT id FROM messages WHERE conversation_id = $1 AND client_message_id = $2)
		SELECT ` + messageColumns + ` FROM messages WHERE id = (SELECT id FROM turn)
		UNION ALL
		SELECT ` + messageColumns + ` FROM messages WHERE reply_to = (SELECT id FROM turn)`

// The statements of beginTurnOneTrip; each write runs only if the one
// before it wrote (written: the user message $n exists).
const (
	lockConversationSQL = `SELECT id::text FROM conversations WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`
	insertUserIfNewSQL  = `
		INSERT INTO messages (id, conversation_id, role, content, status, client_message_id, created_at, updated_at)
		SELECT $1::uuid, $2::uuid, 'user', $3::text, $4::text, $5::text, $6::timestamptz, $6::timestamptz
		WHERE EXISTS (SELECT 1 FROM conversations WHERE id = $2::uuid AND deleted_at IS NULL)
		  AND NOT EXISTS (SELECT 1 FROM messages WHERE conversation_id = $2::uuid AND client_message_id = $5::text)`
	insertPendingIfWrittenSQL = `
		INSERT INTO messages (id, conversation_id, role, status, reply_to, created_at, updated_at)
		SELECT $1::uuid, $2::uuid, 'assistant', 'pending', $3::uuid, $4::timestamptz, $4::timestamptz
		WHERE EXISTS (SELECT 1 FROM messages WHERE id = $3::uuid)`
	insertChargeIfWrittenSQL = `
		INSERT INTO charges (message_id, conversation_id, agent_id, user_uid, payer_uid, channel, idempotency_key,
			reserve_micros, reserve_meta, state, lease_until, created_at, updated_at)
		SELECT $1::uuid, $2::uuid, $3::uuid, $4::text, $5::text, $6::text, $7::text, $8::bigint, $9::jsonb, 'reserving',
			$10::timestamptz, $11::timestamptz, $11::timestamptz
		WHERE EXISTS (SELECT 1 FROM messages WHERE id = $12::uuid)`
	touchConversationIfWrittenSQL = `UPDATE conversations SET last_message_at = $2, updated_at = $2
		WHERE id = $1 AND EXISTS (SELECT 1 FROM messages WHERE id = $3::uuid)`
)

// beginTurnOneTrip is BeginTurn without an API key, in one round trip: a
// pgx batch is one implicit transaction (its statements run in order and
// commit together at its end; the first failure rolls back all of them).
// The explicit BEGIN … COMMIT it replaces took four round trips, each a
// point where a busy machine schedules something else before the first
// token. The lock comes first, so a concurrent send with the same
// clientMessageId waits for this one and then finds it: the writes are
// guarded by the same conditions as the explicit version's branches (the
// conversation exists and is not deleted, no message with this
// clientMessageId yet), and each later write only if the user message was
// written.
func (s *PostgresStore) beginTurnOneTrip(ctx context.Context, user, asst Message, c Charge, reserveMeta []byte) (Turn, bool, error) {
	b := &pgx.Batch{}
	b.Queue(lockConversationSQL, user.ConversationID)
	b.Queue(findTurnSQL, user.ConversationID, user.ClientMessageID)
	b.Queue(insertUserIfNewSQL, user.ID, user.ConversationID, user.Content, user.Status, user.ClientMessageID, user.CreatedAt)
	b.Queue(insertPendingIfWrittenSQL, asst.ID, asst.ConversationID, user.ID, asst.CreatedAt)
	b.Queue(insertChargeIfWrittenSQL, c.MessageID, c.ConversationID, c.AgentID, c.UserUID, c.PayerUID, c.Channel, c.Key,
		c.ReserveMicros, string(reserveMeta), c.LeaseUntil, c.CreatedAt, user.ID)
	b.Queue(touchConversationIfWrittenSQL, user.ConversationID, user.CreatedAt, user.ID)

	br := s.pool.SendBatch(ctx, b)
	var id string
	found := true
	if err := br.QueryRow().Scan(&id); errors.Is(err, pgx.ErrNoRows) {
		found = false
	} else if err != nil {
		_ = br.Close()
		return Turn{}, false, err
	}
	rows, err := br.Query()
	if err != nil {
		_ = br.Close()
		return Turn{}, false, err
	}
	existing, replay, err := turnOf(rows)
	if err != nil {
		_ = br.Close()
		return Turn{}, false, err
	}
	var affected [4]int64
	for i, what := range []string{"insert user message", "insert assistant message", "insert charge", "touch conversation"} {
		tag, err := br.Exec()
		if err != nil {
			_ = br.Close()
			return Turn{}, false, fmt.Errorf("%s: %w", what, err)
		}
		affected[i] = tag.RowsAffected()
	}
	if err := br.Close(); err != nil { // the commit
		return Turn{}, false, err
	}
	switch {
	case !found:
		return Turn{}, false, ErrConversationNotFound
	case replay:
		return existing, false, nil
	case affected != [4]int64{1, 1, 1, 1}:
		// Cannot happen under the lock; if it did, the turn is incomplete.
		return Turn{}, false, fmt.Errorf("begin turn: wrote %v rows, want one each", affected)
	}
	return Turn{User: user, Assistant: asst}, true, nil
}

// turnOf collects the rows of findTurnSQL into a turn.
func turnOf(rows pgx.Rows) (Turn, bool, error) {
	msgs, err := collectMessages(rows)
	if err != nil || len(msgs) == 0 {
		return Turn{}, false, err
	}
	var t Turn
	for _, m := range msgs {
		if m.Role == RoleUser {
			t.User = m
		} else {
			t.Assistant = m
		}
	}
	if t.Assistant.ID == "" {
		// Cannot happen (a turn is inserted whole); treat as still in progress.
		t.Assistant = Message{Role: RoleAssistant, Status: StatusPending}
	}
	return t, true, nil
}

func jsonOf(v any) ([]byte, error) {
	if v == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(v)
}

// BeginTurn implements Store.
func (s *PostgresStore) BeginTurn(ctx context.Context, user, asst Message, c Charge) (Turn, bool, error) {
	var (
		out     Turn
		created bool
	)
	reserveMeta, err := jsonOf(c.ReserveMeta)
	if err != nil {
		return Turn{}, false, err
	}
	if c.APIKeyID == "" && c.SubscriberCap == nil && c.GreetingMicros == 0 {
		return s.beginTurnOneTrip(ctx, user, asst, c, reserveMeta)
	}
	// An agent API turn checks its key's charges, and a capped subscriber's
	// turn what the subscriber cost the payer this month, between the
	// replay check and the writes: an explicit transaction. A cap refusal
	// commits (its notice and event) without the turn.
	var capRefusal *SubscriberCapError
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The lock serialises turns of one conversation, so a turn's two
		// messages get adjacent seq numbers and a duplicate clientMessageId
		// waits for the first insert and then sees it.
		// The replay check rides in the same round trip, after the lock.
		var id string
		b := &pgx.Batch{}
		b.Queue(lockConversationSQL, user.ConversationID)
		b.Queue(findTurnSQL, user.ConversationID, user.ClientMessageID)
		br := tx.SendBatch(ctx, b)
		err := br.QueryRow().Scan(&id)
		if err != nil {
			_ = br.Close()
			if errors.Is(err, pgx.ErrNoRows) {
				return ErrConversationNotFound
			}
			return err
		}
		rows, err := br.Query()
		if err != nil {
			_ = br.Close()
			return err
		}
		t, ok, err := turnOf(rows)
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if ok {
			out = t
			return nil
		}
		if c.APIKeyID != "" {
			if err := checkKeyCharge(ctx, tx, c); err != nil {
				return err
			}
		}
		if c.GreetingMicros > 0 {
			// The greeting goes with the conversation's first charged
			// answer: this turn carries it unless another charge of the
			// conversation does and is open or paid (checked under the
			// conversation's lock, so two turns never both carry it).
			var taken bool
			if err := tx.QueryRow(ctx, greetingTakenSQL, c.ConversationID).Scan(&taken); err != nil {
				return fmt.Errorf("greeting taken: %w", err)
			}
			if taken {
				c.ReserveMicros -= c.GreetingMicros
				c.GreetingMicros = 0
			}
		}
		if c.SubscriberCap != nil {
			refusal, err := s.checkSubscriberCap(ctx, tx, c)
			if err != nil {
				return err
			}
			if refusal != nil {
				capRefusal = refusal
				return nil // commit the notice; no turn
			}
		}
		// The four writes travel as one batch: one round trip instead of
		// four while the conversation is locked (they run in order, and the
		// first failure fails the rest).
		b = &pgx.Batch{}
		b.Queue(`
			INSERT INTO messages (id, conversation_id, role, content, status, client_message_id, created_at, updated_at)
			VALUES ($1, $2, 'user', $3, $4, $5, $6, $6)`,
			user.ID, user.ConversationID, user.Content, user.Status, user.ClientMessageID, user.CreatedAt)
		b.Queue(`
			INSERT INTO messages (id, conversation_id, role, status, reply_to, created_at, updated_at)
			VALUES ($1, $2, 'assistant', 'pending', $3, $4, $4)`,
			asst.ID, asst.ConversationID, user.ID, asst.CreatedAt)
		b.Queue(`
			INSERT INTO charges (message_id, conversation_id, agent_id, user_uid, payer_uid, channel, idempotency_key,
				reserve_micros, reserve_meta, state, lease_until, created_at, updated_at, api_key_id, greeting_micros)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'reserving', $10, $11, $11, NULLIF($12, '')::uuid, $13)`,
			c.MessageID, c.ConversationID, c.AgentID, c.UserUID, c.PayerUID, c.Channel, c.Key,
			c.ReserveMicros, reserveMeta, c.LeaseUntil, c.CreatedAt, c.APIKeyID, c.GreetingMicros)
		b.Queue(`UPDATE conversations SET last_message_at = $2, updated_at = $2 WHERE id = $1`,
			user.ConversationID, user.CreatedAt)
		if err := execBatch(ctx, tx, b, "insert user message", "insert assistant message", "insert charge", "touch conversation"); err != nil {
			return err
		}
		created = true
		out = Turn{User: user, Assistant: asst, GreetingMicros: c.GreetingMicros}
		return nil
	})
	if err != nil {
		return Turn{}, false, err
	}
	if capRefusal != nil {
		return Turn{}, false, capRefusal
	}
	return out, created, nil
}

// greetingTakenSQL: another charge of conversation $1 carries the greeting
// and is open or paid (charges_greeting_idx).
const greetingTakenSQL = `SELECT EXISTS (SELECT 1 FROM charges
	WHERE conversation_id = $1 AND greeting_micros > 0 AND state IN ('reserving', 'held', 'capturing', 'captured'))`

// updateChargeSQL moves charge $1 from one of the states $2 (ChargeUpdate's
// empty fields leave their columns as they are).
const updateChargeSQL = `
	UPDATE charges SET
		state = COALESCE(NULLIF($3, ''), state),
		hold_id = COALESCE(NULLIF($4, ''), hold_id),
		last_error = COALESCE(NULLIF($5, ''), last_error),
		lease_until = COALESCE($6, lease_until),
		attempts = attempts + CASE WHEN $7 THEN 1 ELSE 0 END,
		updated_at = now()
	WHERE message_id = $1 AND state = ANY($2)`

// UpdateCharge implements Store.
func (s *PostgresStore) UpdateCharge(ctx context.Context, messageID string, from []string, u ChargeUpdate, act TurnAction) (bool, error) {
	var lease *time.Time
	if !u.LeaseUntil.IsZero() {
		lease = &u.LeaseUntil
	}
	args := []any{messageID, from, u.State, u.HoldID, u.LastError, lease, u.CountAttempt}
	if act == KeepTurn {
		// One statement needs no transaction of its own: one round trip,
		// where BEGIN … COMMIT took three. Every answer records its hold
		// this way while the model starts.
		tag, err := s.pool.Exec(ctx, updateChargeSQL, args...)
		if err != nil {
			return false, fmt.Errorf("update charge: %w", err)
		}
		return tag.RowsAffected() > 0, nil
	}
	var ok bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, updateChargeSQL, args...)
		if err != nil {
			return fmt.Errorf("update charge: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		ok = true
		switch act {
		case DropTurn:
			// The user message goes with its pending answer (ON DELETE CASCADE).
			_, err = tx.Exec(ctx, `DELETE FROM messages WHERE id = (SELECT reply_to FROM messages WHERE id = $1 AND status = 'pending')`, messageID)
		case FailTurn:
			_, err = tx.Exec(ctx, `UPDATE messages SET status = 'failed', error = $2, updated_at = now()
				WHERE id = $1 AND status = 'pending'`, messageID, u.LastError)
		case StopTurn:
			_, err = tx.Exec(ctx, `UPDATE messages SET status = 'stopped', updated_at = now()
				WHERE id = $1 AND status = 'pending'`, messageID)
		}
		return err
	})
	return ok, err
}

// BeginCapture implements Store.
func (s *PostgresStore) BeginCapture(ctx context.Context, messageID string, c Capture) (bool, error) {
	citations, err := json.Marshal(c.Assistant.Citations)
	if err != nil {
		return false, err
	}
	meta, err := jsonOf(c.Metadata)
	if err != nil {
		return false, err
	}
	u := c.Assistant.Usage
	if u == nil {
		return false, errors.New("BeginCapture: answer without usage")
	}
	// One statement, so one round trip and atomic without BEGIN … COMMIT
	// (which took four): the answer is stored only if its charge moved
	// from held to capturing, as the explicit transaction's branch did.
	var ok bool
	err = s.pool.QueryRow(ctx, `
		WITH charge AS (
			UPDATE charges SET state = 'capturing', capture_micros = $14, description = $15, capture_meta = $16,
				event = $17, lease_until = $18, updated_at = now()
			WHERE message_id = $1 AND state = 'held'
			RETURNING message_id
		), answer AS (
			UPDATE messages SET content = $2, citations = $3, status = $4, model = $5, input_tokens = $6,
				output_tokens = $7, cost_micros = $8, fee_micros = $9, total_micros = $10, usage_estimated = $11,
				hold_id = $12, updated_at = $13, markup_micros = $19, greeting_micros = $20
			WHERE id = $1 AND EXISTS (SELECT 1 FROM charge)
		)
		SELECT EXISTS (SELECT 1 FROM charge)`,
		messageID, c.Assistant.Content, citations, c.Assistant.Status, u.Model, u.InputTokens, u.OutputTokens,
		u.CostMicros, u.FeeMicros, u.TotalMicros, u.Estimated, c.Assistant.HoldID, c.Assistant.UpdatedAt,
		c.CaptureMicros, c.Description, meta, c.Event, c.LeaseUntil, u.MarkupMicros, u.GreetingMicros).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("charge capturing, store answer: %w", err)
	}
	return ok, nil
}

// FinishCharge implements Store.
func (s *PostgresStore) FinishCharge(ctx context.Context, messageID, outcome, transferID string, at time.Time) (bool, error) {
	state := ChargeCaptured
	if outcome == "unbilled" {
		state = ChargeUnbilled
	}
	var ok bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var (
			payload                    []byte
			keyID, agentID, uid, payer string
			amount                     int64
		)
		err := tx.QueryRow(ctx, `
			UPDATE charges SET state = $2, outcome = $3, transfer_id = NULLIF($4, ''), updated_at = $5
			WHERE message_id = $1 AND state = 'capturing'
			RETURNING event, COALESCE(api_key_id::text, ''), capture_micros, agent_id::text, user_uid, payer_uid`,
			messageID, state, outcome, transferID, at).Scan(&payload, &keyID, &amount, &agentID, &uid, &payer)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("finish charge: %w", err)
		}
		ok = true
		if state == ChargeUnbilled {
			return nil // not paid: no transfer, no interaction event, no key spend
		}
		if keyID != "" && amount > 0 {
			// The key's spend moves in the transaction that marks the answer
			// paid (a charge is finished once), so it counts each answer once.
			if _, err := tx.Exec(ctx, `
				INSERT INTO api_key_spend (key_id, month, spent_micros) VALUES ($1, $2, $3)
				ON CONFLICT (key_id, month) DO UPDATE SET spent_micros = api_key_spend.spent_micros + EXCLUDED.spent_micros`,
				keyID, MonthStart(at), amount); err != nil {
				return fmt.Errorf("key spend: %w", err)
			}
		}
		if payer != uid && amount > 0 {
			// What a subscriber's answers cost the payer (the owner) this
			// month, which the owner's cap for them bounds (checkSubscriberCap);
			// kept whether or not a cap is set, so a cap set mid-month counts
			// the month's answers.
			if _, err := tx.Exec(ctx, upsertSubscriberSpendSQL, agentID, uid, MonthStart(at), amount); err != nil {
				return fmt.Errorf("subscriber spend: %w", err)
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE messages SET transfer_id = NULLIF($2, '') WHERE id = $1`, messageID, transferID); err != nil {
			return err
		}
		ev, err := interactionEvent(payload, transferID)
		if err != nil {
			return err
		}
		_, err = s.outbox.Enqueue(ctx, tx, ev)
		return err
	})
	return ok, err
}

const chargeColumns = `message_id::text, conversation_id::text, agent_id::text, user_uid, payer_uid, channel, idempotency_key,
	reserve_micros, reserve_meta, COALESCE(hold_id, ''), state, COALESCE(capture_micros, 0), COALESCE(description, ''),
	capture_meta, event, COALESCE(outcome, ''), COALESCE(transfer_id, ''), attempts, COALESCE(last_error, ''),
	lease_until, created_at, updated_at, COALESCE(api_key_id::text, ''), greeting_micros`

func scanCharge(row pgx.Row) (Charge, error) {
	var (
		c                 Charge
		reserveMeta, meta []byte
	)
	err := row.Scan(&c.MessageID, &c.ConversationID, &c.AgentID, &c.UserUID, &c.PayerUID, &c.Channel, &c.Key,
		&c.ReserveMicros, &reserveMeta, &c.HoldID, &c.State, &c.CaptureMicros, &c.Description, &meta, &c.Event,
		&c.Outcome, &c.TransferID, &c.Attempts, &c.LastError, &c.LeaseUntil, &c.CreatedAt, &c.UpdatedAt, &c.APIKeyID,
		&c.GreetingMicros)
	if err != nil {
		return Charge{}, err
	}
	if len(reserveMeta) > 0 {
		if err := json.Unmarshal(reserveMeta, &c.ReserveMeta); err != nil {
			return Charge{}, err
		}
	}
	if len(meta) > 0 {
		if err := json.Unmarshal(meta, &c.CaptureMeta); err != nil {
			return Charge{}, err
		}
	}
	return c, nil
}

// ClaimCharges implements Store.
func (s *PostgresStore) ClaimCharges(ctx context.Context, now, until time.Time, limit int) ([]Charge, error) {
	rows, err := s.pool.Query(ctx, `
		UPDATE charges SET lease_until = $2, attempts = attempts + 1, updated_at = now()
		WHERE message_id IN (
			SELECT message_id FROM charges
			WHERE state IN ('reserving', 'held', 'capturing') AND lease_until < $1
			ORDER BY lease_until LIMIT $3 FOR UPDATE SKIP LOCKED)
		RETURNING `+chargeColumns, now, until, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Charge
	for rows.Next() {
		c, err := scanCharge(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// GetCharge implements Store.
func (s *PostgresStore) GetCharge(ctx context.Context, messageID string) (Charge, error) {
	c, err := scanCharge(s.pool.QueryRow(ctx, `SELECT `+chargeColumns+` FROM charges WHERE message_id = $1`, messageID))
	if errors.Is(err, pgx.ErrNoRows) {
		return Charge{}, fmt.Errorf("charge %s: %w", messageID, pgx.ErrNoRows)
	}
	return c, err
}

// execBatch sends b in one round trip and reports the first failing
// statement by its name in what.
func execBatch(ctx context.Context, tx pgx.Tx, b *pgx.Batch, what ...string) error {
	br := tx.SendBatch(ctx, b)
	for i := range b.Len() {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			name := "statement"
			if i < len(what) {
				name = what[i]
			}
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return br.Close()
}
