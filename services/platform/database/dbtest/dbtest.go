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
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/platform/database"
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
