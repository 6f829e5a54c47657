package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"
)

func uid(t *testing.T) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return t.Name() + "-" + hex.EncodeToString(b)
}

// Against the real Redis at 127.0.0.1:6379.
func TestFixedWindowPerUser(t *testing.T) {
	rdb, err := NewClient("redis://127.0.0.1:6379/0")
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	// A fixed clock in the middle of a window.
	now := time.Unix(1_800_000_030, 0)
	l := New(rdb, Config{Name: "test", Limit: 2, Window: time.Minute, Now: func() time.Time { return now }})
	ctx := context.Background()
	a, b := uid(t), uid(t)
	for i := range 2 {
		if ok, _ := l.Allow(ctx, a); !ok {
			t.Fatalf("call %d refused", i)
		}
	}
	ok, retry := l.Allow(ctx, a)
	if ok || retry != 30*time.Second {
		t.Fatalf("third call: ok=%v retry=%s, want refused for 30s", ok, retry)
	}
	if ok, _ := l.Allow(ctx, b); !ok {
		t.Fatal("another user refused")
	}
	// The next window starts afresh.
	now = now.Add(30 * time.Second)
	if ok, _ := l.Allow(ctx, a); !ok {
		t.Fatal("refused in the next window")
	}
	// Near the end of a window, Retry-After is at least a second.
	now = now.Add(59*time.Second + 900*time.Millisecond)
	l.Allow(ctx, a)
	l.Allow(ctx, a)
	if ok, retry := l.Allow(ctx, a); ok || retry != time.Second {
		t.Fatalf("end of window: ok=%v retry=%s", ok, retry)
	}
}

func TestFailsOpenWithoutRedis(t *testing.T) {
	rdb, err := NewClient("redis://127.0.0.1:1/0")
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	l := New(rdb, Config{Limit: 1})
	for range 3 {
		if ok, _ := l.Allow(context.Background(), "u"); !ok {
			t.Fatal("refused while Redis is unreachable")
		}
	}
	if ok, _ := New(rdb, Config{Limit: 0}).Allow(context.Background(), "u"); !ok {
		t.Fatal("a disabled limiter refused")
	}
}

// The agent API's limits: a key over its own limit is refused without
// using up its owner's window; the owner's window covers all their keys.
func TestAPILimitsPerKeyAndOwner(t *testing.T) {
	rdb, err := NewClient("redis://127.0.0.1:6379/0")
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	now := time.Unix(1_800_000_010, 0)
	clock := func() time.Time { return now }
	l := APILimits{
		Key:   New(rdb, Config{Name: "test-key", Limit: 2, Window: time.Minute, Now: clock}),
		Owner: New(rdb, Config{Name: "test-owner", Limit: 3, Window: time.Minute, Now: clock}),
	}
	ctx := context.Background()
	owner, k1, k2 := uid(t), uid(t), uid(t)
	for i := range 2 {
		if ok, _ := l.AllowAPI(ctx, k1, owner); !ok {
			t.Fatalf("k1 call %d refused", i)
		}
	}
	if ok, retry := l.AllowAPI(ctx, k1, owner); ok || retry != 50*time.Second {
		t.Fatalf("k1 over its limit: ok=%v retry=%s", ok, retry)
	}
	// k1's refused call did not count for the owner: one owner slot is left.
	if ok, _ := l.AllowAPI(ctx, k2, owner); !ok {
		t.Fatal("k2 refused although the owner has room")
	}
	if ok, retry := l.AllowAPI(ctx, k2, owner); ok || retry != 50*time.Second {
		t.Fatalf("owner over the limit: ok=%v retry=%s", ok, retry)
	}
	if ok, _ := l.AllowAPI(ctx, uid(t), uid(t)); !ok {
		t.Fatal("another owner refused")
	}
}
