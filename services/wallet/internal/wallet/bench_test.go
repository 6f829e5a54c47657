package wallet

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkConcurrentCharges measures ledger throughput: concurrent
// idempotent charges (each a full transaction: wallet row lock, key check,
// two balance updates, transfer insert) spread over 100 funded users, with
// GOMAXPROCS×8 goroutines. Reported as transfers/s. bench/wallet/run.sh runs
// it next to pgbench.
func BenchmarkConcurrentCharges(b *testing.B) {
	s, _ := newStore(b)
	ctx := context.Background()
	const users = 100
	for i := 0; i < users; i++ {
		if _, err := s.Post(ctx, posting(fmt.Sprintf("bench-%d", i), TypeDeposit, 1_000_000*MicrosPerDollar, fmt.Sprintf("fund-%d", i))); err != nil {
			b.Fatal(err)
		}
	}
	var n atomic.Int64
	b.SetParallelism(8)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			uid := fmt.Sprintf("bench-%d", i%users)
			if _, err := s.Post(ctx, Posting{UID: uid, Type: TypeExpense, AmountMicros: 1234, IdempotencyKey: fmt.Sprintf("charge-%d-%d", start.UnixNano(), i),
				Provider: ProviderPlatform, Description: "bench"}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(n.Load())/elapsed.Seconds(), "transfers/s")
	if err := s.CheckInvariants(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkConcurrentReserveCapture measures the metered path of an answer:
// Reserve (worst case) then Capture (part of it, the rest returned), each a
// full transaction, with the same users, parallelism and database server as
// BenchmarkConcurrentCharges. Reported as answers/s (one Reserve + one
// Capture each: three transfers, one of them visible).
func BenchmarkConcurrentReserveCapture(b *testing.B) { benchAnswers(b, false) }

// BenchmarkConcurrentBilledAnswers is the same path with every billing rule
// at work: each user has a monthly limit, a low-balance threshold and
// auto-recharge settings, and every answer names the user's agent (its fee
// charged by the first answer, covered afterwards). The difference to
// BenchmarkConcurrentReserveCapture is what the spend controls and the fee
// check cost.
func BenchmarkConcurrentBilledAnswers(b *testing.B) { benchAnswers(b, true) }

func benchAnswers(b *testing.B, billed bool) {
	s, _ := newStore(b)
	ctx := context.Background()
	const users = 100
	for i := 0; i < users; i++ {
		uid := fmt.Sprintf("bench-%d", i)
		if _, err := s.Post(ctx, posting(uid, TypeDeposit, 1_000_000*MicrosPerDollar, fmt.Sprintf("fund-%d", i))); err != nil {
			b.Fatal(err)
		}
		if billed {
			limit, low := int64(MaxSettingMicros), int64(MinSettingMicros)
			if _, err := s.PutSettings(ctx, uid, BillingSettings{MonthlyLimitMicros: &limit, LowBalanceThresholdMicros: &low,
				AutoRecharge: AutoRechargeSettings{ThresholdMicros: &low, AmountMicros: &low}}); err != nil {
				b.Fatal(err)
			}
		}
	}
	var n atomic.Int64
	b.SetParallelism(8)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			uid := fmt.Sprintf("bench-%d", i%users)
			var meta map[string]string
			if billed {
				meta = map[string]string{MetaAgentID: "agent-" + uid, MetaAgentName: "Bench agent"}
			}
			r, err := s.Reserve(ctx, Reservation{UID: uid, AmountMicros: 5000, IdempotencyKey: fmt.Sprintf("answer-%d-%d", start.UnixNano(), i),
				TTL: DefaultHoldTTL, Metadata: meta})
			if err != nil {
				b.Error(err)
				return
			}
			if _, err := s.Capture(ctx, Capture{HoldID: r.Hold.ID, AmountMicros: 1234, Description: "bench"}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(n.Load())/elapsed.Seconds(), "answers/s")
	if err := s.CheckInvariants(ctx); err != nil {
		b.Fatal(err)
	}
}
