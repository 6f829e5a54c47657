package auth

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

type countingVerifier struct {
	mu    sync.Mutex
	calls map[string]int
	exp   map[string]time.Time
}

func (c *countingVerifier) VerifyIDToken(_ context.Context, raw string) (Claims, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[raw]++
	exp, ok := c.exp[raw]
	if !ok {
		return Claims{}, ErrInvalidToken
	}
	return Claims{UID: "uid-" + raw, ExpiresAt: exp}, nil
}

func (c *countingVerifier) count(raw string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[raw]
}

func TestCacheHitsUntilExpiry(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return now }
	next := &countingVerifier{calls: map[string]int{}, exp: map[string]time.Time{"t1": now.Add(time.Minute)}}
	cv := NewCachingVerifier(next, WithClock(clock))
	ctx := context.Background()

	for i := 0; i < 3; i++ {
		c, err := cv.VerifyIDToken(ctx, "t1")
		if err != nil || c.UID != "uid-t1" {
			t.Fatalf("verify: %+v %v", c, err)
		}
	}
	if n := next.count("t1"); n != 1 {
		t.Fatalf("underlying verifier called %d times, want 1", n)
	}

	// After expiry the cached entry must not be used; the underlying verifier
	// decides again (and here reports the token as expired).
	now = now.Add(time.Minute)
	if _, err := cv.VerifyIDToken(ctx, "t1"); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("expired token accepted: %v", err)
	}
	if n := next.count("t1"); n != 2 {
		t.Fatalf("underlying verifier called %d times, want 2", n)
	}
	if cv.Len() != 0 {
		t.Fatalf("expired entry kept: len=%d", cv.Len())
	}
}

func TestCacheDoesNotCacheFailures(t *testing.T) {
	next := &countingVerifier{calls: map[string]int{}, exp: map[string]time.Time{}}
	cv := NewCachingVerifier(next)
	for i := 0; i < 2; i++ {
		if _, err := cv.VerifyIDToken(context.Background(), "bad"); !errors.Is(err, ErrInvalidToken) {
			t.Fatalf("err = %v", err)
		}
	}
	if n := next.count("bad"); n != 2 {
		t.Fatalf("calls = %d, want 2", n)
	}
}

func TestCacheBoundedAndEvictsExpired(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	next := &countingVerifier{calls: map[string]int{}, exp: map[string]time.Time{}}
	for i := 0; i < 10; i++ {
		next.exp[fmt.Sprint(i)] = now.Add(time.Duration(i+1) * time.Minute)
	}
	cv := NewCachingVerifier(next, WithMaxEntries(3), WithClock(func() time.Time { return now }))
	for i := 0; i < 10; i++ {
		if _, err := cv.VerifyIDToken(context.Background(), fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
		if cv.Len() > 3 {
			t.Fatalf("cache grew to %d", cv.Len())
		}
	}
	// The soonest-expiring entries were evicted; the latest one is cached.
	if _, err := cv.VerifyIDToken(context.Background(), "9"); err != nil {
		t.Fatal(err)
	}
	if n := next.count("9"); n != 1 {
		t.Fatalf("latest token re-verified (%d calls)", n)
	}
	// Expired entries are dropped when room is needed.
	now = now.Add(9*time.Minute + time.Second) // everything but "9" expired
	next.exp["new"] = now.Add(time.Hour)
	if _, err := cv.VerifyIDToken(context.Background(), "new"); err != nil {
		t.Fatal(err)
	}
	if cv.Len() != 2 {
		t.Fatalf("len = %d, want 2 (\"9\" and \"new\")", cv.Len())
	}
}

func TestCacheRejectsAlreadyExpiredClaims(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	next := &countingVerifier{calls: map[string]int{}, exp: map[string]time.Time{"old": now.Add(-time.Second)}}
	cv := NewCachingVerifier(next, WithClock(func() time.Time { return now }))
	if _, err := cv.VerifyIDToken(context.Background(), "old"); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("err = %v", err)
	}
	if cv.Len() != 0 {
		t.Fatal("expired claims cached")
	}
}
