package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The sampler, against the real PostgreSQL the tests use: a statement
// blocked on another transaction's row lock and one that sleeps are both
// reported, each with what it waited on; a short statement is not.
func TestPGWaitsNamesWhatALongStatementWaitedOn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dsn := scratchDatabase(t, ctx)
	holder, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	waiter, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer waiter.Close(ctx)
	if _, err := holder.Exec(ctx, `CREATE TABLE wallets (id int PRIMARY KEY, balance bigint); INSERT INTO wallets VALUES (1, 0)`); err != nil {
		t.Fatal(err)
	}

	p := startPGWaits(ctx, adminURL(), 50*time.Millisecond, 10*time.Millisecond)
	if p == nil {
		t.Fatal("sampler did not start")
	}
	if _, err := waiter.Exec(ctx, `SELECT 1`); err != nil { // short: not reported
		t.Fatal(err)
	}
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE wallets SET balance = balance + 1 WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	blocked := make(chan error, 1)
	go func() {
		_, err := waiter.Exec(ctx, `UPDATE wallets SET balance = balance + 2 WHERE id = 1`)
		blocked <- err
	}()
	time.Sleep(300 * time.Millisecond) // the waiter waits on the holder's row lock meanwhile
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-blocked; err != nil {
		t.Fatal(err)
	}
	if _, err := waiter.Exec(ctx, `SELECT pg_sleep(0.3)`); err != nil {
		t.Fatal(err)
	}
	report := strings.Join(p.Stop(), "\n")
	t.Log(report)

	for _, want := range []string{
		"Lock:transactionid", "UPDATE wallets SET balance = balance + 2",
		"Timeout:PgSleep", "SELECT pg_sleep(0.3)",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "SELECT 1") {
		t.Errorf("report names a statement shorter than the minimum:\n%s", report)
	}
}

func TestPGWaitReportWithoutLongStatements(t *testing.T) {
	got := pgWaitReport(20*time.Millisecond, 6000, map[pgStmtKey]*pgStmt{}, nil, nil)
	if len(got) != 1 || !strings.HasSuffix(got[0], " none") || !strings.Contains(got[0], "6000 samples") {
		t.Fatalf("report = %q", got)
	}
}

func adminURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// scratchDatabase creates agentic_bench_test_<random> (a name the sampler
// watches) and drops it when the test ends.
func scratchDatabase(t *testing.T, ctx context.Context) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "agentic_bench_test_" + hex.EncodeToString(b)
	admin, err := pgx.Connect(ctx, adminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, adminURL()); err == nil {
			_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			_ = c.Close(ctx)
		}
	})
	u, err := url.Parse(adminURL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
