// Package dbtest creates throwaway PostgreSQL databases for integration tests.
//
// The server is taken from TEST_DATABASE_URL (default
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable); each call
// creates a database named agentic_<prefix>_test_<random> and drops it when
// the test ends.
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ServerURL is the admin URL of the test PostgreSQL server.
func ServerURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// NewURL creates a fresh database and returns its URL. The database is dropped
// in t.Cleanup.
func NewURL(t testing.TB, prefix string) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "agentic_" + strings.ToLower(prefix) + "_test_" + hex.EncodeToString(b)

	u, err := url.Parse(ServerURL())
	if err != nil {
		t.Fatalf("dbtest: parse server url: %v", err)
	}
	u.Path = "/" + name
	dbURL := u.String()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := database.EnsureDatabase(ctx, dbURL); err != nil {
		t.Fatalf("dbtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := database.DropDatabase(ctx, dbURL); err != nil {
			t.Logf("dbtest: drop database %s: %v", name, err)
		}
	})
	return dbURL
}

// NewPool creates a fresh database (see NewURL) and returns a pool for it,
// closed in t.Cleanup before the database is dropped.
func NewPool(t testing.TB, prefix string) (*pgxpool.Pool, string) {
	t.Helper()
	dbURL := NewURL(t, prefix)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := database.Connect(ctx, dbURL, nil)
	if err != nil {
		t.Fatalf("dbtest: connect: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool, dbURL
}

// SeqScans returns the tables (by name, once each) that PostgreSQL's generic
// plan of query reads with a sequential scan, planned in pool's database as
// it is now.
//
// Why the generic plan: pgx prepares each statement once per connection, and
// after five executions PostgreSQL may keep one plan for every later
// execution, until an ANALYZE of a table it reads invalidates it. A plan made
// while a table is small (a new database: the planner assumes ten pages)
// can scan it whole, which is cheap then and costs more with every row
// added; where autovacuum is off (CI's and the dev stack's PostgreSQL), no
// ANALYZE ever replaces it. Call it on a new, migrated database for the
// statements on a request's hot path, and fail on the tables that must be
// read through an index.
func SeqScans(t testing.TB, pool *pgxpool.Pool, query string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatalf("dbtest: acquire: %v", err)
	}
	defer conn.Release()
	// A prepared statement belongs to the session, not the transaction.
	if _, err := conn.Exec(ctx, "PREPARE dbtest_plan AS "+query); err != nil {
		t.Fatalf("dbtest: prepare %q: %v", query, err)
	}
	defer func() { _, _ = conn.Exec(context.Background(), "DEALLOCATE dbtest_plan") }()
	var params int
	if err := conn.QueryRow(ctx, `SELECT cardinality(parameter_types) FROM pg_prepared_statements
		WHERE name = 'dbtest_plan'`).Scan(&params); err != nil {
		t.Fatalf("dbtest: parameters of %q: %v", query, err)
	}
	nulls := make([]string, params) // a generic plan does not look at the values
	for i := range nulls {
		nulls[i] = "NULL"
	}
	var plan []byte
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
			return err
		}
		return tx.QueryRow(ctx, "EXPLAIN (FORMAT JSON) EXECUTE dbtest_plan("+strings.Join(nulls, ", ")+")").Scan(&plan)
	})
	if err != nil {
		t.Fatalf("dbtest: explain %q: %v", query, err)
	}
	var root []struct{ Plan planNode }
	if err := json.Unmarshal(plan, &root); err != nil {
		t.Fatalf("dbtest: read plan of %q: %v", query, err)
	}
	var tables []string
	seen := map[string]bool{}
	var walk func(n planNode)
	walk = func(n planNode) {
		if n.NodeType == "Seq Scan" && !seen[n.Relation] {
			seen[n.Relation] = true
			tables = append(tables, n.Relation)
		}
		for _, c := range n.Plans {
			walk(c)
		}
	}
	for _, r := range root {
		walk(r.Plan)
	}
	return tables
}

type planNode struct {
	NodeType string     `json:"Node Type"`
	Relation string     `json:"Relation Name"`
	Plans    []planNode `json:"Plans"`
}
