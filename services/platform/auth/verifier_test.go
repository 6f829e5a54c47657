package auth

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestNewVerifierUsesOverrideAndCaches(t *testing.T) {
	var calls int
	override := VerifierFunc(func(context.Context, string) (Claims, error) {
		calls++
		return Claims{UID: "u1", ExpiresAt: time.Now().Add(time.Hour)}, nil
	})
	var logs bytes.Buffer
	v, err := NewVerifier(context.Background(), override, "", slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		c, err := v.VerifyIDToken(context.Background(), "tok")
		if err != nil || c.UID != "u1" {
			t.Fatalf("claims %+v, err %v", c, err)
		}
	}
	if calls != 1 {
		t.Fatalf("override called %d times, want 1 (cached)", calls)
	}
	if logs.Len() != 0 {
		t.Fatalf("unexpected log with an override: %s", logs.String())
	}
}

func TestNewVerifierFirebase(t *testing.T) {
	t.Setenv("FIREBASE_AUTH_EMULATOR_HOST", "")
	var logs bytes.Buffer
	v, err := NewVerifier(context.Background(), nil, "demo-test", slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := v.next.(*FirebaseVerifier); !ok {
		t.Fatalf("wrapped verifier is %T, want *FirebaseVerifier", v.next)
	}
	if !strings.Contains(logs.String(), "firebase token verification") || !strings.Contains(logs.String(), "project=demo-test") {
		t.Fatalf("log = %q", logs.String())
	}
}

func TestNewVerifierEmptyProject(t *testing.T) {
	if _, err := NewVerifier(context.Background(), nil, " ", nil); err == nil {
		t.Fatal("expected an error for an empty project id")
	}
}
