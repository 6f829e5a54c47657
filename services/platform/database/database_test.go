package database_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
)

func TestEnsureDatabaseIsIdempotent(t *testing.T) {
	dbURL := dbtest.NewURL(t, "platform")
	ctx := context.Background()
	// Already exists: no error; concurrent calls: no error.
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- database.EnsureDatabase(ctx, dbURL) }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestConnectGivesUpWhenContextEnds(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	_, err := database.Connect(ctx, "postgres://postgres@127.0.0.1:1/nothing?sslmode=disable&connect_timeout=1", nil)
	if err == nil {
		t.Fatal("expected error")
	}
}

func TestMigrateConcurrentReplicas(t *testing.T) {
	pool, _ := dbtest.NewPool(t, "platform")
	fsys := fstest.MapFS{
		"migrations/00001_a.sql": {Data: []byte("-- +goose Up\nCREATE TABLE a (id int primary key);\n-- +goose Down\nDROP TABLE a;\n")},
		"migrations/00002_b.sql": {Data: []byte("-- +goose Up\nINSERT INTO a VALUES (1);\n-- +goose Down\nDELETE FROM a;\n")},
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- database.Migrate(ctx, pool, fsys, "migrations") }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM a").Scan(&n); err != nil || n != 1 {
		t.Fatalf("rows in a = %d (%v), want 1: a migration ran twice or not at all", n, err)
	}
	if err := database.Check(pool)(ctx); err != nil {
		t.Fatal(err)
	}
}

// A DATABASE_URL may size the service's pool (pool_max_conns); creating the
// database and connecting must still work (the server refuses unknown
// run-time parameters).
func TestPoolSettingsInTheURL(t *testing.T) {
	dbURL := dbtest.NewURL(t, "platform")
	ctx := context.Background()
	sep := "?"
	if strings.Contains(dbURL, "?") {
		sep = "&"
	}
	withPool := dbURL + sep + "pool_max_conns=7"
	if err := database.EnsureDatabase(ctx, withPool); err != nil {
		t.Fatalf("EnsureDatabase with pool settings: %v", err)
	}
	pool, err := database.Connect(ctx, withPool, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if got := pool.Config().MaxConns; got != 7 {
		t.Fatalf("MaxConns = %d, want 7", got)
	}
}
