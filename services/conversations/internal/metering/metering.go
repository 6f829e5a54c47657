// Package metering is the wallet side of every answer: reserve the worst
// case before the model is called, then capture what the answer actually
// cost (or release the hold when nothing was generated). It knows nothing of
// conversations; the conversations service records each step in its own
// charges table (the "pending charge" record) so a crash between reserve
// and capture is finished later with the same hold and the same amount.
//
// Every wallet call here is idempotent on the wallet's side (Reserve by key,
// Capture by hold and amount, Release by hold, Charge by key), which is what
// makes retrying them safe: a retry after a lost reply returns the original
// result instead of moving money twice.
package metering

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/platform/observability"
)

// Hold is a wallet hold as the meter sees it.
type Hold struct {
	ID             string
	Status         string // held, captured, released, expired
	AmountMicros   int64
	CapturedMicros int64
	TransferID     string
}

// Errors a Wallet returns (wrapped).
var (
	// ErrInsufficientFunds: the payer's available balance cannot cover the
	// amount (Reserve, Charge). Final: retrying will not help.
	ErrInsufficientFunds = errors.New("metering: insufficient funds")
	// ErrHoldClosed: the hold was released or expired before it was
	// captured (Capture, Release on a captured hold). Final.
	ErrHoldClosed = errors.New("metering: hold released or expired")
	// ErrUnavailable: the wallet could not answer (down, timeout, overloaded).
	// The call may or may not have happened; retry with the same arguments.
	ErrUnavailable = errors.New("metering: wallet unavailable")
	// ErrRejected: the wallet refused the call for a reason that retrying will
	// not change and that the service's own bookkeeping should make impossible
	// (unknown hold, an idempotency key reused with other parameters, an
	// amount above the hold).
	ErrRejected = errors.New("metering: wallet rejected the call")
)

// Reasons the wallet gives for refusing money (Reserve, Charge).
const (
	ReasonInsufficientFunds   = "insufficient_funds"
	ReasonMonthlyLimitReached = "monthly_limit_reached"
	ReasonDebtOutstanding     = "debt_outstanding"
	ReasonAgentPaused         = "agent_paused"
	// ReasonAgentUnavailable: a listed agent answers no one (its creator
	// cannot pay its monthly fee; issue 28). Nothing was held.
	ReasonAgentUnavailable = "agent_unavailable"
)

// RefusedError is a refusal by the wallet's money rules: not enough
// available balance, or another rule (monthly limit, debt, agent paused).
// It is ErrInsufficientFunds for errors.Is; Reason says which rule.
type RefusedError struct {
	Reason string
	// Short says how much was missing, when the wallet said (a Reserve
	// refused for funds); nil otherwise.
	Short *Shortfall
}

// Shortfall is what a reservation refused for funds needed — its hold and,
// when due, the agent's monthly fee — and what was available.
type Shortfall struct {
	NeededMicros, AvailableMicros, FeeMicros int64
}

func (e *RefusedError) Error() string { return "metering: refused by the wallet: " + e.Reason }

// Is makes every refusal ErrInsufficientFunds.
func (e *RefusedError) Is(target error) bool { return target == ErrInsufficientFunds }

// RefusalShortfall returns the amounts of a refusal for funds, if the
// wallet gave them.
func RefusalShortfall(err error) *Shortfall {
	var re *RefusedError
	if errors.As(err, &re) {
		return re.Short
	}
	return nil
}

// RefusalReason returns the wallet's reason for a refusal
// (ReasonInsufficientFunds when it gave none).
func RefusalReason(err error) string {
	var re *RefusedError
	if errors.As(err, &re) && re.Reason != "" {
		return re.Reason
	}
	return ReasonInsufficientFunds
}

// Wallet is the wallet's holds API (gRPC WalletService in production).
type Wallet interface {
	Reserve(ctx context.Context, uid string, amountMicros int64, key string, ttl time.Duration, metadata map[string]string) (Hold, error)
	Capture(ctx context.Context, holdID string, amountMicros int64, description string, metadata map[string]string) (Hold, error)
	Release(ctx context.Context, holdID string) (Hold, error)
	// Charge is a direct expense (no hold): the fallback when a hold expired
	// before its capture. Returns the transfer id.
	Charge(ctx context.Context, uid string, amountMicros int64, key, description string, metadata map[string]string) (string, error)
}

// Outcomes of Settle.
const (
	// Captured: the hold was captured (TransferID set when the amount > 0).
	Captured = "captured"
	// Charged: the hold had expired; the amount was charged directly instead.
	Charged = "charged"
	// Unbilled: the hold had expired and the wallet could not cover the
	// amount any more; nothing was charged (the answer was given anyway).
	Unbilled = "unbilled"
)

// Config configures a Meter.
type Config struct {
	// Attempts is how often a call that failed with ErrUnavailable is tried
	// in one Settle/Release/Reserve (default 3).
	Attempts int
	// Backoff is the wait before the first retry, doubled each time (default 100ms).
	Backoff time.Duration
	// HoldTTL is the lifetime of a hold (default 10 minutes): longer than
	// any answer, short enough that a crashed answer frees the money soon.
	HoldTTL time.Duration
	Logger  *slog.Logger
	// Registerer receives the meter's metrics (optional).
	Registerer prometheus.Registerer
}

// Meter runs the wallet side of answers.
type Meter struct {
	wallet   Wallet
	attempts int
	backoff  time.Duration
	ttl      time.Duration
	log      *slog.Logger

	calls    *prometheus.CounterVec
	captured prometheus.Counter
	unbilled prometheus.Counter
}

// New returns a Meter over w.
func New(w Wallet, cfg Config) *Meter {
	if cfg.Attempts <= 0 {
		cfg.Attempts = 3
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 100 * time.Millisecond
	}
	if cfg.HoldTTL <= 0 {
		cfg.HoldTTL = 10 * time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	m := &Meter{
		wallet: w, attempts: cfg.Attempts, backoff: cfg.Backoff, ttl: cfg.HoldTTL, log: cfg.Logger,
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "conversations_wallet_calls_total", Help: "Wallet calls by operation and result.",
		}, []string{"op", "result"}),
		captured: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "conversations_captured_micros_total", Help: "Micro-dollars captured (or charged) for answers.",
		}),
		unbilled: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "conversations_unbilled_micros_total", Help: "Micro-dollars of answers that could not be billed (hold expired, wallet empty).",
		}),
	}
	if cfg.Registerer != nil {
		m.calls = observability.Register(cfg.Registerer, m.calls)
		m.captured = observability.Register(cfg.Registerer, m.captured)
		m.unbilled = observability.Register(cfg.Registerer, m.unbilled)
	}
	return m
}

// HoldTTL is the lifetime the meter asks for on each hold.
func (m *Meter) HoldTTL() time.Duration { return m.ttl }

func result(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrInsufficientFunds):
		return "insufficient_funds"
	case errors.Is(err, ErrHoldClosed):
		return "hold_closed"
	case errors.Is(err, ErrUnavailable):
		return "unavailable"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "canceled"
	default:
		return "rejected"
	}
}

// retry runs fn until it succeeds, fails with anything but ErrUnavailable,
// or the attempts are used up.
func (m *Meter) retry(ctx context.Context, op string, fn func() error) error {
	wait := m.backoff
	var err error
	for i := 0; i < m.attempts; i++ {
		if i > 0 {
			select {
			case <-ctx.Done():
				return errors.Join(err, ctx.Err())
			case <-time.After(wait):
			}
			wait *= 2
		}
		err = fn()
		m.calls.WithLabelValues(op, result(err)).Inc()
		if err == nil || !errors.Is(err, ErrUnavailable) {
			return err
		}
	}
	return err
}

// Reserve puts amount on hold for payer under key. ErrInsufficientFunds when
// the wallet cannot cover it; ErrUnavailable when the wallet did not answer
// (the hold may exist: Abandon with the same arguments frees it).
func (m *Meter) Reserve(ctx context.Context, payer string, amount int64, key string, metadata map[string]string) (Hold, error) {
	var h Hold
	err := m.retry(ctx, "reserve", func() error {
		var err error
		h, err = m.wallet.Reserve(ctx, payer, amount, key, m.ttl, metadata)
		return err
	})
	return h, err
}

// Release gives a hold back. A hold that is already released or expired is
// fine; a captured one is ErrHoldClosed (the caller's bookkeeping is wrong).
func (m *Meter) Release(ctx context.Context, holdID string) error {
	return m.retry(ctx, "release", func() error {
		h, err := m.wallet.Release(ctx, holdID)
		if err == nil && h.Status == "captured" {
			return fmt.Errorf("%w: hold %s is captured", ErrHoldClosed, holdID)
		}
		return err
	})
}

// Abandon frees whatever a Reserve with these arguments may have created
// when its outcome is unknown (the wallet did not answer): the same key and
// amount return the original hold if there is one (or create one, which is
// released at once), and it is released. ErrInsufficientFunds means no hold
// exists and none could have been made: nothing to free.
func (m *Meter) Abandon(ctx context.Context, payer string, amount int64, key string, metadata map[string]string) error {
	h, err := m.Reserve(ctx, payer, amount, key, metadata)
	switch {
	case errors.Is(err, ErrInsufficientFunds):
		return nil
	case err != nil:
		return err
	}
	if h.Status != "held" {
		return nil // already released/expired/captured under this key
	}
	return m.Release(ctx, h.ID)
}

// Settlement is what to bill for one answer.
type Settlement struct {
	HoldID string
	Payer  string
	// Key is the reserve's idempotency key; the direct-charge fallback uses
	// Key + ":late" so it can never collide with the hold.
	Key          string
	AmountMicros int64
	Description  string
	Metadata     map[string]string
}

// Settled is the outcome of Settle.
type Settled struct {
	Outcome    string // Captured, Charged or Unbilled
	TransferID string
}

// Settle bills an answer: Capture(hold, amount), which releases the rest of
// the hold. When the hold was released or has expired (a crash kept us away
// longer than the hold's lifetime) the amount is charged directly under a
// derived key instead; if the wallet cannot cover it any more the answer
// stays unbilled (the wallet never goes below zero). ErrUnavailable means the
// wallet could not be reached after the retries: call Settle again later
// with the same Settlement, which is safe because every step is idempotent.
func (m *Meter) Settle(ctx context.Context, s Settlement) (Settled, error) {
	var h Hold
	err := m.retry(ctx, "capture", func() error {
		var err error
		h, err = m.wallet.Capture(ctx, s.HoldID, s.AmountMicros, s.Description, s.Metadata)
		return err
	})
	if err == nil {
		m.captured.Add(float64(s.AmountMicros))
		return Settled{Outcome: Captured, TransferID: h.TransferID}, nil
	}
	if !errors.Is(err, ErrHoldClosed) {
		return Settled{}, err
	}
	m.log.WarnContext(ctx, "hold closed before capture, charging directly", "hold_id", s.HoldID, "amount_micros", s.AmountMicros)
	if s.AmountMicros == 0 {
		return Settled{Outcome: Captured}, nil
	}
	var transfer string
	err = m.retry(ctx, "charge", func() error {
		var err error
		transfer, err = m.wallet.Charge(ctx, s.Payer, s.AmountMicros, s.Key+":late", s.Description, s.Metadata)
		return err
	})
	switch {
	case err == nil:
		m.captured.Add(float64(s.AmountMicros))
		return Settled{Outcome: Charged, TransferID: transfer}, nil
	case errors.Is(err, ErrInsufficientFunds):
		m.unbilled.Add(float64(s.AmountMicros))
		m.log.ErrorContext(ctx, "answer left unbilled: hold expired and the wallet cannot cover it",
			"hold_id", s.HoldID, "payer", s.Payer, "amount_micros", s.AmountMicros)
		return Settled{Outcome: Unbilled}, nil
	default:
		return Settled{}, err
	}
}
