package users_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/encoding/protojson"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/identity/internal/users"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
)

func setup(t *testing.T) (*pgxpool.Pool, users.Service) {
	t.Helper()
	ctx := context.Background()
	pool, _ := dbtest.NewPool(t, "identity")
	if err := database.Migrate(ctx, pool, users.Migrations, "migrations"); err != nil {
		t.Fatal(err)
	}
	if err := events.Migrate(ctx, pool, nil); err != nil {
		t.Fatal(err)
	}
	return pool, users.NewService(users.NewPostgresStore(pool))
}

func count(t *testing.T, pool *pgxpool.Pool, q string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func runRelay(t *testing.T, pool *pgxpool.Pool, brokers []string, batch int) (stop func()) {
	t.Helper()
	r, err := events.NewRelay(events.RelayConfig{Pool: pool, Brokers: brokers, BatchSize: batch, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = r.Run(ctx); close(done) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-done
			_ = r.Close()
		})
	}
	t.Cleanup(stop)
	return stop
}

func TestConcurrentFirstOnboardingCreatesOneProfileAndOneEvent(t *testing.T) {
	pool, svc := setup(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	createdCount := 0
	var mu sync.Mutex
	errs := make(chan error, 10)
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, created, err := svc.Onboard(ctx, auth.Claims{UID: "race-uid", Email: "race@example.com"}, nil)
			if err != nil {
				errs <- err
				return
			}
			if created {
				mu.Lock()
				createdCount++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if createdCount != 1 {
		t.Fatalf("created reported %d times", createdCount)
	}
	if n := count(t, pool, `SELECT count(*) FROM users WHERE uid = 'race-uid'`); n != 1 {
		t.Fatalf("profiles = %d", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM outbox WHERE key = 'race-uid' AND type = $1`, users.TypeUserOnboarded); n != 1 {
		t.Fatalf("onboarded events = %d", n)
	}

	// Concurrent interest registration flips once → one event.
	wg = sync.WaitGroup{}
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := svc.RegisterPublicAgentInterest(ctx, auth.Claims{UID: "race-uid"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := count(t, pool, `SELECT count(*) FROM outbox WHERE key = 'race-uid' AND type = $1`, users.TypePublicAgentInterestRegistered); n != 1 {
		t.Fatalf("interest events = %d", n)
	}
}

func TestStoreQueriesAndPersistence(t *testing.T) {
	_, svc := setup(t)
	ctx := context.Background()
	if _, _, err := svc.Onboard(ctx, auth.Claims{UID: "a", Email: "Ada@Example.com", Name: "Ada", Picture: "https://p/a.png"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Onboard(ctx, auth.Claims{UID: "b", Email: "bob@example.com"}, nil); err != nil {
		t.Fatal(err)
	}
	u, err := svc.GetUser(ctx, "a")
	if err != nil || u.Email != "Ada@Example.com" || u.Username != "Ada" || u.PhotoURL != "https://p/a.png" || u.CreatedAt.IsZero() {
		t.Fatalf("%+v %v", u, err)
	}
	b, _ := svc.GetUser(ctx, "b")
	if b.Username != "" || b.DisplayName != "" {
		t.Fatalf("b = %+v", b)
	}
	if _, err := svc.GetUser(ctx, "nope"); err != users.ErrNotFound {
		t.Fatalf("err = %v", err)
	}
	us, err := svc.GetUsers(ctx, []string{"b", "a", "nope"})
	if err != nil || len(us) != 2 || us[0].UID != "a" || us[1].UID != "b" {
		t.Fatalf("%+v %v", us, err)
	}
	us, err = svc.FindUsersByEmail(ctx, []string{"ADA@example.com"})
	if err != nil || len(us) != 1 || us[0].UID != "a" {
		t.Fatalf("%+v %v", us, err)
	}
}

func TestEventsReachKafkaAcrossRelayRestart(t *testing.T) {
	pool, svc := setup(t)
	brokers := eventstest.StartKafka(t)
	ctx := context.Background()
	const n = 40

	stop := runRelay(t, pool, brokers, 3)
	for i := 0; i < n/2; i++ {
		if _, _, err := svc.Onboard(ctx, auth.Claims{UID: fmt.Sprintf("u%02d", i), Email: fmt.Sprintf("u%02d@example.com", i)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	stop() // relay stopped mid-way
	for i := n / 2; i < n; i++ {
		if _, _, err := svc.Onboard(ctx, auth.Claims{UID: fmt.Sprintf("u%02d", i), Email: fmt.Sprintf("u%02d@example.com", i)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if pending := count(t, pool, `SELECT count(*) FROM outbox WHERE published_at IS NULL`); pending == 0 {
		t.Fatal("expected pending events while the relay is stopped")
	}
	runRelay(t, pool, brokers, 3) // restarted

	recs := eventstest.Consume(t, brokers, users.Topic, n, 20*time.Second, 300*time.Millisecond)
	seen := map[string]bool{}
	for _, r := range recs {
		if r.Headers["ce_type"] != users.TypeUserOnboarded {
			t.Fatalf("unexpected type %q", r.Headers["ce_type"])
		}
		var ev eventsv1.UserOnboarded
		if err := protojson.Unmarshal(r.Value, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.GetUid() != r.Key || ev.GetEmail() != r.Key+"@example.com" {
			t.Fatalf("event %v under key %q", &ev, r.Key)
		}
		seen[r.Key] = true
	}
	for i := 0; i < n; i++ {
		if !seen[fmt.Sprintf("u%02d", i)] {
			t.Errorf("event for u%02d lost", i)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for count(t, pool, `SELECT count(*) FROM outbox WHERE published_at IS NULL`) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("rows not marked published")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type zeroWallet struct{}

func (zeroWallet) Balance(context.Context, string) (users.Balance, error) {
	return users.Balance{}, nil
}

type noopAccounts struct{ deleted []string }

func (n *noopAccounts) RevokeRefreshTokens(context.Context, string) error { return nil }
func (n *noopAccounts) DeleteUser(_ context.Context, uid string) error {
	n.deleted = append(n.deleted, uid)
	return nil
}

// Deleting an account deletes the profile and enqueues one UserDeleted in
// the same transaction; a second deletion enqueues nothing.
func TestDeleteAccountDeletesProfileAndEnqueuesUserDeletedOnce(t *testing.T) {
	ctx := context.Background()
	pool, _ := setup(t)
	acc := &noopAccounts{}
	svc := users.NewService(users.NewPostgresStore(pool), users.WithAccounts(acc), users.WithWallet(zeroWallet{}))
	c := auth.Claims{UID: "del-uid", Email: "del@example.com"}
	if _, _, err := svc.Onboard(ctx, c, nil); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := svc.DeleteAccount(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, pool, `SELECT count(*) FROM users WHERE uid = 'del-uid'`); n != 0 {
		t.Fatalf("profile rows = %d", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM outbox WHERE key = 'del-uid' AND type = $1`, users.TypeUserDeleted); n != 1 {
		t.Fatalf("UserDeleted rows = %d", n)
	}
	var payload []byte
	if err := pool.QueryRow(ctx, `SELECT payload FROM outbox WHERE key = 'del-uid' AND type = $1`, users.TypeUserDeleted).Scan(&payload); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(payload), "del@example.com") {
		t.Fatalf("payload = %s", payload)
	}
	if len(acc.deleted) != 2 {
		t.Fatalf("provider deletions = %v", acc.deleted)
	}
}
