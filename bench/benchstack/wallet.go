package benchstack

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
)

// Wallet is the wallet's internal gRPC API (127.0.0.1:9104 locally).
type Wallet struct {
	Conn *grpc.ClientConn
	C    walletv1.WalletServiceClient
	Run  string
	Wait time.Duration // how long calls retry a (re)starting wallet

	prefix    string
	transport string // how it dials: "plaintext" or "mutual TLS as <cert>"
	seq       atomic.Int64
}

// DialWallet connects to the wallet at addr (mutual TLS as "devtools" when
// the local stack's certificates exist, see GRPCTransport); prefix starts
// every idempotency key (e.g. "bench-mail"), run follows it.
func DialWallet(addr, prefix, run string, wait time.Duration) (*Wallet, error) {
	transport, how, err := GRPCTransport()
	if err != nil {
		return nil, err
	}
	conn, err := grpc.NewClient(addr, transport)
	if err != nil {
		return nil, err
	}
	return &Wallet{Conn: conn, C: walletv1.NewWalletServiceClient(conn), Run: run, Wait: wait, prefix: prefix, transport: how}, nil
}

// Key is a fresh idempotency key: <prefix>:<run>:<kind>:<n>.
func (w *Wallet) Key(kind string) string {
	return fmt.Sprintf("%s:%s:%s:%d", w.prefix, w.Run, kind, w.seq.Add(1))
}

// Retry runs f while the wallet is restarting (UNAVAILABLE), up to w.Wait.
// Idempotency keys are fixed by the caller before the first attempt. A
// plaintext dial to a wallet that serves mutual TLS is not a restart: it
// fails at once, saying where the certificate is looked for.
func (w *Wallet) Retry(ctx context.Context, f func(context.Context) error) error {
	deadline := time.Now().Add(w.Wait)
	for {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := f(cctx)
		cancel()
		if w.transport == "plaintext" && status.Code(err) == codes.Unavailable && strings.Contains(err.Error(), "server preface") {
			return fmt.Errorf("%w (dialled plaintext, and the wallet serves TLS: run from the repository, whose .data/certs/devtools.crt `make dev` made, or set GRPC_TLS_CA/GRPC_TLS_CERT/GRPC_TLS_KEY)", err)
		}
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

// Credit funds uid with amount micro-dollars (an "income" transfer).
func (w *Wallet) Credit(ctx context.Context, uid string, amount int64, desc string) error {
	key := w.Key("credit")
	return w.Retry(ctx, func(ctx context.Context) error {
		_, err := w.C.Credit(ctx, &walletv1.CreditRequest{Uid: uid, AmountMicros: amount, IdempotencyKey: key, Description: desc})
		return err
	})
}

// Charge takes amount micro-dollars from uid.
func (w *Wallet) Charge(ctx context.Context, uid string, amount int64, desc string) error {
	key := w.Key("charge")
	return w.Retry(ctx, func(ctx context.Context) error {
		_, err := w.C.Charge(ctx, &walletv1.ChargeRequest{Uid: uid, AmountMicros: amount, IdempotencyKey: key, Description: desc})
		return err
	})
}

// Balance returns (balance, held) in micro-dollars, straight from PostgreSQL.
func (w *Wallet) Balance(ctx context.Context, uid string) (int64, int64, error) {
	var r *walletv1.GetBalanceResponse
	err := w.Retry(ctx, func(ctx context.Context) error {
		var err error
		r, err = w.C.GetBalance(ctx, &walletv1.GetBalanceRequest{Uid: uid})
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	return r.BalanceMicros, r.HeldMicros, nil
}
