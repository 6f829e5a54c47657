package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/agentic-app/agentic/services/platform/auth/authtest"
)

// Tests run against the real Redis of the local stack (REDIS_URL, default
// redis://127.0.0.1:6379/0); every test uses its own key prefix.

func redisURL() string {
	if u := os.Getenv("REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

func liveRedis(t *testing.T) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(redisURL())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { _ = rdb.Close() })
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("redis at %s: %v", redisURL(), err)
	}
	return rdb
}

// deadRedis points at a port nothing listens on (a listener opened and closed).
func deadRedis(t *testing.T) *redis.Client {
	t.Helper()
	ln := httptest.NewServer(http.NotFoundHandler())
	addr := ln.Listener.Addr().String()
	ln.Close()
	rdb := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: 100 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

func uniqueService(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "test-" + hex.EncodeToString(b)
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

const (
	patMoney = "POST /api/pay/{id}"
	patRead  = "GET /api/things"
)

func newMux() *http.ServeMux {
	mux := http.NewServeMux()
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.Handle(patMoney, ok)
	mux.Handle(patRead, ok)
	mux.Handle("GET /api/unlimited", ok)
	return mux
}

func do(t *testing.T, h http.Handler, method, path, uid string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	if uid != "" {
		req.Header.Set("Authorization", "Bearer "+uid)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func errorCode(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	var body struct{ Error, Message string }
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("body %q: %v", rec.Body.String(), err)
	}
	if body.Message == "" {
		t.Errorf("error body without a message: %s", rec.Body.String())
	}
	return body.Error
}

// The limit is per user: A's fourth request in the window is refused with
// 429 + Retry-After in the platform error shape; B is unaffected.
func TestLimitIsPerUser(t *testing.T) {
	reg := prometheus.NewRegistry()
	clk := &clock{t: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	svc := uniqueService(t)
	l := New(liveRedis(t), Options{Service: svc, Registerer: reg, Now: clk.now})
	h := l.Guard(newMux(), Rules{patMoney: {Class: "pay", Limit: 3, Window: time.Minute, Mode: FailClosed}}, TokenUser(authtest.TokenIsUID))

	for i := range 3 {
		if rec := do(t, h, "POST", "/api/pay/1", "alice"); rec.Code != http.StatusOK {
			t.Fatalf("alice request %d: %d %s", i+1, rec.Code, rec.Body)
		}
	}
	rec := do(t, h, "POST", "/api/pay/2", "alice")
	if rec.Code != http.StatusTooManyRequests {
		t.Fatalf("alice over the limit: %d, want 429", rec.Code)
	}
	if code := errorCode(t, rec); code != "rate_limited" {
		t.Errorf("error code %q, want rate_limited", code)
	}
	// The message states the limit and when to retry (the window's rest).
	var body struct{ Message string }
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	if want := "Too many requests: at most 3 per minute. Try again in " + rec.Header().Get("Retry-After"); !strings.HasPrefix(body.Message, want) {
		t.Errorf("message %q, want it to start with %q", body.Message, want)
	}
	// The refused request is named by its route (spans, metrics, logs).
	refused := httptest.NewRequest("POST", "/api/pay/3", nil)
	refused.Header.Set("Authorization", "Bearer alice")
	h.ServeHTTP(httptest.NewRecorder(), refused)
	if refused.Pattern != patMoney {
		t.Errorf("refused request's pattern %q, want %q", refused.Pattern, patMoney)
	}
	ra, err := strconv.Atoi(rec.Header().Get("Retry-After"))
	if err != nil || ra < 1 || ra > 60 {
		t.Errorf("Retry-After %q, want 1..60 seconds", rec.Header().Get("Retry-After"))
	}
	for i := range 3 {
		if rec := do(t, h, "POST", "/api/pay/1", "bob"); rec.Code != http.StatusOK {
			t.Fatalf("bob request %d affected by alice: %d", i+1, rec.Code)
		}
	}
	if got := testutil.ToFloat64(l.rejected.WithLabelValues(svc, "pay")); got != 2 { // the 4th and 5th of alice
		t.Errorf("agentic_ratelimit_rejected_total = %v, want 2", got)
	}
	// Unlimited patterns and anonymous requests pass through.
	for range 5 {
		if rec := do(t, h, "GET", "/api/unlimited", "alice"); rec.Code != http.StatusOK {
			t.Fatalf("unlimited route: %d", rec.Code)
		}
	}
	if rec := do(t, h, "POST", "/api/pay/1", ""); rec.Code != http.StatusOK {
		t.Fatalf("request without a user: %d (the route's own auth answers it)", rec.Code)
	}

	// Two windows later everything from before has slid out.
	clk.add(2 * time.Minute)
	if rec := do(t, h, "POST", "/api/pay/1", "alice"); rec.Code != http.StatusOK {
		t.Fatalf("alice after the window: %d", rec.Code)
	}
}

// The window slides: the previous window's requests count in proportion to
// how much of it is still inside the sliding window, and Retry-After says
// when the next request would pass.
func TestSlidingWindow(t *testing.T) {
	clk := &clock{t: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	l := New(liveRedis(t), Options{Service: uniqueService(t), Now: clk.now})
	rule := Rule{Class: "s", Limit: 10, Window: time.Minute}
	ctx := context.Background()
	for range 10 {
		if d, err := l.Allow(ctx, rule, "u"); err != nil || !d.Allowed {
			t.Fatalf("allow: %+v %v", d, err)
		}
	}
	// 30 s into the next window the previous 10 weigh 5: 5 more pass.
	clk.add(90 * time.Second)
	for i := range 5 {
		if d, err := l.Allow(ctx, rule, "u"); err != nil || !d.Allowed {
			t.Fatalf("allow %d half a window later: %+v %v", i, d, err)
		}
	}
	d, err := l.Allow(ctx, rule, "u")
	if err != nil || d.Allowed {
		t.Fatalf("11th in the sliding window allowed: %+v %v", d, err)
	}
	// 10*(60-e)/60 + 5 + 1 <= 10  =>  e >= 36 s: 6 s from now.
	if d.RetryAfter != 6*time.Second {
		t.Errorf("RetryAfter %v, want 6s", d.RetryAfter)
	}
	clk.add(d.RetryAfter)
	if d, err := l.Allow(ctx, rule, "u"); err != nil || !d.Allowed {
		t.Fatalf("after Retry-After: %+v %v", d, err)
	}
}

// Redis unreachable: a money route (FailClosed) answers 503 with
// Retry-After and counts the error; a read (FailOpen) is served and counted.
func TestRedisDown(t *testing.T) {
	reg := prometheus.NewRegistry()
	svc := uniqueService(t)
	l := New(deadRedis(t), Options{Service: svc, Registerer: reg})
	h := l.Guard(newMux(), Rules{
		patMoney: {Class: "pay", Limit: 3, Window: time.Minute, Mode: FailClosed},
		patRead:  {Class: "read", Limit: 3, Window: time.Minute, Mode: FailOpen},
	}, TokenUser(authtest.TokenIsUID))

	rec := do(t, h, "POST", "/api/pay/1", "alice")
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("money route with Redis down: %d, want 503 (fail closed)", rec.Code)
	}
	if code := errorCode(t, rec); code != "unavailable" {
		t.Errorf("error code %q, want unavailable", code)
	}
	if rec.Header().Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	for i := range 5 {
		if rec := do(t, h, "GET", "/api/things", "alice"); rec.Code != http.StatusOK {
			t.Fatalf("read %d with Redis down: %d, want 200 (fail open)", i, rec.Code)
		}
	}
	if got := testutil.ToFloat64(l.errs.WithLabelValues(svc, "pay", "fail_closed")); got != 1 {
		t.Errorf("redis errors fail_closed = %v, want 1", got)
	}
	if got := testutil.ToFloat64(l.errs.WithLabelValues(svc, "read", "fail_open")); got != 5 {
		t.Errorf("redis errors fail_open = %v, want 5", got)
	}
	// The metrics are registered under their documented names.
	if n, err := testutil.GatherAndCount(reg, "agentic_ratelimit_redis_errors_total"); err != nil || n != 2 {
		t.Errorf("gathered agentic_ratelimit_redis_errors_total series: %d %v", n, err)
	}
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]struct {
		limit  int
		window time.Duration
	}{"20/1m": {20, time.Minute}, " 600 / 60s ": {600, time.Minute}, "0/1m": {0, time.Minute}} {
		l, w, err := ParseRate(in)
		if err != nil || l != want.limit || w != want.window {
			t.Errorf("ParseRate(%q) = %d %v %v", in, l, w, err)
		}
	}
	for _, bad := range []string{"", "20", "x/1m", "-1/1m", "5/0s", "5/abc"} {
		if _, _, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) accepted", bad)
		}
	}
}

func TestRatesFromEnv(t *testing.T) {
	t.Setenv("RATE_LIMIT_MONEY", "")
	t.Setenv("RATE_LIMIT_READ", "")
	money, read, err := RatesFromEnv()
	if err != nil || money.Limit != 20 || money.Window != time.Minute || money.Mode != FailClosed ||
		read.Limit != 600 || read.Mode != FailOpen {
		t.Fatalf("defaults: %+v %+v %v", money, read, err)
	}
	t.Setenv("RATE_LIMIT_MONEY", "0/1m")
	if money, _, _ := RatesFromEnv(); !money.Disabled() {
		t.Errorf("0/1m does not disable: %+v", money)
	}
	t.Setenv("RATE_LIMIT_READ", "lots")
	if _, _, err := RatesFromEnv(); err == nil {
		t.Error("RATE_LIMIT_READ=lots accepted")
	}
	if r := money.For("checkout"); r.Class != "checkout" || money.Class != "" {
		t.Errorf("For: %+v %+v", r, money)
	}
}

// timeoutErr is what go-redis returns when a read passes its deadline.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout (injected)" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// lateAnswers fails the next n commands as a late Redis answer would.
type lateAnswers struct {
	mu sync.Mutex
	n  int
}

func (h *lateAnswers) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *lateAnswers) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.mu.Lock()
		late := h.n > 0
		h.n--
		h.mu.Unlock()
		if late {
			cmd.SetErr(timeoutErr{})
			return timeoutErr{}
		}
		return next(ctx, cmd)
	}
}
func (h *lateAnswers) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// One late answer does not refuse a money route: the check is sent again.
// Two in a row do (fail closed), and a refused connection is not retried.
func TestLateAnswerIsAskedAgain(t *testing.T) {
	rdb := liveRedis(t)
	hook := &lateAnswers{}
	rdb.AddHook(hook)
	svc := uniqueService(t)
	l := New(rdb, Options{Service: svc})
	h := l.Guard(newMux(), Rules{patMoney: {Class: "pay", Limit: 3, Window: time.Minute, Mode: FailClosed}}, TokenUser(authtest.TokenIsUID))

	hook.n = 1
	if rec := do(t, h, "POST", "/api/pay/1", "alice"); rec.Code != http.StatusOK {
		t.Fatalf("one late answer: %d, want 200", rec.Code)
	}
	hook.n = SlowAttempts
	if rec := do(t, h, "POST", "/api/pay/1", "alice"); rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("late every time: %d, want 503", rec.Code)
	}

	down := deadRedis(t)
	calls := 0
	down.AddHook(countCalls(&calls))
	if _, err := New(down, Options{Service: svc}).Allow(context.Background(),
		Rule{Class: "pay", Limit: 3, Window: time.Minute}, "alice"); err == nil {
		t.Fatal("Allow on a dead Redis: no error")
	}
	if calls != 1 {
		t.Fatalf("a refused connection was tried %d times, want 1", calls)
	}
}

// countCalls counts the script calls sent (EVALSHA and its EVAL fallback
// count as one: only EVALSHA is counted).
func countCalls(n *int) redis.Hook { return &counter{n: n} }

type counter struct{ n *int }

func (c *counter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *counter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "evalsha" {
			*c.n++
		}
		return next(ctx, cmd)
	}
}
func (c *counter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// A FixedWindow rule counts every request of a user in the clock's window
// (refused ones too) under <service>:{<id>}:rl:<class>:<window start ms>;
// Retry-After is the window's end, at least a second.
func TestFixedWindowPerUser(t *testing.T) {
	rdb := liveRedis(t)
	svc := uniqueService(t)
	// A fixed clock in the middle of a window.
	clk := &clock{t: time.Unix(1_800_000_030, 0)}
	lim := New(rdb, Options{Service: svc, Now: clk.now}).Limit(Rule{Class: "test", Limit: 2, Window: time.Minute, Mode: FailOpen, Algorithm: FixedWindow})
	ctx := context.Background()
	for i := range 2 {
		if ok, _ := lim.Allow(ctx, "a"); !ok {
			t.Fatalf("call %d refused", i)
		}
	}
	ok, retry := lim.Allow(ctx, "a")
	if ok || retry != 30*time.Second {
		t.Fatalf("third call: ok=%v retry=%s, want refused for 30s", ok, retry)
	}
	key := svc + ":{a}:rl:test:1800000000000"
	if n, err := rdb.Get(ctx, key).Int(); err != nil || n != 3 {
		t.Fatalf("%s = %d %v, want 3 (the refused call counts)", key, n, err)
	}
	if ttl, err := rdb.PTTL(ctx, key).Result(); err != nil || ttl <= 60*time.Second || ttl > 61*time.Second {
		t.Fatalf("%s expires in %s %v, want the window + 1s", key, ttl, err)
	}
	if ok, _ := lim.Allow(ctx, "b"); !ok {
		t.Fatal("another user refused")
	}
	// The next window starts afresh.
	clk.add(30 * time.Second)
	if ok, _ := lim.Allow(ctx, "a"); !ok {
		t.Fatal("refused in the next window")
	}
	// Near the end of a window, Retry-After is at least a second.
	clk.add(59*time.Second + 900*time.Millisecond)
	lim.Allow(ctx, "a")
	lim.Allow(ctx, "a")
	if ok, retry := lim.Allow(ctx, "a"); ok || retry != time.Second {
		t.Fatalf("end of window: ok=%v retry=%s", ok, retry)
	}
}

// Limit 3 a minute: the 4th call is refused, another user is not, and a
// window later the user is let in again (the wallet's checkout limit).
func TestFixedWindowNextWindow(t *testing.T) {
	clk := &clock{t: time.Date(2030, 1, 1, 0, 0, 10, 0, time.UTC)}
	lim := New(liveRedis(t), Options{Service: uniqueService(t), Now: clk.now}).
		Limit(Rule{Class: "checkout", Limit: 3, Window: time.Minute, Mode: FailOpen, Algorithm: FixedWindow})
	ctx := context.Background()
	for i := range 3 {
		if ok, _ := lim.Allow(ctx, "u"); !ok {
			t.Fatalf("call %d denied", i)
		}
	}
	if ok, _ := lim.Allow(ctx, "u"); ok {
		t.Fatal("4th call allowed")
	}
	if ok, _ := lim.Allow(ctx, "other"); !ok {
		t.Fatal("other user denied")
	}
	clk.add(time.Minute)
	if ok, _ := lim.Allow(ctx, "u"); !ok {
		t.Fatal("next window denied")
	}
}

// A service's own counters replace the agentic_ratelimit_* ones.
func TestOwnCounters(t *testing.T) {
	reg := prometheus.NewRegistry()
	rejected := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "svc_rate_limited_total"}, []string{"limit"})
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "svc_rate_limit_errors_total"}, []string{"limit"})
	o := func() Options {
		return Options{
			Service: uniqueService(t), Registerer: reg,
			Rejected: func(r Rule) prometheus.Counter { return rejected.WithLabelValues(r.Class) },
			Errors:   func(r Rule) prometheus.Counter { return errs.WithLabelValues(r.Class) },
		}
	}
	rule := Rule{Class: "chat", Limit: 1, Window: time.Minute, Mode: FailOpen, Algorithm: FixedWindow}
	ctx := context.Background()
	live := New(liveRedis(t), o())
	live.Limit(rule).Allow(ctx, "u")
	if ok, _ := live.Limit(rule).Allow(ctx, "u"); ok {
		t.Fatal("second call allowed")
	}
	New(deadRedis(t), o()).Limit(rule).Allow(ctx, "u")
	if got := testutil.ToFloat64(rejected.WithLabelValues("chat")); got != 1 {
		t.Errorf("svc_rate_limited_total = %v, want 1", got)
	}
	if got := testutil.ToFloat64(errs.WithLabelValues("chat")); got != 1 {
		t.Errorf("svc_rate_limit_errors_total = %v, want 1", got)
	}
	if n, err := testutil.GatherAndCount(reg, "agentic_ratelimit_rejected_total", "agentic_ratelimit_redis_errors_total"); err != nil || n != 0 {
		t.Errorf("agentic_ratelimit_* series: %d %v, want none", n, err)
	}
}

// Redis unreachable: a fail-open Limit lets every call through, a
// fail-closed one refuses them for UnavailableRetryAfter; a disabled one
// does not ask Redis.
func TestLimitWithoutRedis(t *testing.T) {
	reg := prometheus.NewRegistry()
	svc := uniqueService(t)
	l := New(deadRedis(t), Options{Service: svc, Registerer: reg, SlowAttempts: 1})
	ctx := context.Background()
	open := l.Limit(Rule{Class: "chat", Limit: 1, Window: time.Minute, Mode: FailOpen, Algorithm: FixedWindow})
	for range 3 {
		if ok, _ := open.Allow(ctx, "u"); !ok {
			t.Fatal("refused while Redis is unreachable")
		}
	}
	closed := l.Limit(Rule{Class: "pay", Limit: 1, Window: time.Minute, Mode: FailClosed, Algorithm: FixedWindow})
	if ok, retry := closed.Allow(ctx, "u"); ok || retry != UnavailableRetryAfter {
		t.Fatalf("fail closed: ok=%v retry=%s", ok, retry)
	}
	if ok, _ := l.Limit(Rule{Class: "off", Limit: 0, Window: time.Minute, Algorithm: FixedWindow}).Allow(ctx, "u"); !ok {
		t.Fatal("a disabled limit refused")
	}
	if got := testutil.ToFloat64(l.errs.WithLabelValues(svc, "chat", "fail_open")); got != 3 {
		t.Errorf("redis errors fail_open = %v, want 3", got)
	}
	if got := testutil.ToFloat64(l.errs.WithLabelValues(svc, "pay", "fail_closed")); got != 1 {
		t.Errorf("redis errors fail_closed = %v, want 1", got)
	}
	if got := testutil.ToFloat64(l.errs.WithLabelValues(svc, "off", "fail_closed")); got != 0 {
		t.Errorf("a disabled limit counted a redis error: %v", got)
	}
}

// SlowAttempts 1: a late answer is not asked again.
func TestOneSlowAttempt(t *testing.T) {
	rdb := liveRedis(t)
	calls := 0
	rdb.AddHook(countCalls(&calls)) // outside the late answers: sees every call
	rdb.AddHook(&lateAnswers{n: 1})
	l := New(rdb, Options{Service: uniqueService(t), SlowAttempts: 1})
	if _, err := l.Allow(context.Background(), Rule{Class: "chat", Limit: 3, Window: time.Minute, Algorithm: FixedWindow}, "u"); err == nil {
		t.Fatal("a late answer: no error")
	}
	if calls != 1 {
		t.Fatalf("a late answer was asked %d times, want 1", calls)
	}
}
