package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func limitID(t *testing.T) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return t.Name() + "-" + hex.EncodeToString(b)
}

func testLimits(t *testing.T, url string, cfg Config, reg prometheus.Registerer) serviceLimits {
	t.Helper()
	rdb, err := newRedis(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rdb.Close() })
	return newServiceLimits(rdb, cfg, nil, reg)
}

// The agent API's limits: a key over its own limit is refused without
// using up its owner's window; the owner's window covers all their keys.
// Against the real Redis at 127.0.0.1:6379.
func TestAPILimitsPerKeyAndOwner(t *testing.T) {
	now := time.Unix(1_800_000_010, 0)
	l := testLimits(t, "redis://127.0.0.1:6379/0", Config{
		APIKeyRateLimit: 2, APIOwnerRateLimit: 3, APIRateWindow: time.Minute,
		RateLimitNow: func() time.Time { return now },
	}, nil).api
	ctx := context.Background()
	owner, k1, k2 := limitID(t), limitID(t), limitID(t)
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
	if ok, _ := l.AllowAPI(ctx, limitID(t), limitID(t)); !ok {
		t.Fatal("another owner refused")
	}
}

// The chat limit keeps its Redis keys (conversations:{uid}:rl:chat:<window
// start ms>) and its metrics (conversations_rate_limited_total{limit},
// conversations_rate_limit_errors_total{limit}, every limit exported from
// the start); without Redis it fails open.
func TestChatLimitKeysAndMetrics(t *testing.T) {
	now := time.Unix(1_800_000_030, 0)
	reg := prometheus.NewRegistry()
	cfg := Config{
		ChatRateLimit: 1, ChatRateWindow: time.Minute, APIKeyRateLimit: 1, APIOwnerRateLimit: 1, APIRateWindow: time.Minute,
		RateLimitNow: func() time.Time { return now },
	}
	l := testLimits(t, "redis://127.0.0.1:6379/0", cfg, reg)
	ctx := context.Background()
	uid := limitID(t)
	if ok, _ := l.chat.Allow(ctx, uid); !ok {
		t.Fatal("first message refused")
	}
	if ok, retry := l.chat.Allow(ctx, uid); ok || retry != 30*time.Second {
		t.Fatalf("second message: ok=%v retry=%s, want refused for 30s", ok, retry)
	}
	rdb, err := newRedis("redis://127.0.0.1:6379/0")
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	key := "conversations:{" + uid + "}:rl:chat:" + strconv.FormatInt(now.Truncate(time.Minute).UnixMilli(), 10)
	if n, err := rdb.Get(ctx, key).Int(); err != nil || n != 2 {
		t.Fatalf("%s = %d %v, want 2", key, n, err)
	}

	down := testLimits(t, "redis://127.0.0.1:1/0", cfg, reg)
	for range 3 {
		if ok, _ := down.chat.Allow(ctx, uid); !ok {
			t.Fatal("refused while Redis is unreachable")
		}
	}
	want := `
# HELP conversations_rate_limit_errors_total Rate-limit checks that failed open (Redis unavailable).
# TYPE conversations_rate_limit_errors_total counter
conversations_rate_limit_errors_total{limit="api-key"} 0
conversations_rate_limit_errors_total{limit="api-owner"} 0
conversations_rate_limit_errors_total{limit="chat"} 3
# HELP conversations_rate_limited_total Messages refused by the per-user rate limit.
# TYPE conversations_rate_limited_total counter
conversations_rate_limited_total{limit="api-key"} 0
conversations_rate_limited_total{limit="api-owner"} 0
conversations_rate_limited_total{limit="chat"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "conversations_rate_limited_total", "conversations_rate_limit_errors_total"); err != nil {
		t.Error(err)
	}
}
