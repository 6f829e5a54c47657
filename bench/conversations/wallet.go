package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/status"

	"github.com/agentic-app/agentic/bench/benchstack"
	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
)

// --- Reserve+Capture vs Charge ------------------------------------------------

type opStats struct {
	n    atomic.Int64
	errs sync.Map // code → *atomic.Int64
	mu   sync.Mutex
	lat  []time.Duration
}

func (s *opStats) add(d time.Duration, err error) {
	if err != nil {
		c, _ := s.errs.LoadOrStore(status.Code(err).String()+" "+status.Convert(err).Message(), new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
		return
	}
	s.n.Add(1)
	s.mu.Lock()
	s.lat = append(s.lat, d)
	s.mu.Unlock()
}

func (s *opStats) errors() string {
	out := ""
	s.errs.Range(func(k, v any) bool {
		out += fmt.Sprintf(" [%s ×%d]", k, v.(*atomic.Int64).Load())
		return true
	})
	if out == "" {
		return " none"
	}
	return out
}

// walletBench runs plain Charge, then Reserve+Capture, each for d with conc
// goroutines over users fresh wallets (no agent metadata: no agent fee).
func walletBench(ctx context.Context, w *benchstack.Wallet, users, conc int, d time.Duration) error {
	logf("wallet: funding %d wallets", users)
	uids := make([]string, users)
	for i := range uids {
		uids[i] = fmt.Sprintf("bench-conv-wallet-%s-%d", w.Run, i)
		if err := w.Credit(ctx, uids[i], 20_000_000, "bench/conversations: wallet throughput funding"); err != nil {
			return fmt.Errorf("credit: %w", err)
		}
	}
	const amount, reserve = 1_000, 3_000
	run := func(name string, op func(ctx context.Context, uid string) error) *opStats {
		st := &opStats{}
		load := startLoadSampler()
		var next atomic.Int64
		end := time.Now().Add(d)
		var wg sync.WaitGroup
		t0 := time.Now()
		for g := 0; g < conc; g++ {
			wg.Go(func() {
				for time.Now().Before(end) && ctx.Err() == nil {
					uid := uids[int(next.Add(1))%len(uids)]
					cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
					s := time.Now()
					err := op(cctx, uid)
					cancel()
					st.add(time.Since(s), err)
				}
			})
		}
		wg.Wait()
		el := time.Since(t0)
		fmt.Printf("  %-16s %7.0f /s  latency %s  errors:%s\n", name, float64(st.n.Load())/el.Seconds(), dist(st.lat), st.errors())
		fmt.Printf("  %-16s %s\n", "", load.Stop())
		return st
	}
	fmt.Printf("\n== Wallet gRPC (%s): Charge vs Reserve+Capture, %d goroutines, %d wallets, %s each\n", w.Conn.Target(), conc, users, d)
	ch := run("Charge", func(ctx context.Context, uid string) error {
		_, err := w.C.Charge(ctx, &walletv1.ChargeRequest{Uid: uid, AmountMicros: amount, IdempotencyKey: w.Key("c"),
			Description: "bench/conversations · charge"})
		return err
	})
	rc := run("Reserve+Capture", func(ctx context.Context, uid string) error {
		h, err := w.C.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: reserve, IdempotencyKey: w.Key("r"), TtlSeconds: 120})
		if err != nil {
			return err
		}
		_, err = w.C.Capture(ctx, &walletv1.CaptureRequest{HoldId: h.Hold.Id, AmountMicros: amount,
			Description: "bench/conversations · capture"})
		return err
	})
	if c := ch.n.Load(); c > 0 {
		fmt.Printf("  ratio: one Reserve+Capture ≈ %.2f Charges (Reserve+Capture is 2 transactions, 3 transfers)\n",
			float64(c)/float64(max(1, rc.n.Load())))
	}
	return nil
}
