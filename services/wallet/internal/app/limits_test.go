package app

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/agentic-app/agentic/services/wallet/internal/cache"
)

func testCheckoutLimit(t *testing.T, url string, now time.Time, reg *prometheus.Registry) checkoutLimit {
	t.Helper()
	rdb, err := cache.NewClient(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rdb.Close() })
	cfg := Config{CheckoutRateLimit: 3, CheckoutRateWindow: time.Minute, RateLimitNow: func() time.Time { return now }}
	return newCheckoutLimit(rdb, cache.New(rdb, nil, reg), cfg, nil, reg)
}

// The checkout limit keeps its Redis keys (wallet:{uid}:rl:checkout:<window
// start ms>) and wallet_rate_limited_total{limit="checkout"}.
func TestCheckoutLimitKeysAndMetrics(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 10, 0, time.UTC)
	reg := prometheus.NewRegistry()
	l := testCheckoutLimit(t, redisURL(), now, reg)
	ctx := context.Background()
	u := uniq("lim")
	for i := range 3 {
		if !l.Allow(ctx, u) {
			t.Fatalf("call %d denied", i)
		}
	}
	if l.Allow(ctx, u) {
		t.Fatal("4th call allowed")
	}
	rdb, err := cache.NewClient(redisURL())
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	key := "wallet:{" + u + "}:rl:checkout:" + strconv.FormatInt(now.Truncate(time.Minute).UnixMilli(), 10)
	if n, err := rdb.Get(ctx, key).Int(); err != nil || n != 4 {
		t.Fatalf("%s = %d %v, want 4", key, n, err)
	}
	want := `
# HELP wallet_rate_limited_total Requests rejected by the per-user rate limit.
# TYPE wallet_rate_limited_total counter
wallet_rate_limited_total{limit="checkout"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "wallet_rate_limited_total"); err != nil {
		t.Error(err)
	}
}

// Redis unreachable: the checkout limit fails open, quickly, and counts
// wallet_redis_errors_total{op="ratelimit"}.
func TestCheckoutLimitFailsOpen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	reg := prometheus.NewRegistry()
	l := testCheckoutLimit(t, "redis://"+addr+"/0", time.Now(), reg)
	ctx := context.Background()
	start := time.Now()
	for range 5 {
		if !l.Allow(ctx, "u") {
			t.Fatal("limiter must fail open")
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("dead redis took %v", d)
	}
	want := `
# HELP wallet_redis_errors_total Redis errors by operation (the wallet falls back to PostgreSQL).
# TYPE wallet_redis_errors_total counter
wallet_redis_errors_total{op="ratelimit"} 5
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "wallet_redis_errors_total"); err != nil {
		t.Error(err)
	}
}
