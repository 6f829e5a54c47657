package wallet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

func agentReservation(uid, agent, name string, micros int64, key string) Reservation {
	return Reservation{UID: uid, AmountMicros: micros, IdempotencyKey: key, TTL: time.Hour,
		Metadata: map[string]string{MetaAgentID: agent, MetaAgentName: name}}
}

// feeCount counts the fee transfers of an agent.
func feeCount(t testing.TB, pool *pgxpool.Pool, agent string) int {
	t.Helper()
	var n, periods int
	if err := pool.QueryRow(context.Background(), `SELECT
			(SELECT count(*) FROM transfers WHERE idempotency_key LIKE 'fee:' || $1 || ':%'),
			(SELECT count(*) FROM agent_fee_periods WHERE agent_id = $1)`, agent).Scan(&n, &periods); err != nil {
		t.Fatal(err)
	}
	if n != periods {
		t.Fatalf("agent %s: %d fee transfers, %d periods", agent, n, periods)
	}
	return n
}

// endPeriod makes agent's paid period end ago (and, if used, records an
// answer inside it): the time travel of the fee tests.
func endPeriod(t testing.TB, pool *pgxpool.Pool, agent string, ago time.Duration, used bool) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `UPDATE agent_billing SET
			period_start = now() - $2 * interval '1 microsecond' - interval '30 days',
			paid_until = now() - $2 * interval '1 microsecond',
			last_used_at = CASE WHEN $3 THEN now() - $2 * interval '1 microsecond' - interval '1 day' ELSE now() - interval '90 days' END
		WHERE agent_id = $1`, agent, ago.Microseconds(), used)
	if err != nil {
		t.Fatal(err)
	}
}

func TestAgentFeeFirstAnswer(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "olga", 25*MicrosPerDollar)
	r, err := s.Reserve(ctx, agentReservation("olga", "ag-1", "Math Tutor", MicrosPerDollar, "q1"))
	if err != nil || !r.FeeCharged {
		t.Fatalf("first answer: %+v %v", r, err)
	}
	mustBalance(t, s, "olga", Balance{Micros: 15 * MicrosPerDollar, HeldMicros: MicrosPerDollar})
	h := history(t, s, "olga")
	if len(h) != 2 || h[0].Type != TypeExpense || h[0].AmountMicros != AgentFeeMicros ||
		!strings.HasPrefix(h[0].Description, "Agentic User fee · Math Tutor · ") || h[0].Metadata[MetaKind] != KindAgentFee {
		t.Fatalf("history %+v", h)
	}
	// Covered: later answers pay no fee.
	r2, err := s.Reserve(ctx, agentReservation("olga", "ag-1", "Math Tutor", MicrosPerDollar, "q2"))
	if err != nil || r2.FeeCharged {
		t.Fatalf("second answer: %+v %v", r2, err)
	}
	fees, err := s.AgentFees(ctx, "olga")
	if err != nil || len(fees) != 1 || fees[0].AgentName != "Math Tutor" || fees[0].Paused ||
		fees[0].PeriodEnd.Sub(fees[0].PeriodStart) != AgentFeePeriod || time.Since(fees[0].PeriodStart) > time.Minute {
		t.Fatalf("agent fees %+v %v", fees, err)
	}
	if v := overview(t, s, "olga"); v.MonthUsageMicros != AgentFeeMicros {
		t.Fatalf("the fee is usage: %d", v.MonthUsageMicros)
	}
	// Answers without an agent, or for someone else's agent, pay no fee.
	fund(t, s, "pete", 5*MicrosPerDollar)
	if r, err := s.Reserve(ctx, agentReservation("pete", "ag-1", "Math Tutor", MicrosPerDollar, "p1")); err != nil || r.FeeCharged {
		t.Fatalf("another payer: %+v %v", r, err)
	}
	// A first answer the wallet cannot pay with its fee: insufficient_funds, nothing charged, not paused.
	if _, err := s.Reserve(ctx, agentReservation("pete", "ag-2", "Poet", MicrosPerDollar, "p2")); !errors.Is(err, ErrInsufficientFunds) {
		t.Fatalf("fee + answer above the balance: %v", err)
	}
	if n := feeCount(t, pool, "ag-2"); n != 0 {
		t.Fatalf("%d fees for a refused first answer", n)
	}
	if fees, _ := s.AgentFees(ctx, "pete"); len(fees) != 0 {
		t.Fatalf("pete's agents %+v", fees)
	}
	if got := FeeDescription("Math Tutor", time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)); got != "Agentic User fee · Math Tutor · Dec 1 – Dec 30" {
		t.Fatalf("description %q", got)
	}
	mustInvariants(t, s)
}

// TestAgentFeeOncePerPeriodUnderConcurrency: four schedulers and 60 answers
// race for a due renewal, and 60 answers for a new agent's first period:
// each period is charged exactly once.
func TestAgentFeeOncePerPeriodUnderConcurrency(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "quin", 1000*MicrosPerDollar)
	if _, err := s.Reserve(ctx, agentReservation("quin", "ag-due", "Due", 1000, "seed")); err != nil {
		t.Fatal(err)
	}
	endPeriod(t, pool, "ag-due", time.Hour, true)
	var due time.Time
	if err := pool.QueryRow(ctx, `SELECT paid_until FROM agent_billing WHERE agent_id = 'ag-due'`).Scan(&due); err != nil {
		t.Fatal(err)
	}
	var (
		wg      sync.WaitGroup
		failed  atomic.Value
		renewed atomic.Int64
	)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				done, err := s.RenewAgentFees(ctx, 10)
				if err != nil {
					failed.Store(err)
					return
				}
				renewed.Add(int64(len(done)))
			}
		}()
	}
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			agent := "ag-due"
			if i%2 == 1 {
				agent = "ag-new"
			}
			if _, err := s.Reserve(ctx, agentReservation("quin", agent, "Agent", 1000, fmt.Sprintf("c%d", i))); err != nil {
				failed.Store(err)
			}
		}()
	}
	wg.Wait()
	if e := failed.Load(); e != nil {
		t.Fatal(e)
	}
	// ag-due: the seed period and exactly one renewal, contiguous.
	if n := feeCount(t, pool, "ag-due"); n != 2 {
		t.Fatalf("ag-due charged %d periods, want 2", n)
	}
	var renewals int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM agent_fee_periods WHERE agent_id = 'ag-due' AND period_start = $1`, due).Scan(&renewals); err != nil {
		t.Fatal(err)
	}
	if renewals != 1 {
		t.Fatalf("no renewal starting at the end of the last period %v", due)
	}
	if n := feeCount(t, pool, "ag-new"); n != 1 {
		t.Fatalf("ag-new charged %d periods, want 1", n)
	}
	if renewed.Load() > 1 {
		t.Fatalf("the schedulers renewed %d times", renewed.Load())
	}
	// The schedulers find nothing more to do.
	if done, err := s.RenewAgentFees(ctx, 10); err != nil || len(done) != 0 {
		t.Fatalf("another round: %+v %v", done, err)
	}
	mustInvariants(t, s)
}

func TestRenewalPausesAndDepositResumes(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "rosa", 13*MicrosPerDollar)
	if _, err := s.Reserve(ctx, agentReservation("rosa", "ag-r", "Reader", 1000, "seed")); err != nil {
		t.Fatal(err)
	}
	// An unused agent is not renewed; a used one is, and $3 cannot pay it: paused.
	if _, err := s.Reserve(ctx, agentReservation("rosa", "ag-idle", "Idle", 1000, "seed2")); !errors.Is(err, ErrInsufficientFunds) {
		t.Fatalf("second agent on $3: %v", err)
	}
	endPeriod(t, pool, "ag-r", time.Minute, true)
	done, err := s.RenewAgentFees(ctx, 10)
	if err != nil || len(done) != 1 || done[0].Charged || done[0].AgentID != "ag-r" {
		t.Fatalf("renewal: %+v %v", done, err)
	}
	if n := outboxCount(t, pool, "rosa", TypeAgentPaused); n != 1 {
		t.Fatalf("%d paused events", n)
	}
	fees, _ := s.AgentFees(ctx, "rosa")
	if len(fees) != 1 || !fees[0].Paused {
		t.Fatalf("fees %+v", fees)
	}
	// Paused: answers are refused with agent_paused; a paused agent is not claimed again.
	if _, err := s.Reserve(ctx, agentReservation("rosa", "ag-r", "Reader", 1000, "q")); !errors.Is(err, ErrAgentPaused) {
		t.Fatalf("reserve while paused: %v", err)
	}
	if done, _ := s.RenewAgentFees(ctx, 10); len(done) != 0 {
		t.Fatalf("paused agent claimed again: %+v", done)
	}
	// A deposit pays the fee (a period from now) and resumes the agent.
	before := feeCount(t, pool, "ag-r")
	if _, err := s.Post(ctx, posting("rosa", TypeDeposit, 20*MicrosPerDollar, "top")); err != nil {
		t.Fatal(err)
	}
	if n := feeCount(t, pool, "ag-r"); n != before+1 {
		t.Fatalf("fees after the deposit: %d, want %d", n, before+1)
	}
	mustBalance(t, s, "rosa", Balance{Micros: 13*MicrosPerDollar - AgentFeeMicros + 20*MicrosPerDollar - AgentFeeMicros, HeldMicros: 1000})
	if n := outboxCount(t, pool, "rosa", TypeAgentResumed); n != 1 {
		t.Fatalf("%d resumed events", n)
	}
	r, err := s.Reserve(ctx, agentReservation("rosa", "ag-r", "Reader", 1000, "q2"))
	if err != nil || r.FeeCharged {
		t.Fatalf("after resuming: %+v %v", r, err)
	}
	mustInvariants(t, s)
}

// TestPausedAgentResumedByItsAnswer: a due renewal an answer cannot pay
// pauses the agent; a later answer that can pay fee + answer resumes it; a
// credit that cannot pay the fee leaves it paused, one that can resumes it.
func TestPausedAgentResumedByItsAnswer(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "sid", 30*MicrosPerDollar)
	if _, err := s.Reserve(ctx, agentReservation("sid", "ag-s", "S", 1000, "seed")); err != nil {
		t.Fatal(err)
	}
	big, err := s.Reserve(ctx, reservation("sid", 19*MicrosPerDollar, "big"))
	if err != nil {
		t.Fatal(err)
	}
	endPeriod(t, pool, "ag-s", time.Minute, true)
	// Due, not yet renewed by the scheduler: the answer tries the renewal and pauses.
	if _, err := s.Reserve(ctx, agentReservation("sid", "ag-s", "S", 1000, "q1")); !errors.Is(err, ErrAgentPaused) {
		t.Fatalf("unpaid renewal: %v", err)
	}
	if fees, _ := s.AgentFees(ctx, "sid"); len(fees) != 1 || !fees[0].Paused {
		t.Fatalf("fees %+v", fees)
	}
	if _, err := s.Release(ctx, big.Hold.ID); err != nil {
		t.Fatal(err)
	}
	r, err := s.Reserve(ctx, agentReservation("sid", "ag-s", "S", 1000, "q2"))
	if err != nil || !r.FeeCharged {
		t.Fatalf("answer after the money came back: %+v %v", r, err)
	}
	if n := outboxCount(t, pool, "sid", TypeAgentResumed); n != 1 {
		t.Fatalf("%d resumed events", n)
	}
	// Paused again; a credit too small for the fee leaves it paused, a bigger one resumes it.
	endPeriod(t, pool, "ag-s", time.Minute, true)
	if _, err := s.Reserve(ctx, reservation("sid", overview(t, s, "sid").AvailableMicros()-1000, "drain")); err != nil {
		t.Fatal(err)
	}
	if done, err := s.RenewAgentFees(ctx, 10); err != nil || len(done) != 1 || done[0].Charged {
		t.Fatalf("renewal on an empty wallet: %+v %v", done, err)
	}
	if _, err := s.Post(ctx, posting("sid", TypeIncome, 9*MicrosPerDollar, "inc1")); err != nil {
		t.Fatal(err)
	}
	if fees, _ := s.AgentFees(ctx, "sid"); len(fees) != 1 || !fees[0].Paused {
		t.Fatalf("fees after a small income %+v", fees)
	}
	if _, err := s.Post(ctx, posting("sid", TypeIncome, MicrosPerDollar, "inc2")); err != nil {
		t.Fatal(err)
	}
	if fees, _ := s.AgentFees(ctx, "sid"); len(fees) != 1 || fees[0].Paused {
		t.Fatalf("fees after enough income %+v", fees)
	}
	mustInvariants(t, s)
}

// TestInactiveAgentStopsRenewals: an inactive agent is not charged its fee
// (issue 29): the scheduler skips it, and once reactivated it is still not
// renewed by the scheduler; its next answer starts a new period from then.
func TestInactiveAgentStopsRenewals(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "tia", 100*MicrosPerDollar)
	if _, err := s.Reserve(ctx, agentReservation("tia", "ag-t", "T", 1000, "seed")); err != nil {
		t.Fatal(err)
	}
	endPeriod(t, pool, "ag-t", time.Minute, true)
	setStatus := func(name, status string) {
		t.Helper()
		if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			return SetAgentStatus(ctx, tx, "ag-t", "tia", name, status)
		}); err != nil {
			t.Fatal(err)
		}
	}
	setStatus("", "inactive")
	if done, err := s.RenewAgentFees(ctx, 10); err != nil || len(done) != 0 {
		t.Fatalf("inactive agent renewed: %+v %v", done, err)
	}
	// A repeated event (same status) changes nothing.
	setStatus("", "inactive")
	// The owner trying it out while inactive pays the usage, not the fee.
	if r, err := s.Reserve(ctx, agentReservation("tia", "ag-t", "T", 1000, "inactive-try")); err != nil || r.FeeCharged {
		t.Fatalf("answer of an inactive agent: %+v %v", r, err)
	}
	if n := feeCount(t, pool, "ag-t"); n != 1 {
		t.Fatalf("%d fees after an inactive agent's answer, want 1", n)
	}
	// Active again: the scheduler still does not charge it (no answer since).
	setStatus("Tutor", "active")
	if done, err := s.RenewAgentFees(ctx, 10); err != nil || len(done) != 0 {
		t.Fatalf("reactivated agent renewed without an answer: %+v %v", done, err)
	}
	if n := feeCount(t, pool, "ag-t"); n != 1 {
		t.Fatalf("%d fees before the next answer, want 1", n)
	}
	// Its next answer charges the fee: a new period from now (not the
	// inactive time since the old period ended).
	r, err := s.Reserve(ctx, agentReservation("tia", "ag-t", "Tutor", 1000, "after"))
	if err != nil || !r.FeeCharged {
		t.Fatalf("first answer after reactivation: %+v %v", r, err)
	}
	var start time.Time
	if err := pool.QueryRow(ctx, `SELECT period_start FROM agent_billing WHERE agent_id = 'ag-t'`).Scan(&start); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > time.Minute/2 {
		t.Fatalf("new period starts %v ago, want now", time.Since(start))
	}
	h := history(t, s, "tia")
	if !strings.Contains(h[0].Description, "· Tutor ·") {
		t.Fatalf("fee description %q", h[0].Description)
	}
	// Used in that period while active: renewed by the scheduler at its end.
	endPeriod(t, pool, "ag-t", time.Minute, true)
	if done, err := s.RenewAgentFees(ctx, 10); err != nil || len(done) != 1 || !done[0].Charged {
		t.Fatalf("active agent: %+v %v", done, err)
	}
	// Deactivated during a period it was used in: not renewed at its end.
	setStatus("", "inactive")
	setStatus("", "active")
	endPeriod(t, pool, "ag-t", time.Minute, false)
	if done, err := s.RenewAgentFees(ctx, 10); err != nil || len(done) != 0 {
		t.Fatalf("agent deactivated in its period renewed: %+v %v", done, err)
	}
	mustInvariants(t, s)
}
