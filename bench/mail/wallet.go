package main

import (
	"context"
	"fmt"

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
	return fmt.Sprintf("bench-mail:%s:%s:%d", w.run, kind, w.seq.Add(1))
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
