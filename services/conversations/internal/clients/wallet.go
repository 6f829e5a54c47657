package clients

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
	"github.com/agentic-app/agentic/services/conversations/internal/metering"
)

// DefaultWalletTimeout bounds one wallet call.
const DefaultWalletTimeout = 3 * time.Second

// Wallet is metering.Wallet over the wallet's gRPC API.
type Wallet struct {
	client  walletv1.WalletServiceClient
	timeout time.Duration
}

var _ metering.Wallet = (*Wallet)(nil)

// NewWallet returns a client over conn (which the caller closes).
func NewWallet(conn grpc.ClientConnInterface, timeout time.Duration) *Wallet {
	if timeout <= 0 {
		timeout = DefaultWalletTimeout
	}
	return &Wallet{client: walletv1.NewWalletServiceClient(conn), timeout: timeout}
}

// walletError maps a gRPC status to the meter's errors. precondition is
// what FAILED_PRECONDITION means for the call (insufficient funds for
// Reserve/Charge, a closed hold for Capture/Release).
func walletError(op string, err error, precondition error) error {
	switch status.Code(err) {
	case codes.FailedPrecondition:
		if errors.Is(precondition, metering.ErrInsufficientFunds) {
			return fmt.Errorf("wallet %s: %w", op, &metering.RefusedError{Reason: reason(err), Short: shortfall(err)})
		}
		return fmt.Errorf("wallet %s: %w: %v", op, precondition, err)
	case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted, codes.Aborted, codes.Internal,
		codes.Unknown, codes.Canceled:
		// Transient or unknown outcome: the same call may be retried (idempotent).
		return fmt.Errorf("wallet %s: %w: %v", op, metering.ErrUnavailable, err)
	default:
		return fmt.Errorf("wallet %s: %w: %v", op, metering.ErrRejected, err)
	}
}

// reason is the wallet's refusal reason: its ErrorInfo detail, else the
// status message (which the wallet sets to the reason too).
func reason(err error) string {
	st := status.Convert(err)
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() != "" {
			return info.GetReason()
		}
	}
	if m := st.Message(); m != "" && !strings.ContainsAny(m, " :") {
		return m
	}
	return metering.ReasonInsufficientFunds
}

// shortfall reads the amounts the wallet attaches to a Reserve refused for
// funds (ErrorInfo metadata: needed_micros, available_micros and, when an
// agent fee is due, fee_micros); nil when the first two are not there.
func shortfall(err error) *metering.Shortfall {
	for _, d := range status.Convert(err).Details() {
		info, ok := d.(*errdetails.ErrorInfo)
		if !ok {
			continue
		}
		m := info.GetMetadata()
		needed, e1 := strconv.ParseInt(m["needed_micros"], 10, 64)
		available, e2 := strconv.ParseInt(m["available_micros"], 10, 64)
		// fee_micros may be absent (no agent fee due: a consumer's answer).
		var fee int64
		var e3 error
		if f, ok := m["fee_micros"]; ok {
			fee, e3 = strconv.ParseInt(f, 10, 64)
		}
		if e1 == nil && e2 == nil && e3 == nil {
			return &metering.Shortfall{NeededMicros: needed, AvailableMicros: available, FeeMicros: fee}
		}
	}
	return nil
}

func hold(h *walletv1.Hold) metering.Hold {
	return metering.Hold{
		ID: h.GetId(), Status: h.GetStatus(), AmountMicros: h.GetAmountMicros(),
		CapturedMicros: h.GetCapturedMicros(), TransferID: h.GetTransferId(),
	}
}

// Reserve implements metering.Wallet.
func (w *Wallet) Reserve(ctx context.Context, uid string, amount int64, key string, ttl time.Duration, metadata map[string]string) (metering.Hold, error) {
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	resp, err := w.client.Reserve(ctx, &walletv1.ReserveRequest{
		Uid: uid, AmountMicros: amount, IdempotencyKey: key, TtlSeconds: int64(ttl / time.Second), Metadata: metadata,
	})
	if err != nil {
		return metering.Hold{}, walletError("Reserve", err, metering.ErrInsufficientFunds)
	}
	return hold(resp.GetHold()), nil
}

// Capture implements metering.Wallet.
func (w *Wallet) Capture(ctx context.Context, holdID string, amount int64, description string, metadata map[string]string) (metering.Hold, error) {
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	resp, err := w.client.Capture(ctx, &walletv1.CaptureRequest{
		HoldId: holdID, AmountMicros: amount, Description: description, Metadata: metadata,
	})
	if err != nil {
		return metering.Hold{}, walletError("Capture", err, metering.ErrHoldClosed)
	}
	return hold(resp.GetHold()), nil
}

// Release implements metering.Wallet.
func (w *Wallet) Release(ctx context.Context, holdID string) (metering.Hold, error) {
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	resp, err := w.client.Release(ctx, &walletv1.ReleaseRequest{HoldId: holdID})
	if err != nil {
		return metering.Hold{}, walletError("Release", err, metering.ErrHoldClosed)
	}
	return hold(resp.GetHold()), nil
}

// Charge implements metering.Wallet.
func (w *Wallet) Charge(ctx context.Context, uid string, amount int64, key, description string, metadata map[string]string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	resp, err := w.client.Charge(ctx, &walletv1.ChargeRequest{
		Uid: uid, AmountMicros: amount, IdempotencyKey: key, Description: description, Metadata: metadata,
	})
	if err != nil {
		return "", walletError("Charge", err, metering.ErrInsufficientFunds)
	}
	return resp.GetTransfer().GetId(), nil
}
