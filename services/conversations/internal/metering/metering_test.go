package metering_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/platform/server"

	"github.com/agentic-app/agentic/services/conversations/internal/clients"
	"github.com/agentic-app/agentic/services/conversations/internal/fakes"
	"github.com/agentic-app/agentic/services/conversations/internal/metering"
)

// The meter against the wallet's gRPC API (an in-process fake with the
// proto's semantics), through the production client.
func setup(t *testing.T) (*metering.Meter, *fakes.Wallet) {
	t.Helper()
	w := fakes.NewWallet()
	conn, err := server.DialGRPC(fakes.Start(t, w), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return metering.New(clients.NewWallet(conn, time.Second), metering.Config{Backoff: time.Millisecond, HoldTTL: time.Minute}), w
}

func TestReserveCaptureReleasesTheRest(t *testing.T) {
	m, w := setup(t)
	ctx := context.Background()
	w.SetBalance("u", 1000)
	h, err := m.Reserve(ctx, "u", 600, "msg:1", nil)
	if err != nil || h.Status != "held" || h.AmountMicros != 600 {
		t.Fatalf("reserve %+v %v", h, err)
	}
	if _, err := m.Reserve(ctx, "u", 600, "msg:2", nil); !errors.Is(err, metering.ErrInsufficientFunds) {
		t.Fatalf("second reserve beyond the available balance: %v", err)
	}
	s, err := m.Settle(ctx, metering.Settlement{HoldID: h.ID, Payer: "u", Key: "msg:1", AmountMicros: 250, Description: "A · 10 tokens"})
	if err != nil || s.Outcome != metering.Captured || s.TransferID == "" {
		t.Fatalf("settle %+v %v", s, err)
	}
	if bal, held := w.Balance("u"); bal != 750 || held != 0 {
		t.Fatalf("balance %d held %d", bal, held)
	}
	// Settling again (a retry after a lost reply) moves no money.
	if s2, err := m.Settle(ctx, metering.Settlement{HoldID: h.ID, Payer: "u", Key: "msg:1", AmountMicros: 250}); err != nil || s2.TransferID != s.TransferID {
		t.Fatalf("second settle %+v %v", s2, err)
	}
	if bal, _ := w.Balance("u"); bal != 750 || len(w.Transfers()) != 1 {
		t.Fatalf("charged twice: balance %d, %d transfers", bal, len(w.Transfers()))
	}
	// A captured hold cannot be released.
	if err := m.Release(ctx, h.ID); !errors.Is(err, metering.ErrHoldClosed) {
		t.Fatalf("release captured: %v", err)
	}
}

func TestRetriesTransientFailures(t *testing.T) {
	m, w := setup(t)
	ctx := context.Background()
	w.SetBalance("u", 1000)
	// Two lost replies: the hold was made on the first call; the retries
	// get it back by key, and only one hold exists.
	w.LoseReplies("Reserve", 2)
	h, err := m.Reserve(ctx, "u", 100, "k", nil)
	if err != nil || w.Calls("Reserve") != 3 || len(w.Holds()) != 1 {
		t.Fatalf("reserve %+v %v, %d calls, %d holds", h, err, w.Calls("Reserve"), len(w.Holds()))
	}
	// More failures than attempts: ErrUnavailable, the caller retries later.
	w.Fail("Capture", 3)
	if _, err := m.Settle(ctx, metering.Settlement{HoldID: h.ID, Payer: "u", Key: "k", AmountMicros: 40}); !errors.Is(err, metering.ErrUnavailable) {
		t.Fatalf("settle with the wallet down: %v", err)
	}
	if s, err := m.Settle(ctx, metering.Settlement{HoldID: h.ID, Payer: "u", Key: "k", AmountMicros: 40}); err != nil || s.Outcome != metering.Captured {
		t.Fatalf("settle when back: %+v %v", s, err)
	}
	if bal, held := w.Balance("u"); bal != 960 || held != 0 {
		t.Fatalf("balance %d held %d", bal, held)
	}
}

func TestExpiredHoldIsChargedDirectlyOrLeftUnbilled(t *testing.T) {
	m, w := setup(t)
	ctx := context.Background()
	w.SetBalance("u", 1000)
	h, _ := m.Reserve(ctx, "u", 500, "msg:a", nil)
	w.Expire(h.ID)
	s, err := m.Settle(ctx, metering.Settlement{HoldID: h.ID, Payer: "u", Key: "msg:a", AmountMicros: 300, Description: "d"})
	if err != nil || s.Outcome != metering.Charged || s.TransferID == "" {
		t.Fatalf("settle expired %+v %v", s, err)
	}
	if tr := w.Transfers(); len(tr) != 1 || tr[0].Key != "msg:a:late" || tr[0].Amount != 300 {
		t.Fatalf("transfers %+v", tr)
	}
	// The same settlement again: the charge is replayed by key, not repeated.
	if _, err := m.Settle(ctx, metering.Settlement{HoldID: h.ID, Payer: "u", Key: "msg:a", AmountMicros: 300, Description: "d"}); err != nil {
		t.Fatal(err)
	}
	if bal, _ := w.Balance("u"); bal != 700 {
		t.Fatalf("balance %d", bal)
	}
	// Not enough left: unbilled, nothing moves.
	h2, _ := m.Reserve(ctx, "u", 500, "msg:b", nil)
	w.Expire(h2.ID)
	w.SetBalance("u", 100)
	if s, err := m.Settle(ctx, metering.Settlement{HoldID: h2.ID, Payer: "u", Key: "msg:b", AmountMicros: 300}); err != nil || s.Outcome != metering.Unbilled {
		t.Fatalf("unbilled %+v %v", s, err)
	}
	if bal, _ := w.Balance("u"); bal != 100 || len(w.Transfers()) != 1 {
		t.Fatalf("balance %d transfers %d", bal, len(w.Transfers()))
	}
}

func TestAbandonFreesAHoldOfUnknownOutcome(t *testing.T) {
	m, w := setup(t)
	ctx := context.Background()
	w.SetBalance("u", 1000)
	w.LoseReplies("Reserve", 3)
	if _, err := m.Reserve(ctx, "u", 400, "lost", nil); !errors.Is(err, metering.ErrUnavailable) {
		t.Fatalf("reserve: %v", err)
	}
	if _, held := w.Balance("u"); held != 400 {
		t.Fatalf("held %d", held)
	}
	if err := m.Abandon(ctx, "u", 400, "lost", nil); err != nil {
		t.Fatal(err)
	}
	if _, held := w.Balance("u"); held != 0 {
		t.Fatalf("held after abandon %d", held)
	}
	// Abandoning a reserve that never happened creates nothing lasting.
	if err := m.Abandon(ctx, "u", 100, "never", nil); err != nil {
		t.Fatal(err)
	}
	if bal, held := w.Balance("u"); bal != 1000 || held != 0 {
		t.Fatalf("balance %d held %d", bal, held)
	}
	// Nor when it could not have been made.
	if err := m.Abandon(ctx, "u", 5000, "too-much", nil); err != nil {
		t.Fatal(err)
	}
}
