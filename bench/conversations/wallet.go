package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
)

// walletClient is the wallet's internal gRPC API (127.0.0.1:9104 locally).
type walletClient struct {
	conn *grpc.ClientConn
	c    walletv1.WalletServiceClient
	run  string
	seq  atomic.Int64
	wait time.Duration
}

func dialWallet(addr, run string, wait time.Duration) (*walletClient, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	return &walletClient{conn: conn, c: walletv1.NewWalletServiceClient(conn), run: run, wait: wait}, nil
}

func (w *walletClient) key(kind string) string {
	return fmt.Sprintf("bench-conv:%s:%s:%d", w.run, kind, w.seq.Add(1))
}

// retry runs f while the wallet is restarting (UNAVAILABLE), up to w.wait.
// Idempotency keys are fixed by the caller before the first attempt.
func (w *walletClient) retry(ctx context.Context, f func(context.Context) error) error {
	deadline := time.Now().Add(w.wait)
	for {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := f(cctx)
		cancel()
		if err == nil || status.Code(err) != codes.Unavailable || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// credit funds uid with amount micro-dollars (an "income" transfer).
func (w *walletClient) credit(ctx context.Context, uid string, amount int64, desc string) error {
	key := w.key("credit")
	return w.retry(ctx, func(ctx context.Context) error {
		_, err := w.c.Credit(ctx, &walletv1.CreditRequest{Uid: uid, AmountMicros: amount, IdempotencyKey: key, Description: desc})
		return err
	})
}

func (w *walletClient) charge(ctx context.Context, uid string, amount int64, desc string) error {
	key := w.key("charge")
	return w.retry(ctx, func(ctx context.Context) error {
		_, err := w.c.Charge(ctx, &walletv1.ChargeRequest{Uid: uid, AmountMicros: amount, IdempotencyKey: key, Description: desc})
		return err
	})
}

// balance returns (balance, held) in micro-dollars, straight from PostgreSQL.
func (w *walletClient) balance(ctx context.Context, uid string) (int64, int64, error) {
	var r *walletv1.GetBalanceResponse
	err := w.retry(ctx, func(ctx context.Context) error {
		var err error
		r, err = w.c.GetBalance(ctx, &walletv1.GetBalanceRequest{Uid: uid})
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	return r.BalanceMicros, r.HeldMicros, nil
}

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
func walletBench(ctx context.Context, w *walletClient, users, conc int, d time.Duration) error {
	logf("wallet: funding %d wallets", users)
	uids := make([]string, users)
	for i := range uids {
		uids[i] = fmt.Sprintf("bench-conv-wallet-%s-%d", w.run, i)
		if err := w.credit(ctx, uids[i], 20_000_000, "bench/conversations: wallet throughput funding"); err != nil {
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
	fmt.Printf("\n== Wallet gRPC (%s): Charge vs Reserve+Capture, %d goroutines, %d wallets, %s each\n", w.conn.Target(), conc, users, d)
	ch := run("Charge", func(ctx context.Context, uid string) error {
		_, err := w.c.Charge(ctx, &walletv1.ChargeRequest{Uid: uid, AmountMicros: amount, IdempotencyKey: w.key("c"),
			Description: "bench/conversations · charge"})
		return err
	})
	rc := run("Reserve+Capture", func(ctx context.Context, uid string) error {
		h, err := w.c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: reserve, IdempotencyKey: w.key("r"), TtlSeconds: 120})
		if err != nil {
			return err
		}
		_, err = w.c.Capture(ctx, &walletv1.CaptureRequest{HoldId: h.Hold.Id, AmountMicros: amount,
			Description: "bench/conversations · capture"})
		return err
	})
	if c := ch.n.Load(); c > 0 {
		fmt.Printf("  ratio: one Reserve+Capture ≈ %.2f Charges (Reserve+Capture is 2 transactions, 3 transfers)\n",
			float64(c)/float64(max(1, rc.n.Load())))
	}
	return nil
}
