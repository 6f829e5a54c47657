// Package ratelimit holds per-user quotas shared by every replica of a
// service: counters in Redis keyed by user id and class, a sliding window by
// default, a fixed one for the limits services apply themselves.
//
// Each Rule names a class (e.g. "checkout", "read"), a limit per window and
// what to do when Redis cannot be asked:
//
//   - FailClosed (money-moving routes: checkout, auto-recharge setup, billing
//     settings, API key creation, sending messages): the request is refused
//     with 503 {"error":"unavailable",...} and a Retry-After, because an
//     unlimited money route is what an attacker would wait for (a check
//     Redis answers too late is sent once more first: SlowAttempts);
//   - FailOpen (hot reads): the request is served and the failure counted.
//
// Over the limit, the answer is 429 {"error":"rate_limited",...} with
// Retry-After (whole seconds, at least 1). Rejected requests do not count
// (SlidingWindow), so a client hammering a limit is let in again as soon as
// the window slides.
//
// Metrics (labels service, class):
//
//	agentic_ratelimit_rejected_total{service,class}
//	agentic_ratelimit_redis_errors_total{service,class,mode="fail_open"|"fail_closed"}
//
// Guard applies Rules to an http.ServeMux by route pattern (GuardMux: for the
// user of the request's bearer token), so a service wires its quota table in
// one place (internal/app) without touching its transport.
//
// A limit a service applies itself (the conversations' chat and agent API
// limits, the wallet's checkout limit) is a Limit: a FixedWindow rule, whose
// answer is (ok, retryAfter) rather than an HTTP response, counted in the
// service's own metrics (Options.Rejected, Options.Errors).
package ratelimit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/observability"
)

// Mode is what a Rule does when Redis fails.
type Mode int

const (
	// FailClosed refuses the request (503) when Redis cannot be asked.
	FailClosed Mode = iota
	// FailOpen serves the request when Redis cannot be asked (counted).
	FailOpen
)

func (m Mode) String() string {
	if m == FailOpen {
		return "fail_open"
	}
	return "fail_closed"
}

// Algorithm is how a Rule counts.
type Algorithm int

const (
	// SlidingWindow weighs the previous fixed window by the part of it
	// still inside the sliding window (key
	// ratelimit:<service>:{<id>}:<class>:<window index>). Refused requests
	// do not count, so a client hammering a limit is let in again as soon
	// as the window slides.
	SlidingWindow Algorithm = iota
	// FixedWindow counts every request, refused ones too, in the window of
	// the clock it falls in (INCR + PEXPIRE of
	// <service>:{<id>}:rl:<class>:<window start, Unix ms>); Retry-After is
	// that window's end.
	FixedWindow
)

// Rule is one quota: Limit requests per Window per user for a route class.
type Rule struct {
	// Class names the quota in Redis keys and metrics; routes sharing a
	// class share a counter.
	Class     string
	Limit     int
	Window    time.Duration
	Mode      Mode
	Algorithm Algorithm
	// Env is the variable that configured it (RuleFromEnv), so that the
	// rules a service applies can be checked against the limits its API
	// document lists (Rules.Envs, openapi.CheckRates).
	Env string
}

// Disabled reports whether the rule lets everything through (Limit <= 0).
func (r Rule) Disabled() bool { return r.Limit <= 0 || r.Window <= 0 }

// ParseRate parses "<limit>/<window>" (e.g. "20/1m", "600/1m", "0/1m" to
// disable) into limit and window.
func ParseRate(s string) (int, time.Duration, error) {
	n, w, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return 0, 0, fmt.Errorf("rate %q: want <limit>/<window>, e.g. 20/1m", s)
	}
	limit, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil || limit < 0 {
		return 0, 0, fmt.Errorf("rate %q: limit must be a whole number >= 0", s)
	}
	window, err := time.ParseDuration(strings.TrimSpace(w))
	if err != nil || window <= 0 {
		return 0, 0, fmt.Errorf("rate %q: window must be a positive duration", s)
	}
	return limit, window, nil
}

// RuleOf is the rule of class as configured by the variable env, whose value
// rate ("" = def) is "<limit>/<window>"; an error names env.
func RuleOf(env, rate, def, class string, mode Mode) (Rule, error) {
	if strings.TrimSpace(rate) == "" {
		rate = def
	}
	limit, window, err := ParseRate(rate)
	if err != nil {
		return Rule{}, fmt.Errorf("%s: %w", env, err)
	}
	return Rule{Class: class, Limit: limit, Window: window, Mode: mode, Env: env}, nil
}

// Per-user defaults of the two kinds of quota services apply.
const (
	// DefaultMoneyRate: money-moving routes (RATE_LIMIT_MONEY).
	DefaultMoneyRate = "20/1m"
	// DefaultReadRate: hot reads (RATE_LIMIT_READ).
	DefaultReadRate = "600/1m"
)

// RatesFromEnv returns the template rules of the money-moving routes
// (FailClosed, RATE_LIMIT_MONEY, default 20/1m) and of the hot reads
// (FailOpen, RATE_LIMIT_READ, default 600/1m); "0/1m" disables one. Name
// each with For.
func RatesFromEnv() (money, read Rule, err error) {
	if money, err = RuleFromEnv("RATE_LIMIT_MONEY", DefaultMoneyRate, FailClosed); err != nil {
		return money, read, err
	}
	read, err = RuleFromEnv("RATE_LIMIT_READ", DefaultReadRate, FailOpen)
	return money, read, err
}

// RuleFromEnv returns a template rule (no class) with the rate of the
// environment variable name ("<limit>/<window>"), def when unset.
func RuleFromEnv(name, def string, mode Mode) (Rule, error) {
	v := os.Getenv(name)
	if strings.TrimSpace(v) == "" {
		v = def
	}
	limit, window, err := ParseRate(v)
	if err != nil {
		return Rule{}, fmt.Errorf("%s: %w", name, err)
	}
	return Rule{Limit: limit, Window: window, Mode: mode, Env: name}, nil
}

// For returns the rule with its class set.
func (r Rule) For(class string) Rule {
	r.Class = class
	return r
}

// Decision is the outcome of one check.
type Decision struct {
	Allowed bool
	// Count is the sliding-window estimate after this request (allowed) or
	// before it (rejected); for a FixedWindow rule, the window's count with
	// this request.
	Count int
	// RetryAfter is how long until a request would be allowed (rejected
	// decisions only).
	RetryAfter time.Duration
}

// Options configure a Limiter.
type Options struct {
	// Service labels the metrics and prefixes the keys (e.g. "wallet").
	Service string
	Logger  *slog.Logger
	// Registerer receives the metrics (optional).
	Registerer prometheus.Registerer
	// Timeout bounds one Redis round trip (default 150 ms): a slow Redis
	// counts as a failed one rather than holding requests.
	Timeout time.Duration
	// SlowAttempts is how many times a check Redis answers too late is
	// sent (default SlowAttempts). A fail-open limit can take 1: a late
	// answer only lets one request through.
	SlowAttempts int
	// Now is the clock of the windows and of Retry-After (tests).
	Now func() time.Time
	// Rejected and Errors, when set, return the counter a rule's refusals
	// and unanswered checks count in, instead of
	// agentic_ratelimit_rejected_total and
	// agentic_ratelimit_redis_errors_total: the limits services apply
	// themselves keep the metrics their dashboards and docs name
	// (conversations_rate_limited_total, wallet_redis_errors_total, ...).
	Rejected func(Rule) prometheus.Counter
	Errors   func(Rule) prometheus.Counter
}

// Limiter checks Rules against Redis.
type Limiter struct {
	rdb        redis.Scripter
	service    string
	log        *slog.Logger
	timeout    time.Duration
	attempts   int
	now        func() time.Time
	rejected   *prometheus.CounterVec
	errs       *prometheus.CounterVec
	onRejected func(Rule) prometheus.Counter
	onError    func(Rule) prometheus.Counter
}

// New returns a Limiter on rdb (any go-redis client: single node, cluster,
// ring; the keys of one user and class share a hash slot).
func New(rdb redis.Scripter, o Options) *Limiter {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Timeout <= 0 {
		o.Timeout = 150 * time.Millisecond
	}
	if o.SlowAttempts <= 0 {
		o.SlowAttempts = SlowAttempts
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	l := &Limiter{
		rdb: rdb, service: o.Service, log: o.Logger, timeout: o.Timeout, attempts: o.SlowAttempts, now: o.Now,
		onRejected: o.Rejected, onError: o.Errors,
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agentic_ratelimit_rejected_total",
			Help: "Requests refused with 429 by a per-user quota.",
		}, []string{"service", "class"}),
		errs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agentic_ratelimit_redis_errors_total",
			Help: "Quota checks Redis could not answer; mode says whether the request was refused (fail_closed) or served (fail_open).",
		}, []string{"service", "class", "mode"}),
	}
	if o.Registerer != nil {
		l.rejected = observability.Register(o.Registerer, l.rejected)
		l.errs = observability.Register(o.Registerer, l.errs)
	}
	return l
}

// slidingWindow counts one request in the current fixed window unless the
// sliding estimate (previous window weighted by the part of it still inside
// the sliding window, plus the current one) would exceed the limit.
//
// KEYS[1] current window, KEYS[2] previous window.
// ARGV[1] limit, ARGV[2] window ms, ARGV[3] ms elapsed in the current window.
// Returns {allowed 0|1, current count, previous count}.
var slidingWindow = redis.NewScript(`
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local elapsed = tonumber(ARGV[3])
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local prev = tonumber(redis.call('GET', KEYS[2]) or '0')
local estimate = prev * (window - elapsed) / window + cur
if estimate + 1 > limit then
  return {0, cur, prev}
end
cur = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], window * 2 + 1000)
return {1, cur, prev}
`)

// fixedWindow counts one request in KEYS[1] (the current window) and keeps
// the key ARGV[1] ms. Returns the count.
var fixedWindow = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return n
`)

// ErrNoUser is returned by Allow for an empty uid.
var ErrNoUser = errors.New("ratelimit: no user id")

// Allow counts one request of uid against rule. An error means Redis could
// not be asked (the caller applies rule.Mode; Guard and Limit do).
func (l *Limiter) Allow(ctx context.Context, rule Rule, uid string) (Decision, error) {
	if rule.Disabled() {
		return Decision{Allowed: true}, nil
	}
	if uid == "" {
		return Decision{}, ErrNoUser
	}
	if rule.Algorithm == FixedWindow {
		return l.allowFixed(ctx, rule, uid)
	}
	w := rule.Window.Milliseconds()
	if w <= 0 {
		w = 1
	}
	nowMs := l.now().UnixMilli()
	idx := nowMs / w
	elapsed := nowMs - idx*w
	// {uid} is the hash tag: both windows of a user live in one slot.
	base := "ratelimit:" + l.service + ":{" + uid + "}:" + rule.Class + ":"
	keys := []string{base + strconv.FormatInt(idx, 10), base + strconv.FormatInt(idx-1, 10)}
	var res []int64
	err := l.run(ctx, func(ctx context.Context) (err error) {
		res, err = slidingWindow.Run(ctx, l.rdb, keys, rule.Limit, w, elapsed).Int64Slice()
		return err
	})
	if err != nil {
		return Decision{}, err
	}
	if len(res) != 3 {
		return Decision{}, fmt.Errorf("ratelimit: unexpected script result %v", res)
	}
	cur, prev := res[1], res[2]
	if res[0] == 1 {
		return Decision{Allowed: true, Count: int(estimate(prev, cur, w, elapsed))}, nil
	}
	return Decision{Count: int(estimate(prev, cur, w, elapsed)), RetryAfter: retryAfter(int64(rule.Limit), w, elapsed, cur, prev)}, nil
}

// allowFixed is Allow for a FixedWindow rule.
func (l *Limiter) allowFixed(ctx context.Context, rule Rule, uid string) (Decision, error) {
	now := l.now().UnixNano()
	start := now / int64(rule.Window) * int64(rule.Window)
	key := l.service + ":{" + uid + "}:rl:" + rule.Class + ":" + strconv.FormatInt(start/int64(time.Millisecond), 10)
	ttl := (rule.Window + time.Second).Milliseconds()
	var n int64
	err := l.run(ctx, func(ctx context.Context) (err error) {
		n, err = fixedWindow.Run(ctx, l.rdb, []string{key}, ttl).Int64()
		return err
	})
	if err != nil {
		return Decision{}, err
	}
	if n <= int64(rule.Limit) {
		return Decision{Allowed: true, Count: int(n)}, nil
	}
	return Decision{Count: int(n), RetryAfter: max(time.Duration(start+int64(rule.Window)-now), time.Second)}, nil
}

// run sends one check, each attempt bounded by the timeout and detached
// from the request's cancellation, again while Redis answers too late.
func (l *Limiter) run(ctx context.Context, check func(context.Context) error) error {
	var err error
	for attempt := range l.attempts {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.timeout)
		err = check(actx)
		cancel()
		if err == nil || !slow(err) || attempt == l.attempts-1 {
			break
		}
	}
	return err
}

// SlowAttempts is how many times a check is sent when Redis answers too
// slowly (a timeout, or no free connection in time): a loaded machine
// delays one answer past the bound now and then, and a money route fails
// closed, so one late answer must not refuse a paying user (it did: a
// message in the Playwright suite, refused with 503 after 111 ms). A
// refused connection is not retried: that is Redis down. A check whose
// first attempt did reach Redis counts the request twice, which only
// makes the quota a little stricter.
const SlowAttempts = 2

// slow reports whether err is Redis answering too late (a read or write
// past its deadline on an open connection, or no free connection in time)
// rather than not at all. A failed dial, refused or timed out, is Redis
// down; so is the request's whole deadline running out, which the client's
// own dial retries can cause.
func slow(err error) bool {
	if errors.Is(err, redis.ErrPoolTimeout) {
		return true
	}
	var op *net.OpError
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &op) && op.Op == "dial") {
		return false // (context.DeadlineExceeded is a net.Error with Timeout() true)
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func estimate(prev, cur, window, elapsed int64) float64 {
	return float64(prev)*float64(window-elapsed)/float64(window) + float64(cur)
}

// retryAfter is the time until prev*(w-e')/w + cur + 1 <= limit: later in
// this window when the previous one's weight can fall far enough, otherwise
// the start of the next window (when cur becomes the previous count; the
// next answer then says how much longer, if at all).
func retryAfter(limit, w, elapsed, cur, prev int64) time.Duration {
	ms := w - elapsed
	if room := limit - cur - 1; room >= 0 && prev > 0 {
		// need (w - e') * prev <= room * w  =>  e' >= w - room*w/prev
		need := int64(math.Ceil(float64(w) - float64(room)*float64(w)/float64(prev)))
		if need-elapsed < ms {
			ms = need - elapsed
		}
	}
	d := time.Duration(ms) * time.Millisecond
	if d < time.Second {
		d = time.Second
	}
	return d
}

// Rules maps a ServeMux pattern, exactly as registered ("POST
// /api/stripe/create-checkout-session", "GET /api/conversations/{id}"), to
// its quota.
type Rules map[string]Rule

// Envs maps each rule's route to the variable that configures it (the
// argument of openapi.CheckRates).
func (rs Rules) Envs() map[string]string {
	out := make(map[string]string, len(rs))
	for route, r := range rs {
		out[route] = r.Env
	}
	return out
}

// UserFunc returns the caller's user id, or false when the request carries
// no (valid) identity: such requests are not counted here and the route's
// own auth answers them.
type UserFunc func(r *http.Request) (string, bool)

// TokenUser verifies the request's bearer ID token with v (the service's
// caching verifier, so the route's own check is a cache hit) and returns its
// uid. Claims already in the context (a test or an outer middleware) win.
func TokenUser(v auth.Verifier) UserFunc {
	return func(r *http.Request) (string, bool) {
		if c, ok := auth.FromContext(r.Context()); ok && c.UID != "" {
			return c.UID, true
		}
		raw, ok := auth.BearerToken(r)
		if !ok {
			return "", false
		}
		c, err := v.VerifyIDToken(r.Context(), raw)
		if err != nil || c.UID == "" {
			return "", false
		}
		return c.UID, true
	}
}

// GuardMux puts a service's quota table in front of its mux: each request
// on a route with a rule is counted for the user of its bearer token, which
// verifier checks (TokenUser), on a Limiter with options o.
func GuardMux(mux *http.ServeMux, rdb redis.Scripter, rules Rules, verifier auth.Verifier, o Options) http.Handler {
	return New(rdb, o).Guard(mux, rules, TokenUser(verifier))
}

// Guard wraps mux: a request whose matched pattern has a Rule is counted
// for its user before mux serves it. Patterns without a rule, and requests
// without a user, pass straight through.
func (l *Limiter) Guard(mux *http.ServeMux, rules Rules, user UserFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(rules) == 0 {
			mux.ServeHTTP(w, r)
			return
		}
		_, pattern := mux.Handler(r)
		rule, ok := rules[pattern]
		if !ok || rule.Disabled() {
			mux.ServeHTTP(w, r)
			return
		}
		uid, ok := user(r)
		if !ok {
			mux.ServeHTTP(w, r)
			return
		}
		// A refused request never reaches the mux, which is what names it:
		// name it here, so its span, metrics and request log carry the route
		// template rather than "unmatched".
		r.Pattern = pattern
		if !l.Check(w, r, rule, uid) {
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// Check applies rule for uid and, when the request must not proceed,
// writes the 429 or 503 answer and returns false.
func (l *Limiter) Check(w http.ResponseWriter, r *http.Request, rule Rule, uid string) bool {
	d, err := l.Allow(r.Context(), rule, uid)
	if err != nil {
		l.errorCounter(rule).Inc()
		if rule.Mode == FailOpen {
			l.log.WarnContext(r.Context(), "rate limit not applied: redis unavailable", "class", rule.Class, "error", err)
			return true
		}
		l.log.ErrorContext(r.Context(), "request refused: rate limit cannot be checked (redis unavailable)", "class", rule.Class, "error", err)
		w.Header().Set("Retry-After", strconv.Itoa(int(UnavailableRetryAfter/time.Second)))
		writeError(w, http.StatusServiceUnavailable, "unavailable", "Temporarily unavailable. Please try again shortly.")
		return false
	}
	if d.Allowed {
		return true
	}
	l.rejectedCounter(rule).Inc()
	secs := int(math.Ceil(d.RetryAfter.Seconds()))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeError(w, http.StatusTooManyRequests, "rate_limited", LimitMessage(rule, secs))
	return false
}

// UnavailableRetryAfter is when to try again after a fail-closed rule
// refused a request because Redis could not be asked.
const UnavailableRetryAfter = 5 * time.Second

// Limit is one rule applied by a service itself rather than by route
// (Guard): its Allow is the per-user limiter a service's domain package
// asks (e.g. conversations.RateLimiter).
type Limit struct {
	l    *Limiter
	rule Rule
}

// Limit returns rule on l.
func (l *Limiter) Limit(rule Rule) Limit { return Limit{l: l, rule: rule} }

// Allow counts one request of id and says whether it may go on and, when
// it may not, how long until one would be allowed (at least 1 s). When
// Redis cannot be asked the failure is counted and logged and the rule's
// Mode decides: FailOpen lets the request through, FailClosed refuses it
// for UnavailableRetryAfter.
func (lim Limit) Allow(ctx context.Context, id string) (bool, time.Duration) {
	l, rule := lim.l, lim.rule
	d, err := l.Allow(ctx, rule, id)
	if err != nil {
		l.errorCounter(rule).Inc()
		if rule.Mode == FailOpen {
			l.log.WarnContext(ctx, "redis unavailable, rate limit not applied", "limit", rule.Class, "error", err)
			return true, 0
		}
		l.log.ErrorContext(ctx, "request refused: rate limit cannot be checked (redis unavailable)", "limit", rule.Class, "error", err)
		return false, UnavailableRetryAfter
	}
	if d.Allowed {
		return true, 0
	}
	l.rejectedCounter(rule).Inc()
	return false, d.RetryAfter
}

func (l *Limiter) rejectedCounter(rule Rule) prometheus.Counter {
	if l.onRejected != nil {
		return l.onRejected(rule)
	}
	return l.rejected.WithLabelValues(l.service, rule.Class)
}

func (l *Limiter) errorCounter(rule Rule) prometheus.Counter {
	if l.onError != nil {
		return l.onError(rule)
	}
	return l.errs.WithLabelValues(l.service, rule.Class, rule.Mode.String())
}

// LimitMessage is a 429's message: the limit that was reached and when to
// try again ("Too many requests: at most 3 per minute. Try again in 12
// seconds."), so a person or a script knows what to do.
func LimitMessage(rule Rule, retryAfterSeconds int) string {
	return fmt.Sprintf("Too many requests: at most %d per %s. Try again in %s.", rule.Limit, windowText(rule.Window), secondsText(retryAfterSeconds))
}

func windowText(w time.Duration) string {
	switch w {
	case time.Second:
		return "second"
	case time.Minute:
		return "minute"
	case time.Hour:
		return "hour"
	case 24 * time.Hour:
		return "day"
	}
	return w.String()
}

func secondsText(n int) string {
	if n == 1 {
		return "1 second"
	}
	return fmt.Sprintf("%d seconds", max(n, 1))
}

// writeError writes the platform error shape {"error","message"}.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "message": msg})
}
