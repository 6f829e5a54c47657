package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgWaits samples pg_stat_activity during the latency run and keeps the
// statements of the stack's databases (agentic_*) that were seen running
// for at least min, with what they waited on. A slow answer's stages say
// that it waited in PostgreSQL (begin, reserve); this says on what: the WAL
// flush (IO:WALSync, LWLock:WALWrite), a row lock (Lock:transactionid), the
// relation's extension (Lock:extend), or nothing at all (CPU: the backend was
// running or waiting for a core). Background processes (checkpointer, WAL
// writer, autovacuum) are kept when they wait on I/O, the usual suspect of a
// stall that every database shares.
type pgWaits struct {
	min   time.Duration
	start time.Time
	stop  chan struct{}
	done  chan struct{}

	mu       sync.Mutex
	stmts    map[pgStmtKey]*pgStmt
	bgIO     map[string]int // "checkpointer IO:DataFileSync" → samples
	samples  int
	errLater error
}

// pgStmtKey tells statements apart: a backend runs one at a time, and each
// has its own start.
type pgStmtKey struct {
	pid   int32
	start time.Time
}

type pgStmt struct {
	db, query string
	at        time.Duration  // its start, from the run's start
	longest   time.Duration  // the longest it was seen running
	waits     map[string]int // wait event (or "CPU") → samples
}

// pgActivitySQL lists the running statements of agentic_* and the
// background processes' waits. clock_timestamp() (not now()) so that the
// durations are those of the moment of the sample.
const pgActivitySQL = `
	SELECT pid, coalesce(datname, ''), backend_type, coalesce(wait_event_type || ':' || wait_event, 'CPU'),
		coalesce(query_start, clock_timestamp()),
		(extract(epoch FROM clock_timestamp() - coalesce(query_start, clock_timestamp())) * 1e6)::bigint,
		left(regexp_replace(coalesce(query, ''), '\s+', ' ', 'g'), 60)
	FROM pg_stat_activity
	WHERE pid <> pg_backend_pid()
	  AND ((backend_type = 'client backend' AND state = 'active' AND datname LIKE 'agentic\_%')
	    OR (backend_type <> 'client backend' AND wait_event_type = 'IO'))`

// startPGWaits connects to dsn and samples every `every` until Stop. It
// returns nil (and says why) when PostgreSQL cannot be reached: the figures
// are an aid, not part of the verdict.
func startPGWaits(ctx context.Context, dsn string, minRunning, every time.Duration) *pgWaits {
	if dsn == "" {
		return nil
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		fmt.Printf("  PostgreSQL waits: not sampled (%v)\n", err)
		return nil
	}
	p := &pgWaits{min: minRunning, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{}),
		stmts: map[pgStmtKey]*pgStmt{}, bgIO: map[string]int{}}
	go func() {
		defer close(p.done)
		defer conn.Close(context.Background())
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			if err := p.sample(ctx, conn); err != nil {
				p.mu.Lock()
				p.errLater = err
				p.mu.Unlock()
				return
			}
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
		}
	}()
	return p
}

func (p *pgWaits) sample(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, pgActivitySQL)
	if err != nil {
		return err
	}
	defer rows.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.samples++
	for rows.Next() {
		var (
			pid                   int32
			db, kind, wait, query string
			started               time.Time
			micros                int64
		)
		if err := rows.Scan(&pid, &db, &kind, &wait, &started, &micros, &query); err != nil {
			return err
		}
		running := time.Duration(micros) * time.Microsecond
		if kind != "client backend" {
			p.bgIO[kind+" "+wait]++
			continue
		}
		if running < p.min {
			continue
		}
		k := pgStmtKey{pid, started}
		s := p.stmts[k]
		if s == nil {
			s = &pgStmt{db: db, query: query, at: started.Sub(p.start), waits: map[string]int{}}
			p.stmts[k] = s
		}
		s.longest = max(s.longest, running)
		s.waits[wait]++
	}
	return rows.Err()
}

// Stop ends the sampling and returns the report's lines.
func (p *pgWaits) Stop() []string {
	if p == nil {
		return nil
	}
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return pgWaitReport(p.min, p.samples, p.stmts, p.bgIO, p.errLater)
}

// pgWaitReport summarises the statements seen running for at least min:
// their number, then the longest ones with when they started and what they
// waited on, then the background processes' I/O waits.
func pgWaitReport(minRunning time.Duration, samples int, stmts map[pgStmtKey]*pgStmt, bgIO map[string]int, sampleErr error) []string {
	head := fmt.Sprintf("PostgreSQL statements (agentic_*) seen running ≥ %s in %d samples of pg_stat_activity:", minRunning, samples)
	if sampleErr != nil {
		head += fmt.Sprintf(" (sampling stopped: %v)", sampleErr)
	}
	if len(stmts) == 0 {
		return []string{head + " none"}
	}
	all := slices.Collect(maps.Values(stmts))
	slices.SortFunc(all, func(a, b *pgStmt) int { return cmp.Compare(b.longest, a.longest) })
	waits := map[string]int{}
	for _, s := range all {
		for w, n := range s.waits {
			waits[w] += n
		}
	}
	out := []string{fmt.Sprintf("%s %d, longest %s; waits seen %s", head, len(all), msRound(all[0].longest), countList(waits))}
	for _, s := range all[:min(len(all), 8)] {
		out = append(out, fmt.Sprintf("  +%.1fs %s ≥ %s %s: %s", s.at.Seconds(), s.db, msRound(s.longest), countList(s.waits), s.query))
	}
	if len(bgIO) > 0 {
		out = append(out, "background processes waiting on I/O (samples): "+countList(bgIO))
	}
	return out
}

// countList renders a count map as "a ×3, b ×1", largest first.
func countList(m map[string]int) string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), strings.Compare(a, b)) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func msRound(d time.Duration) string {
	return d.Round(time.Millisecond).String()
}
