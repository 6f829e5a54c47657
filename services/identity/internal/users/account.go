package users

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// TypeUserDeleted is the CloudEvents type of UserDeleted (topic Topic).
const TypeUserDeleted = topics.IdentityUserDeleted

// Accounts is the identity provider's admin API (the Firebase Admin SDK;
// the Auth emulator locally).
type Accounts interface {
	// RevokeRefreshTokens signs the user out everywhere: their refresh
	// tokens stop working; ID tokens already issued stay valid until they
	// expire (at most an hour) except where a route checks revocation.
	RevokeRefreshTokens(ctx context.Context, uid string) error
	// DeleteUser deletes the account; an unknown user is not an error.
	DeleteUser(ctx context.Context, uid string) error
}

// Balance is what the wallet holds for a user, in micro-dollars.
type Balance struct {
	Micros     int64 // the wallet balance (money on holds included)
	HeldMicros int64 // money on open holds (answers being written)
	// EarningsMicros: a creator's earnings not yet paid out (pending +
	// available + payouts in transit); they are the user's money too.
	EarningsMicros int64
}

// Wallet reads a user's wallet (the wallet service's GetBalance over gRPC).
type Wallet interface {
	Balance(ctx context.Context, uid string) (Balance, error)
}

// ErrAccountsUnavailable wraps a failure of the identity provider.
var ErrAccountsUnavailable = errors.New("identity provider unavailable")

// ErrWalletUnavailable wraps a failure to read the wallet.
var ErrWalletUnavailable = errors.New("wallet unavailable")

// AccountNotEmptyError refuses an account deletion while the wallet holds
// money (HTTP 409 account_not_empty); Message says why and what to do.
type AccountNotEmptyError struct{ Message string }

func (e *AccountNotEmptyError) Error() string { return e.Message }

// FormatUSD formats micro-dollars as "$12.34", with more digits for a
// sub-cent remainder ("$0.0003") so that a non-zero amount never reads
// "$0.00".
func FormatUSD(micros int64) string {
	sign := ""
	if micros < 0 {
		sign, micros = "-", -micros
	}
	whole, frac := micros/1_000_000, micros%1_000_000
	digits := strings.TrimRight(fmt.Sprintf("%06d", frac), "0")
	if len(digits) < 2 {
		digits += strings.Repeat("0", 2-len(digits))
	}
	return fmt.Sprintf("%s$%s.%s", sign, groupThousands(whole), digits)
}

func groupThousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// notEmptyReason is the refusal message for b, or "" when the wallet is empty.
func notEmptyReason(b Balance) string {
	switch {
	case b.HeldMicros > 0:
		return "An answer is being paid from your wallet: try again in a few minutes."
	case b.Micros > 0:
		return fmt.Sprintf("Your wallet holds %s: spend or withdraw it before deleting your account.", FormatUSD(b.Micros))
	case b.Micros < 0:
		return fmt.Sprintf("Your wallet owes %s: add funds to settle it before deleting your account.", FormatUSD(-b.Micros))
	case b.EarningsMicros > 0:
		return fmt.Sprintf("You have %s of earnings not yet paid out: withdraw them or move them to your wallet and spend them before deleting your account.", FormatUSD(b.EarningsMicros))
	}
	return ""
}

func (s *service) RevokeSessions(ctx context.Context, uid string) error {
	if strings.TrimSpace(uid) == "" {
		return errors.New("revoke sessions: no uid")
	}
	if s.accounts == nil {
		return fmt.Errorf("%w: not configured", ErrAccountsUnavailable)
	}
	if err := s.accounts.RevokeRefreshTokens(ctx, uid); err != nil {
		return fmt.Errorf("%w: revoke refresh tokens: %v", ErrAccountsUnavailable, err)
	}
	return nil
}

func (s *service) DeleteAccount(ctx context.Context, c auth.Claims) error {
	if c.UID == "" {
		return errors.New("delete account: claims without uid")
	}
	if s.accounts == nil {
		return fmt.Errorf("%w: not configured", ErrAccountsUnavailable)
	}
	if s.wallet == nil {
		return fmt.Errorf("%w: not configured", ErrWalletUnavailable)
	}
	b, err := s.wallet.Balance(ctx, c.UID)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrWalletUnavailable, err)
	}
	if reason := notEmptyReason(b); reason != "" {
		return &AccountNotEmptyError{Message: reason}
	}
	// The profile and its UserDeleted event go in one transaction (the
	// catalog then deletes the user's agents); the event is enqueued only
	// when a profile was deleted, so a retry after a failed DeleteUser
	// below does not announce the deletion twice.
	if _, err := s.store.Delete(ctx, c.UID, func(u User) []events.Event {
		email := u.Email
		if email == "" {
			email = c.Email
		}
		return []events.Event{{
			Topic: Topic, Key: c.UID, Subject: c.UID, Type: TypeUserDeleted,
			Payload: &eventsv1.UserDeleted{Uid: c.UID, Email: email, OccurredAt: timestamppb.New(s.now())},
		}}
	}); err != nil {
		return err
	}
	if err := s.accounts.DeleteUser(ctx, c.UID); err != nil {
		return fmt.Errorf("%w: delete user: %v", ErrAccountsUnavailable, err)
	}
	return nil
}
