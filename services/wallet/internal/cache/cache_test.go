package cache

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// Tests use the Redis at 127.0.0.1:6379 (REDIS_URL in the local stack) with
// per-run user ids.
func newCache(t *testing.T, url string) (*Cache, *Limiter, *prometheus.Registry) {
	t.Helper()
	rdb, err := NewClient(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rdb.Close() })
	reg := prometheus.NewRegistry()
	return New(rdb, nil, reg), NewLimiter(rdb, "checkout", 3, time.Minute, nil, reg), reg
}

func uid(name string) string { return fmt.Sprintf("%s-%d", name, time.Now().UnixNano()) }

func TestCacheHitAndInvalidation(t *testing.T) {
	c, _, reg := newCache(t, "redis://127.0.0.1:6379/0")
	ctx := context.Background()
	u := uid("ann")
	if _, gen, hit := c.Lookup(ctx, u, "balance"); hit || gen != "0" {
		t.Fatalf("first lookup: hit %v gen %q", hit, gen)
	}
	c.Put(ctx, u, "0", "balance", []byte("42"), 30*time.Second)
	v, gen, hit := c.Lookup(ctx, u, "balance")
	if !hit || string(v) != "42" || gen != "0" {
		t.Fatalf("hit: %q %q %v", v, gen, hit)
	}
	ttl := c.rdb.TTL(ctx, valueKey(u, "0", "balance")).Val()
	if ttl <= 25*time.Second || ttl > 30*time.Second {
		t.Fatalf("ttl %v", ttl)
	}
	// A reader that looked up before a write stores under the old generation:
	// after Invalidate nobody sees it.
	_, staleGen, _ := c.Lookup(ctx, u, "tx:20:0:latest")
	c.Invalidate(ctx, u)
	c.Put(ctx, u, staleGen, "tx:20:0:latest", []byte("stale"), time.Minute)
	if _, gen, hit := c.Lookup(ctx, u, "balance"); hit || gen != "1" {
		t.Fatalf("after invalidate: hit %v gen %q", hit, gen)
	}
	if _, _, hit := c.Lookup(ctx, u, "tx:20:0:latest"); hit {
		t.Fatal("stale page served after invalidation")
	}
	if got := testutil.ToFloat64(c.m.ops.WithLabelValues("lookup", "hit")); got != 1 {
		t.Fatalf("hit metric %v", got)
	}
	_ = reg
}

func TestRedisDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, l, _ := newCache(t, "redis://"+addr+"/0")
	ctx := context.Background()
	start := time.Now()
	if _, gen, hit := c.Lookup(ctx, "u", "balance"); hit || gen != "" {
		t.Fatalf("lookup on a dead redis: hit %v gen %q", hit, gen)
	}
	c.Put(ctx, "u", "0", "balance", []byte("1"), time.Second)
	c.Invalidate(ctx, "u")
	if !l.Allow(ctx, "u") {
		t.Fatal("limiter must fail open")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("dead redis took %v", d)
	}
	if got := testutil.ToFloat64(c.m.errors.WithLabelValues("lookup")); got != 1 {
		t.Fatalf("errors %v", got)
	}
	// Breaker open: the next lookup does not even try.
	c.Lookup(ctx, "u", "balance")
	if got := testutil.ToFloat64(c.m.ops.WithLabelValues("lookup", "skipped")); got != 1 {
		t.Fatalf("skipped %v", got)
	}
}

func TestLimiterFixedWindow(t *testing.T) {
	_, l, _ := newCache(t, "redis://127.0.0.1:6379/0")
	ctx := context.Background()
	now := time.Date(2030, 1, 1, 0, 0, 10, 0, time.UTC)
	l.now = func() time.Time { return now }
	u := uid("lim")
	for i := 0; i < 3; i++ {
		if !l.Allow(ctx, u) {
			t.Fatalf("call %d denied", i)
		}
	}
	if l.Allow(ctx, u) {
		t.Fatal("4th call allowed")
	}
	if !l.Allow(ctx, uid("other")) {
		t.Fatal("other user denied")
	}
	now = now.Add(time.Minute)
	if !l.Allow(ctx, u) {
		t.Fatal("next window denied")
	}
}
