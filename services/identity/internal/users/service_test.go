package users

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/auth"
)

func ptr(s string) *string { return &s }

func TestOnboardRules(t *testing.T) {
	ctx := context.Background()
	st := newFakeStore()
	svc := NewService(st)

	// 1. Right after e-mail sign-up: no name in the token, no body → username unknown.
	u, created, err := svc.Onboard(ctx, auth.Claims{UID: "u1", Email: "ada@example.com"}, nil)
	if err != nil || !created {
		t.Fatalf("first onboard: %v created=%v", err, created)
	}
	if u.Email != "ada@example.com" || u.DisplayName != "" || u.Username != "" || u.Name != "" {
		t.Fatalf("after first onboard: %+v", u)
	}
	if got := st.eventTypes(); !reflect.DeepEqual(got, []string{TypeUserOnboarded}) {
		t.Fatalf("events = %v", got)
	}
	ev := st.events[0]
	if ev.Topic != Topic || ev.Key != "u1" {
		t.Fatalf("event = %+v", ev)
	}
	p := ev.Payload.(*eventsv1.UserOnboarded)
	if p.GetUid() != "u1" || p.GetEmail() != "ada@example.com" || !p.GetOnboardedAt().AsTime().Equal(u.CreatedAt) {
		t.Fatalf("payload = %v", p)
	}

	// 2. The registration sets displayName = username: username is taken from it (trimmed).
	u, created, err = svc.Onboard(ctx, auth.Claims{UID: "u1", Email: "ada@example.com"}, ptr("  ada99  "))
	if err != nil || created {
		t.Fatalf("second onboard: %v created=%v", err, created)
	}
	if u.DisplayName != "ada99" || u.Username != "ada99" || u.Name != "ada99" {
		t.Fatalf("after displayName: %+v", u)
	}
	// The names changed: the event is sent again so that the catalog (which
	// shows the name to subscribers) learns it.
	if got := st.eventTypes(); !reflect.DeepEqual(got, []string{TypeUserOnboarded, TypeUserOnboarded}) {
		t.Fatalf("events after the username = %v", got)
	}
	if p := st.events[1].Payload.(*eventsv1.UserOnboarded); p.GetUsername() != "ada99" || p.GetDisplayName() != "ada99" {
		t.Fatalf("second payload = %v", p)
	}
	// The same names again: nothing new to tell.
	if _, _, err := svc.Onboard(ctx, auth.Claims{UID: "u1", Email: "ada@example.com"}, ptr("ada99")); err != nil {
		t.Fatal(err)
	}
	if n := len(st.eventTypes()); n != 2 {
		t.Fatalf("events after an unchanged onboarding = %d, want 2", n)
	}

	// 3. Later the token carries a different name: displayName/name follow it, username is kept.
	u, _, _ = svc.Onboard(ctx, auth.Claims{UID: "u1", Email: "ada@new.example.com", Name: "Ada Lovelace", Picture: "https://p/ada.png"}, nil)
	if u.DisplayName != "Ada Lovelace" || u.Name != "Ada Lovelace" || u.Username != "ada99" || u.Email != "ada@new.example.com" || u.PhotoURL != "https://p/ada.png" {
		t.Fatalf("after token name: %+v", u)
	}

	// 4. Body beats token; a blank body value and a token without name keep what is there.
	u, _, _ = svc.Onboard(ctx, auth.Claims{UID: "u1", Name: "Token Name"}, ptr("Body Name"))
	if u.DisplayName != "Body Name" || u.Email != "ada@new.example.com" || u.PhotoURL != "https://p/ada.png" {
		t.Fatalf("body over token: %+v", u)
	}
	u, _, _ = svc.Onboard(ctx, auth.Claims{UID: "u1"}, ptr("   "))
	if u.DisplayName != "Body Name" || u.Username != "ada99" {
		t.Fatalf("blank body: %+v", u)
	}

	// One event per change of the address or the names (created, username,
	// token name and address, body name); the calls that changed neither sent none.
	if got := st.eventTypes(); len(got) != 4 {
		t.Fatalf("events = %v", got)
	}
}

func TestOnboardWithTokenNameSetsUsernameAtOnce(t *testing.T) {
	st := newFakeStore()
	u, created, err := NewService(st).Onboard(context.Background(), auth.Claims{UID: "g1", Email: "g@example.com", Name: "Grace Hopper"}, nil)
	if err != nil || !created || u.Username != "Grace Hopper" || u.DisplayName != "Grace Hopper" {
		t.Fatalf("%+v %v %v", u, created, err)
	}
	if p := st.events[0].Payload.(*eventsv1.UserOnboarded); p.GetUsername() != "Grace Hopper" || p.GetDisplayName() != "Grace Hopper" {
		t.Fatalf("payload %v", p)
	}
}

func TestOnboardDisplayNameLength(t *testing.T) {
	st := newFakeStore()
	svc := NewService(st)
	ok := strings.Repeat("é", 100) // 100 characters, 200 bytes
	if u, _, err := svc.Onboard(context.Background(), auth.Claims{UID: "u"}, &ok); err != nil || u.DisplayName != ok {
		t.Fatalf("100 chars rejected: %v", err)
	}
	long := strings.Repeat("a", 101)
	_, _, err := svc.Onboard(context.Background(), auth.Claims{UID: "u2"}, &long)
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Message != "displayName must be at most 100 characters" {
		t.Fatalf("err = %v", err)
	}
	if _, err := svc.GetUser(context.Background(), "u2"); !errors.Is(err, ErrNotFound) {
		t.Fatal("invalid request created a profile")
	}
	// An over-long token name is cut, not rejected.
	u, _, err := svc.Onboard(context.Background(), auth.Claims{UID: "u3", Name: long}, nil)
	if err != nil || len(u.DisplayName) != 100 {
		t.Fatalf("%v %d", err, len(u.DisplayName))
	}
}

func TestRegisterPublicAgentInterest(t *testing.T) {
	ctx := context.Background()
	st := newFakeStore()
	svc := NewService(st)

	// Unknown user: the profile is created (UserOnboarded) and the flag flips (interest event).
	u, err := svc.RegisterPublicAgentInterest(ctx, auth.Claims{UID: "u1", Email: "a@example.com", Name: "Ada"})
	if err != nil || !u.InterestedInPublicAgents || u.Email != "a@example.com" || u.Username != "Ada" {
		t.Fatalf("%+v %v", u, err)
	}
	if got := st.eventTypes(); !reflect.DeepEqual(got, []string{TypeUserOnboarded, TypePublicAgentInterestRegistered}) {
		t.Fatalf("events = %v", got)
	}
	if p := st.events[1].Payload.(*eventsv1.PublicAgentInterestRegistered); p.GetUid() != "u1" || p.GetRegisteredAt() == nil {
		t.Fatalf("payload = %v", p)
	}
	// Idempotent: no new event.
	u, err = svc.RegisterPublicAgentInterest(ctx, auth.Claims{UID: "u1"})
	if err != nil || !u.InterestedInPublicAgents || len(st.eventTypes()) != 2 {
		t.Fatalf("%+v %v %v", u, err, st.eventTypes())
	}
	// Existing user without interest: only the interest event.
	if _, _, err := svc.Onboard(ctx, auth.Claims{UID: "u2"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.RegisterPublicAgentInterest(ctx, auth.Claims{UID: "u2"}); err != nil {
		t.Fatal(err)
	}
	got := st.eventTypes()
	if len(got) != 4 || got[3] != TypePublicAgentInterestRegistered {
		t.Fatalf("events = %v", got)
	}
	// Onboarding again keeps the flag.
	u, _, _ = svc.Onboard(ctx, auth.Claims{UID: "u2"}, nil)
	if !u.InterestedInPublicAgents {
		t.Fatal("onboarding cleared the interest flag")
	}
}

func TestQueries(t *testing.T) {
	ctx := context.Background()
	st := newFakeStore()
	svc := NewService(st)
	for _, c := range []auth.Claims{{UID: "a", Email: "A@Example.com"}, {UID: "b", Email: "b@example.com"}} {
		if _, _, err := svc.Onboard(ctx, c, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.GetUser(ctx, "zzz"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	var ve *ValidationError
	if _, err := svc.GetUser(ctx, " "); !errors.As(err, &ve) {
		t.Fatalf("blank uid: %v", err)
	}
	us, err := svc.GetUsers(ctx, []string{"a", "a", "", "zzz", "b"})
	if err != nil || len(us) != 2 {
		t.Fatalf("GetUsers = %v %v", us, err)
	}
	us, err = svc.FindUsersByEmail(ctx, []string{"a@example.COM", "nobody@example.com"})
	if err != nil || len(us) != 1 || us[0].UID != "a" {
		t.Fatalf("FindUsersByEmail = %v %v", us, err)
	}
	if us, err := svc.GetUsers(ctx, nil); err != nil || us == nil || len(us) != 0 {
		t.Fatalf("empty GetUsers = %v %v", us, err)
	}
	if _, err := svc.GetUsers(ctx, make([]string, MaxBatch+1)); !errors.As(err, &ve) {
		t.Fatalf("too many uids: %v", err)
	}
}
