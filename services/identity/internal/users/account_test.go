package users

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/auth"
)

type fakeAccounts struct {
	mu      sync.Mutex
	revoked []string
	deleted []string
	fail    error
}

func (f *fakeAccounts) RevokeRefreshTokens(_ context.Context, uid string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return f.fail
	}
	f.revoked = append(f.revoked, uid)
	return nil
}

func (f *fakeAccounts) DeleteUser(_ context.Context, uid string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return f.fail
	}
	f.deleted = append(f.deleted, uid)
	return nil
}

type fakeWallet struct {
	b   Balance
	err error
}

func (f *fakeWallet) Balance(context.Context, string) (Balance, error) { return f.b, f.err }

func TestRevokeSessions(t *testing.T) {
	acc := &fakeAccounts{}
	svc := NewService(newFakeStore(), WithAccounts(acc))
	if err := svc.RevokeSessions(context.Background(), "u1"); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(acc.revoked, []string{"u1"}) {
		t.Fatalf("revoked = %v", acc.revoked)
	}
	acc.fail = errors.New("boom")
	if err := svc.RevokeSessions(context.Background(), "u1"); !errors.Is(err, ErrAccountsUnavailable) {
		t.Fatalf("err = %v", err)
	}
}

func TestDeleteAccountRefusedWithMoney(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		b    Balance
		want string
	}{
		{Balance{Micros: 12_340_000}, "Your wallet holds $12.34: spend or withdraw it before deleting your account."},
		{Balance{Micros: 300}, "Your wallet holds $0.0003: spend or withdraw it before deleting your account."},
		{Balance{Micros: 1_234_567_890_000}, "Your wallet holds $1,234,567.89: spend or withdraw it before deleting your account."},
		{Balance{Micros: 2_000_000, HeldMicros: 2_000_000}, "An answer is being paid from your wallet: try again in a few minutes."},
		{Balance{Micros: -5_000_000}, "Your wallet owes $5.00: add funds to settle it before deleting your account."},
		{Balance{EarningsMicros: 1_500_000}, "You have $1.50 of earnings not yet paid out: withdraw them or move them to your wallet and spend them before deleting your account."},
	}
	for _, c := range cases {
		st := newFakeStore()
		acc := &fakeAccounts{}
		svc := NewService(st, WithAccounts(acc), WithWallet(&fakeWallet{b: c.b}))
		if _, _, err := svc.Onboard(ctx, auth.Claims{UID: "u1", Email: "ada@example.com"}, nil); err != nil {
			t.Fatal(err)
		}
		err := svc.DeleteAccount(ctx, auth.Claims{UID: "u1", Email: "ada@example.com"})
		var ne *AccountNotEmptyError
		if !errors.As(err, &ne) || ne.Message != c.want {
			t.Errorf("%+v: err = %v, want %q", c.b, err, c.want)
		}
		if len(acc.deleted) != 0 || len(st.users) != 1 || len(st.events) != 1 {
			t.Errorf("%+v: deleted anyway: %v %v %v", c.b, acc.deleted, st.users, st.eventTypes())
		}
	}
}

func TestDeleteAccountAtZero(t *testing.T) {
	ctx := context.Background()
	st := newFakeStore()
	acc := &fakeAccounts{}
	svc := NewService(st, WithAccounts(acc), WithWallet(&fakeWallet{}))
	c := auth.Claims{UID: "u1", Email: "ada@example.com"}
	if _, _, err := svc.Onboard(ctx, c, nil); err != nil {
		t.Fatal(err)
	}
	// The provider fails once: the profile and event are gone, the retry
	// deletes the provider's user without a second event.
	acc.fail = errors.New("emulator down")
	if err := svc.DeleteAccount(ctx, c); !errors.Is(err, ErrAccountsUnavailable) {
		t.Fatalf("err = %v", err)
	}
	acc.fail = nil
	if err := svc.DeleteAccount(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.GetUser(ctx, "u1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("profile still there: %v", err)
	}
	if !reflect.DeepEqual(acc.deleted, []string{"u1"}) {
		t.Fatalf("deleted = %v", acc.deleted)
	}
	if got := st.eventTypes(); !reflect.DeepEqual(got, []string{TypeUserOnboarded, TypeUserDeleted}) {
		t.Fatalf("events = %v", got)
	}
	ev := st.events[1]
	p := ev.Payload.(*eventsv1.UserDeleted)
	if ev.Topic != Topic || ev.Key != "u1" || p.GetUid() != "u1" || p.GetEmail() != "ada@example.com" || p.GetOccurredAt() == nil {
		t.Fatalf("event = %+v %v", ev, p)
	}
}

func TestDeleteAccountWalletDown(t *testing.T) {
	st := newFakeStore()
	acc := &fakeAccounts{}
	svc := NewService(st, WithAccounts(acc), WithWallet(&fakeWallet{err: errors.New("unreachable")}))
	err := svc.DeleteAccount(context.Background(), auth.Claims{UID: "u1"})
	if !errors.Is(err, ErrWalletUnavailable) || len(acc.deleted) != 0 {
		t.Fatalf("err = %v, deleted = %v", err, acc.deleted)
	}
}

func TestFormatUSD(t *testing.T) {
	for m, want := range map[int64]string{0: "$0.00", 10_000: "$0.01", 1_500_000: "$1.50", 1: "$0.000001", 12_345_600: "$12.3456", -300: "-$0.0003"} {
		if got := FormatUSD(m); got != want {
			t.Errorf("FormatUSD(%d) = %q, want %q", m, got, want)
		}
	}
}
