package agents

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events"
)

func newStore(t *testing.T) *PostgresStore {
	t.Helper()
	pool, _ := dbtest.NewPool(t, "catalog_store")
	ctx := context.Background()
	if err := database.Migrate(ctx, pool, Migrations, "migrations"); err != nil {
		t.Fatal(err)
	}
	if err := events.Migrate(ctx, pool, nil); err != nil {
		t.Fatal(err)
	}
	return NewPostgresStore(pool)
}

func agentFor(owner, id string) Agent {
	now := time.Now().UTC()
	return Agent{ID: id, OwnerUID: owner, Name: "Bot", Description: "description", Category: "c", Status: StatusActive,
		IconName: Icons[0], IconColor: Colors[0], Tags: []string{}, CreatedAt: now, UpdatedAt: now}
}

func TestCreateNeverReusesAnIssuedAddress(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	first, err := s.Create(ctx, agentFor("u1", "00000000-0000-7000-8000-000000000001"), func() string { return "bot-aaaaaa@x.test" })
	if err != nil || first.Email != "bot-aaaaaa@x.test" {
		t.Fatalf("%v %v", first.Email, err)
	}
	// The generator repeats the issued address twice, then offers a new one.
	calls := 0
	second, err := s.Create(ctx, agentFor("u2", "00000000-0000-7000-8000-000000000002"), func() string {
		calls++
		if calls <= 2 {
			return "BOT-aaaaaa@x.test"
		}
		return "bot-bbbbbb@x.test"
	})
	if err != nil || second.Email != "bot-bbbbbb@x.test" || calls != 3 {
		t.Fatalf("%v %v calls=%d", second.Email, err, calls)
	}
	// Only issued addresses forever: a generator stuck on them fails cleanly.
	_, err = s.Create(ctx, agentFor("u3", "00000000-0000-7000-8000-000000000003"), func() string { return "bot-aaaaaa@x.test" })
	if err == nil || !strings.Contains(err.Error(), "no free address") {
		t.Fatalf("err = %v", err)
	}
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE type = $1`, TypeAgentCreated).Scan(&n); err != nil || n != 2 {
		t.Fatalf("created events = %d %v", n, err)
	}
}

func TestActivateUserIsIdempotent(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	a, err := s.Create(ctx, agentFor("owner", "00000000-0000-7000-8000-000000000001"), func() string { return "bot-cccccc@x.test" })
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC()
	if _, err := s.AddSubscriber(ctx, "owner", a.ID, "pat@example.org", nil, at); err != nil {
		t.Fatal(err)
	}
	// The owner's own address (possible only through old data) stays invited.
	if _, err := s.pool.Exec(ctx, `INSERT INTO subscribers (id, agent_id, email, status) VALUES (gen_random_uuid(), $1, 'owner@example.org', 'invited')`, a.ID); err != nil {
		t.Fatal(err)
	}
	activate := func(u User) int {
		var n int
		if err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			var err error
			n, err = s.ActivateUser(ctx, tx, u, time.Now().UTC())
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := activate(User{UID: "pat", Email: "PAT@example.org", Name: "Pat"}); n != 1 {
		t.Fatalf("activated %d", n)
	}
	if n := activate(User{UID: "pat", Email: "pat@example.org", Name: "Pat"}); n != 0 {
		t.Fatalf("second activation activated %d", n)
	}
	if n := activate(User{UID: "owner", Email: "owner@example.org"}); n != 0 {
		t.Fatalf("owner activated %d", n)
	}
	got, err := s.Get(ctx, "owner", a.ID)
	if err != nil || got.Subscribers != 1 {
		t.Fatalf("subscribers = %d %v", got.Subscribers, err)
	}
	subs, err := s.ListSubscribers(ctx, "owner", a.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range subs {
		if sub.Email == "pat@example.org" && (sub.Status != SubscriberActive || sub.UID != "pat" || sub.Name != "Pat" || sub.ActivatedAt.IsZero()) {
			t.Fatalf("pat = %+v", sub)
		}
	}
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE type = $1`, TypeSubscriberActivated).Scan(&n); err != nil || n != 1 {
		t.Fatalf("activated events = %d %v", n, err)
	}
}
