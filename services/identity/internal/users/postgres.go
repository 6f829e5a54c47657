package users

import (
	"context"
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

const columns = `uid, COALESCE(email, ''), COALESCE(display_name, ''), COALESCE(username, ''), COALESCE(name, ''),
	COALESCE(photo_url, ''), interested_in_public_agents, created_at, updated_at`

func scanUser(row pgx.Row) (User, error) {
	var u User
	err := row.Scan(&u.UID, &u.Email, &u.DisplayName, &u.Username, &u.Name, &u.PhotoURL,
		&u.InterestedInPublicAgents, &u.CreatedAt, &u.UpdatedAt)
	return u, err
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Mutate implements Store.
func (s *PostgresStore) Mutate(ctx context.Context, uid string, fn MutateFunc) (User, error) {
	var out User
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Exactly one concurrent caller inserts; the others wait on the
		// unique index until it commits and then see created = false.
		tag, err := tx.Exec(ctx, `INSERT INTO users (uid) VALUES ($1) ON CONFLICT (uid) DO NOTHING`, uid)
		if err != nil {
			return fmt.Errorf("insert user: %w", err)
		}
		created := tag.RowsAffected() == 1

		cur, err := scanUser(tx.QueryRow(ctx, `SELECT `+columns+` FROM users WHERE uid = $1 FOR UPDATE`, uid))
		if err != nil {
			return fmt.Errorf("lock user: %w", err)
		}
		next, evs, err := fn(cur, created)
		if err != nil {
			return err
		}
		if next.UpdatedAt.IsZero() {
			next.UpdatedAt = time.Now()
		}
		out, err = scanUser(tx.QueryRow(ctx, `
			UPDATE users SET email = $2, display_name = $3, username = $4, name = $5, photo_url = $6,
				interested_in_public_agents = $7, updated_at = $8
			WHERE uid = $1
			RETURNING `+columns,
			uid, nullable(next.Email), nullable(next.DisplayName), nullable(next.Username), nullable(next.Name),
			nullable(next.PhotoURL), next.InterestedInPublicAgents, next.UpdatedAt))
		if err != nil {
			return fmt.Errorf("update user: %w", err)
		}
		for _, ev := range evs {
			if _, err := s.outbox.Enqueue(ctx, tx, ev); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return User{}, err
	}
	return out, nil
}

// Delete implements Store.
func (s *PostgresStore) Delete(ctx context.Context, uid string, fn func(User) []events.Event) (bool, error) {
	var deleted bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		u, err := scanUser(tx.QueryRow(ctx, `DELETE FROM users WHERE uid = $1 RETURNING `+columns, uid))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("delete user: %w", err)
		}
		deleted = true
		for _, ev := range fn(u) {
			if _, err := s.outbox.Enqueue(ctx, tx, ev); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	return deleted, nil
}

// Get implements Store.
func (s *PostgresStore) Get(ctx context.Context, uid string) (User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+columns+` FROM users WHERE uid = $1`, uid))
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, ErrNotFound
	}
	return u, err
}

// GetMany implements Store.
func (s *PostgresStore) GetMany(ctx context.Context, uids []string) ([]User, error) {
	return s.list(ctx, `SELECT `+columns+` FROM users WHERE uid = ANY($1) ORDER BY uid`, uids)
}

// FindByEmails implements Store; emails are compared case-insensitively.
func (s *PostgresStore) FindByEmails(ctx context.Context, emails []string) ([]User, error) {
	return s.list(ctx, `SELECT `+columns+` FROM users WHERE lower(email) = ANY($1) ORDER BY lower(email), uid`, emails)
}

func (s *PostgresStore) list(ctx context.Context, q string, arg []string) ([]User, error) {
	rows, err := s.pool.Query(ctx, q, arg)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []User{}
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}
