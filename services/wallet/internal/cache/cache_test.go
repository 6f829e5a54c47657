package cache

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"
)

// Tests use the Redis at 127.0.0.1:6379 (REDIS_URL in the local stack) with
// per-run user ids.
func newCache(t *testing.T, url string) (*Cache, *prometheus.Registry) {
	t.Helper()
	rdb, err := NewClient(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rdb.Close() })
	reg := prometheus.NewRegistry()
	return New(rdb, nil, reg), reg
}

func uid(name string) string { return fmt.Sprintf("%s-%d", name, time.Now().UnixNano()) }

// settle waits until u's invalidations are stored in Redis.
func settle(t *testing.T, c *Cache, u string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for c.bypassed(u) {
		if time.Now().After(deadline) {
			t.Fatal("the invalidation never reached Redis")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestCacheHitAndInvalidation(t *testing.T) {
	c, reg := newCache(t, "redis://127.0.0.1:6379/0")
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
	// Until the new generation is stored, this replica bypasses the values.
	if _, gen, hit := c.Lookup(ctx, u, "balance"); hit || gen != "" {
		t.Fatalf("lookup right after Invalidate: hit %v gen %q", hit, gen)
	}
	settle(t, c, u)
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

// failingPipelines makes the next n pipelines (Invalidate's MULTI/EXEC)
// fail as a Redis timeout would; single commands pass.
type failingPipelines struct{ n atomic.Int64 }

func (f *failingPipelines) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (f *failingPipelines) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (f *failingPipelines) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if f.n.Add(-1) >= 0 {
			return errors.New("i/o timeout (injected)")
		}
		return next(ctx, cmds)
	}
}

// An invalidation that does not reach Redis must not leave the values cached
// before the write readable: they are bypassed (even once the breaker has
// closed again) until a background retry gets the new generation through.
func TestFailedInvalidationIsRetried(t *testing.T) {
	c, _ := newCache(t, "redis://127.0.0.1:6379/0")
	hook := &failingPipelines{}
	c.rdb.AddHook(hook)
	ctx := context.Background()
	u := uid("flaky")
	c.Put(ctx, u, "0", "tx:latest", []byte("before the write"), time.Minute)

	// Fails now and in the retries for about 1.5 s (50+100+200+400+800 ms),
	// beyond the breaker's 1 s cool-down.
	hook.n.Store(6)
	c.Invalidate(ctx, u)
	if got := c.rdb.Get(ctx, genKey(u)).Val(); got != "" {
		t.Fatalf("generation moved although the invalidation failed: %q", got)
	}
	time.Sleep(CoolDown + 100*time.Millisecond)
	if c.b.open() {
		t.Fatal("breaker still open after its cool-down")
	}
	if v, gen, hit := c.Lookup(ctx, u, "tx:latest"); hit || gen != "" {
		t.Fatalf("lookup while the invalidation is pending: %q gen %q hit %v", v, gen, hit)
	}
	c.Put(ctx, u, "0", "tx:latest", []byte("stale again"), time.Minute)
	if got := c.rdb.Get(ctx, valueKey(u, "0", "tx:latest")).Val(); got != "before the write" {
		t.Fatalf("put while pending wrote %q", got)
	}

	deadline := time.Now().Add(10 * time.Second)
	for c.bypassed(u) {
		if time.Now().After(deadline) {
			t.Fatal("the invalidation was never retried through")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := c.rdb.Get(ctx, genKey(u)).Val(); got != "1" {
		t.Fatalf("generation after the retry: %q", got)
	}
	if v, gen, hit := c.Lookup(ctx, u, "tx:latest"); hit || gen != "1" {
		t.Fatalf("after the retry: %q gen %q hit %v", v, gen, hit)
	}
	if got := testutil.ToFloat64(c.m.ops.WithLabelValues("invalidate", "retried")); got != 1 {
		t.Fatalf("retried metric %v", got)
	}
}

// Invalidations of one user while one is in flight are coalesced: the next
// increment covers them, and the bypass lasts until it is stored.
func TestInvalidationsInFlightAreCoalesced(t *testing.T) {
	c, _ := newCache(t, "redis://127.0.0.1:6379/0")
	hook := &blockingPipelines{entered: make(chan struct{}, 4), release: make(chan struct{})}
	c.rdb.AddHook(hook)
	ctx := context.Background()
	u := uid("coalesced")
	c.Invalidate(ctx, u)
	<-hook.entered // the first increment is on its way (covering one write)
	c.Invalidate(ctx, u)
	c.Invalidate(ctx, u)
	close(hook.release)
	settle(t, c, u)
	// One increment for the first write, one for the two written meanwhile.
	if got := c.rdb.Get(ctx, genKey(u)).Val(); got != "2" {
		t.Fatalf("generation %q, want 2", got)
	}
	if err := c.Drain(ctx); err != nil {
		t.Fatal(err)
	}
}

// blockingPipelines holds every pipeline until release is closed.
type blockingPipelines struct {
	entered chan struct{}
	release chan struct{}
}

func (b *blockingPipelines) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (b *blockingPipelines) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (b *blockingPipelines) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		select {
		case b.entered <- struct{}{}:
		default:
		}
		<-b.release
		return next(ctx, cmds)
	}
}

func TestRedisDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, _ := newCache(t, "redis://"+addr+"/0")
	ctx := context.Background()
	start := time.Now()
	if _, gen, hit := c.Lookup(ctx, "u", "balance"); hit || gen != "" {
		t.Fatalf("lookup on a dead redis: hit %v gen %q", hit, gen)
	}
	c.Put(ctx, "u", "0", "balance", []byte("1"), time.Second)
	c.Invalidate(ctx, "u")
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
