// Package users is the identity service's domain: user profiles, onboarding
// and public-agent interest. Service holds the rules; Store persists profiles
// and enqueues events in the same transaction.
package users

import (
	"context"
	"embed"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// Migrations holds the service's SQL migrations (dir "migrations").
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Identity's topic and event types (declared in topics) under the names the
// package and its tests use.
const (
	Topic                             = topics.Identity
	Source                            = "/agentic/identity"
	TypeUserOnboarded                 = topics.IdentityUserOnboarded
	TypePublicAgentInterestRegistered = topics.IdentityUserPublicAgentInterestRegistered
)

// MaxDisplayNameLength is the longest accepted displayName, in characters.
const MaxDisplayNameLength = 100

// MaxBatch is the most uids/emails accepted by one GetUsers/FindUsersByEmail call.
const MaxBatch = 1000

// User is a profile. Empty strings mean "not set".
type User struct {
	UID                      string
	Email                    string
	DisplayName              string
	Username                 string
	Name                     string
	PhotoURL                 string
	InterestedInPublicAgents bool
	CreatedAt                time.Time
	UpdatedAt                time.Time
}

// Errors.
var (
	ErrNotFound = errors.New("user not found")
)

// ValidationError is a caller mistake (HTTP 400 / gRPC InvalidArgument).
type ValidationError struct{ Message string }

func (e *ValidationError) Error() string { return e.Message }

// MutateFunc computes the new state of a profile. cur is the stored profile
// (only UID and CreatedAt are set when created is true). It returns the
// profile to save and the events to enqueue with it.
type MutateFunc func(cur User, created bool) (User, []events.Event, error)

// Store persists profiles.
type Store interface {
	// Mutate loads the profile of uid for update inside one transaction,
	// creating an empty one first if none exists (created reports that, and is
	// true for exactly one caller even under concurrency), applies fn, saves
	// the result and enqueues fn's events in the same transaction.
	Mutate(ctx context.Context, uid string, fn MutateFunc) (User, error)
	Get(ctx context.Context, uid string) (User, error)
	GetMany(ctx context.Context, uids []string) ([]User, error)
	FindByEmails(ctx context.Context, emails []string) ([]User, error)
	// Delete removes the profile of uid and, in the same transaction,
	// enqueues the events fn returns for the deleted profile. deleted is
	// false (and fn is not called) when there was no profile.
	Delete(ctx context.Context, uid string, fn func(User) []events.Event) (deleted bool, err error)
}

// Service is the identity service API.
type Service interface {
	// Onboard creates or refreshes the caller's profile from the token claims
	// and the optional displayName. created is true when the profile is new.
	Onboard(ctx context.Context, claims auth.Claims, displayName *string) (u User, created bool, err error)
	// RegisterPublicAgentInterest sets interestedInPublicAgents (idempotent),
	// creating the profile if needed.
	RegisterPublicAgentInterest(ctx context.Context, claims auth.Claims) (User, error)
	GetUser(ctx context.Context, uid string) (User, error)
	GetUsers(ctx context.Context, uids []string) ([]User, error)
	FindUsersByEmail(ctx context.Context, emails []string) ([]User, error)
	// RevokeSessions revokes the user's refresh tokens (sign out everywhere).
	RevokeSessions(ctx context.Context, uid string) error
	// DeleteAccount deletes the caller's account: refused with an
	// AccountNotEmptyError while the wallet holds money; otherwise the
	// profile is deleted with a UserDeleted event, then the identity
	// provider's user.
	DeleteAccount(ctx context.Context, claims auth.Claims) error
}

type service struct {
	store    Store
	accounts Accounts
	wallet   Wallet
	now      func() time.Time
}

// Option configures the Service.
type Option func(*service)

// WithAccounts sets the identity provider's admin API (account routes).
func WithAccounts(a Accounts) Option { return func(s *service) { s.accounts = a } }

// WithWallet sets the wallet reader (account deletion).
func WithWallet(w Wallet) Option { return func(s *service) { s.wallet = w } }

// NewService returns the Service backed by store.
func NewService(store Store, opts ...Option) Service {
	s := &service{store: store, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

// NormalizeDisplayName trims v and checks its length. A nil or blank value
// yields "" (not given).
func NormalizeDisplayName(v *string) (string, error) {
	if v == nil {
		return "", nil
	}
	s := strings.TrimSpace(*v)
	if utf8.RuneCountInString(s) > MaxDisplayNameLength {
		return "", &ValidationError{Message: "displayName must be at most 100 characters"}
	}
	return s, nil
}

// truncate cuts s to at most n characters.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n])
}

// applyClaims refreshes a profile from the token and the requested displayName:
//   - email and photoURL come from the token when it has them;
//   - displayName = requested value, else the token's name, else unchanged;
//   - name mirrors displayName;
//   - username is set once, from the first non-empty displayName, and kept.
func applyClaims(u User, c auth.Claims, requested string) User {
	if c.Email != "" {
		u.Email = c.Email
	}
	if c.Picture != "" {
		u.PhotoURL = c.Picture
	}
	switch tokenName := truncate(strings.TrimSpace(c.Name), MaxDisplayNameLength); {
	case requested != "":
		u.DisplayName = requested
	case tokenName != "":
		u.DisplayName = tokenName
	}
	if u.DisplayName != "" {
		u.Name = u.DisplayName
	}
	if u.Username == "" && u.DisplayName != "" {
		u.Username = u.DisplayName
	}
	return u
}

func onboardedEvent(u User) events.Event {
	return events.Event{
		Topic: Topic, Key: u.UID, Subject: u.UID, Type: TypeUserOnboarded,
		Payload: &eventsv1.UserOnboarded{
			Uid: u.UID, Email: u.Email, DisplayName: u.DisplayName, Username: u.Username,
			OnboardedAt: timestamppb.New(u.CreatedAt),
		},
	}
}

// profileChanged reports whether what other services learn from
// UserOnboarded (the address and the names) differs between prev and next.
func profileChanged(prev, next User) bool {
	return prev.Email != next.Email || prev.DisplayName != next.DisplayName || prev.Username != next.Username
}

func (s *service) Onboard(ctx context.Context, c auth.Claims, displayName *string) (User, bool, error) {
	if c.UID == "" {
		return User{}, false, errors.New("onboard: claims without uid")
	}
	requested, err := NormalizeDisplayName(displayName)
	if err != nil {
		return User{}, false, err
	}
	var created bool
	u, err := s.store.Mutate(ctx, c.UID, func(cur User, isNew bool) (User, []events.Event, error) {
		created = isNew
		next := applyClaims(cur, c, requested)
		next.UpdatedAt = s.now()
		if isNew || profileChanged(cur, next) {
			// Also when the names or the address change: the sign-up's
			// first call usually comes before the username is set, and the
			// catalog learns the names shown to others ("Shared by …",
			// reviewers, creators) only from this event (it upserts).
			return next, []events.Event{onboardedEvent(next)}, nil
		}
		return next, nil, nil
	})
	if err != nil {
		return User{}, false, err
	}
	return u, created, nil
}

func (s *service) RegisterPublicAgentInterest(ctx context.Context, c auth.Claims) (User, error) {
	if c.UID == "" {
		return User{}, errors.New("register interest: claims without uid")
	}
	return s.store.Mutate(ctx, c.UID, func(cur User, isNew bool) (User, []events.Event, error) {
		next := cur
		var evs []events.Event
		if isNew {
			next = applyClaims(cur, c, "")
			evs = append(evs, onboardedEvent(next))
		}
		if !next.InterestedInPublicAgents {
			next.InterestedInPublicAgents = true
			next.UpdatedAt = s.now()
			evs = append(evs, events.Event{
				Topic: Topic, Key: cur.UID, Subject: cur.UID, Type: TypePublicAgentInterestRegistered,
				Payload: &eventsv1.PublicAgentInterestRegistered{Uid: cur.UID, RegisteredAt: timestamppb.New(next.UpdatedAt)},
			})
		}
		return next, evs, nil
	})
}

func (s *service) GetUser(ctx context.Context, uid string) (User, error) {
	if strings.TrimSpace(uid) == "" {
		return User{}, &ValidationError{Message: "uid is required"}
	}
	return s.store.Get(ctx, uid)
}

func (s *service) GetUsers(ctx context.Context, uids []string) ([]User, error) {
	if len(uids) > MaxBatch {
		return nil, &ValidationError{Message: "at most 1000 uids per call"}
	}
	uids = dedupe(uids, false)
	if len(uids) == 0 {
		return []User{}, nil
	}
	return s.store.GetMany(ctx, uids)
}

func (s *service) FindUsersByEmail(ctx context.Context, emails []string) ([]User, error) {
	if len(emails) > MaxBatch {
		return nil, &ValidationError{Message: "at most 1000 emails per call"}
	}
	emails = dedupe(emails, true)
	if len(emails) == 0 {
		return []User{}, nil
	}
	return s.store.FindByEmails(ctx, emails)
}

// dedupe drops blanks and duplicates (case-insensitively when fold is set,
// returning lower-cased values).
func dedupe(in []string, fold bool) []string {
	seen := make(map[string]bool, len(in))
	out := make([]string, 0, len(in))
	for _, v := range in {
		v = strings.TrimSpace(v)
		if fold {
			v = strings.ToLower(v)
		}
		if v == "" || seen[v] {
			continue
		}
		seen[v] = true
		out = append(out, v)
	}
	return out
}
