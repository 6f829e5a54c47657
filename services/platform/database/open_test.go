package database_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/url"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

var openMigrations = fstest.MapFS{
	"sql/00001_a.sql": {Data: []byte("-- +goose Up\nCREATE TABLE a (id int primary key);\n-- +goose Down\nDROP TABLE a;\n")},
}

// missingURL returns the URL of a database that does not exist yet; it is
// dropped when the test ends.
func missingURL(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	u, err := url.Parse(dbtest.ServerURL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/agentic_open_test_" + hex.EncodeToString(b)
	dbURL := u.String()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := database.DropDatabase(ctx, dbURL); err != nil {
			t.Logf("drop: %v", err)
		}
	})
	return dbURL
}

func TestOpenCreatesConnectsAndMigrates(t *testing.T) {
	ctx := context.Background()
	var order []string
	extra := func(name string) database.MigrateFunc {
		return func(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger) error {
			if logger == nil {
				t.Error("extra migration got a nil logger")
			}
			// The service's migrations ran first.
			if _, err := pool.Exec(ctx, "INSERT INTO a VALUES ($1)", len(order)+1); err != nil {
				return err
			}
			order = append(order, name)
			return nil
		}
	}
	pool, err := database.Open(ctx, database.OpenConfig{
		URL: missingURL(t), Create: true,
		Migrations: openMigrations, Dir: "sql",
		Extra: []database.MigrateFunc{extra("first"), extra("second")},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if len(order) != 2 || order[0] != "first" || order[1] != "second" {
		t.Fatalf("extra migrations ran as %v", order)
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM a").Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows in a = %d (%v), want 2", n, err)
	}
}

func TestOpenWithoutCreateNeedsTheDatabase(t *testing.T) {
	ctx := context.Background()
	_, err := database.Open(ctx, database.OpenConfig{URL: missingURL(t), Timeout: time.Second})
	if err == nil {
		t.Fatal("expected an error for a missing database without Create")
	}
}

func TestOpenExistingDatabaseDefaultDirIsIdempotent(t *testing.T) {
	dbURL := dbtest.NewURL(t, "platform")
	fsys := fstest.MapFS{"migrations/00001_a.sql": openMigrations["sql/00001_a.sql"]}
	for i := 0; i < 2; i++ {
		pool, err := database.Open(context.Background(), database.OpenConfig{URL: dbURL, Migrations: fsys})
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		pool.Close()
	}
}

func TestOpenReturnsMigrationErrors(t *testing.T) {
	dbURL := dbtest.NewURL(t, "platform")
	ctx := context.Background()
	if _, err := database.Open(ctx, database.OpenConfig{URL: dbURL, Migrations: openMigrations, Dir: "nope"}); err == nil {
		t.Fatal("expected an error for a missing migrations dir")
	}
	boom := errors.New("boom")
	_, err := database.Open(ctx, database.OpenConfig{URL: dbURL, Extra: []database.MigrateFunc{
		func(context.Context, *pgxpool.Pool, *slog.Logger) error { return boom },
	}})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
}

func TestOpenTimeout(t *testing.T) {
	start := time.Now()
	_, err := database.Open(context.Background(), database.OpenConfig{
		URL:     "postgres://postgres@127.0.0.1:1/nothing?sslmode=disable&connect_timeout=1",
		Timeout: 700 * time.Millisecond,
	})
	if err == nil {
		t.Fatal("expected error")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("Open took %v despite a 700ms timeout", d)
	}
}

// With a Registerer, the pool's own figures are metrics: the connections in
// use and the acquires that waited for one.
func TestOpenRegistersPoolMetrics(t *testing.T) {
	dbURL := dbtest.NewURL(t, "platform")
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("pool_max_conns", "3")
	u.RawQuery = q.Encode()
	reg := prometheus.NewRegistry()
	pool, err := database.Open(context.Background(), database.OpenConfig{URL: u.String(), Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	conn, err := pool.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]float64{}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			values[f.GetName()] = m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	conn.Release()
	if values["pgxpool_max_conns"] != 3 || values["pgxpool_acquired_conns"] != 1 || values["pgxpool_acquire_count"] < 1 {
		t.Fatalf("pool metrics %v, want max 3, acquired 1, acquires ≥ 1", values)
	}
}
