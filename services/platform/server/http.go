package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"os"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentic-app/agentic/services/platform/observability"
)

// Check is a named readiness check.
//
// A failing check makes /readyz answer 503 unless it is Optional: an optional
// check names a dependency the service can do without for a while (the Kafka
// broker: the outbox buffers events until it returns). Its failure is
// reported (status "degraded" and the error under its name) but the service
// stays ready, so an outage of that dependency does not take every replica
// out of rotation.
type Check struct {
	Name string
	Fn   func(context.Context) error
	// Optional: a failure degrades readiness instead of failing it.
	Optional bool
}

// NewMux returns a ServeMux with the operational endpoints:
//
//   - GET /healthz: 200 {"status":"ok"} while the process runs; it runs no
//     check, so liveness never depends on a dependency
//   - GET /readyz: runs every check (in parallel, 3s timeout); 200
//     {"status":"ready","checks":{name:"ok",...}}; 200 {"status":"degraded",
//     "checks":{...},"degraded":[names]} when only Optional checks fail; 503
//     {"status":"unavailable","checks":{name: error}} when a required one fails
//   - GET /metrics: Prometheus exposition of reg
//   - anything unmatched: 404 {"error":"not_found","message":"Not found"}
//
// Services add their routes with Route.
func NewMux(reg *prometheus.Registry, checks ...Check) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.Handle("GET /readyz", ReadyHandler(checks...))
	if reg != nil {
		mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, ErrNotFound)
	})
	return mux
}

// Route registers h for method and path on mux; other methods on the same
// path get 405 {"error":"method_not_allowed",...} with an Allow header.
// Register each path once per method; Route keeps track of allowed methods.
func Route(mux *http.ServeMux, method, path string, h http.Handler) {
	routesMu.Lock()
	defer routesMu.Unlock()
	key := routeKey{mux, path}
	first := len(allowed[key]) == 0
	allowed[key] = append(allowed[key], method)
	mux.Handle(method+" "+path, h)
	if first {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			routesMu.Lock()
			methods := append([]string(nil), allowed[key]...)
			routesMu.Unlock()
			sort.Strings(methods)
			for i, m := range methods {
				if i == 0 {
					w.Header().Set("Allow", m)
				} else {
					w.Header().Add("Allow", m)
				}
			}
			WriteError(w, ErrMethodNotAllowed)
		})
	}
}

type routeKey struct {
	mux  *http.ServeMux
	path string
}

var (
	routesMu sync.Mutex
	allowed  = map[routeKey][]string{}
)

// ReadyHandler runs checks and reports readiness: 503 if a required check
// fails, 200 "degraded" if only optional ones do, 200 "ready" otherwise.
func ReadyHandler(checks ...Check) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		results := make(map[string]string, len(checks))
		var mu sync.Mutex
		var wg sync.WaitGroup
		failed := false
		var degraded []string
		for _, c := range checks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := c.Fn(ctx)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					results[c.Name] = "ok"
				case c.Optional:
					degraded = append(degraded, c.Name)
					results[c.Name] = err.Error()
				default:
					failed = true
					results[c.Name] = err.Error()
				}
			}()
		}
		wg.Wait()
		sort.Strings(degraded)
		switch {
		case failed:
			WriteJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "checks": results})
		case len(degraded) > 0:
			WriteJSON(w, http.StatusOK, map[string]any{"status": "degraded", "checks": results, "degraded": degraded})
		default:
			WriteJSON(w, http.StatusOK, map[string]any{"status": "ready", "checks": results})
		}
	})
}

// Middleware wraps h with, from the outside in: OpenTelemetry (otelhttp,
// extracting W3C trace context; the server span is named after the matched
// route template, "GET /api/agents/{agentId}", never the raw path), request
// logging (sampled for successful reads: see RequestLogSampleEnv), Prometheus
// HTTP metrics (http_requests_total and http_request_duration_seconds by
// method, route pattern and status code) and panic recovery (inside the
// others, so a panic is traced, logged and counted as the 500 it becomes).
// It also registers agentic_build_info for service on reg.
func Middleware(h http.Handler, service string, logger *slog.Logger, reg prometheus.Registerer) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	observability.RegisterBuildInfo(reg, service)
	h = InputGuard(h) // 400 for NUL / invalid UTF-8 in the path or query (text.go)
	h = Recover(h, logger)
	h = instrument(h, reg)
	h = logRequests(h, logger, requestLogConfigFromEnv(logger))
	h = withRequestID(h) // inside otelhttp: the id is the span's trace id
	h = noSniff(h)
	return otelhttp.NewHandler(h, service, otelhttp.WithSpanNameFormatter(spanName))
}

// spanName names a server span "METHOD /route/{template}" once ServeMux has
// matched the request (otelhttp calls it again after the handler, with
// r.Pattern set), and just "METHOD" before that or when no route matched, so
// span names stay low-cardinality. It also records the template as the span's
// http.route attribute.
func spanName(_ string, r *http.Request) string {
	route := routeTemplate(r.Pattern)
	if route == "" {
		return r.Method
	}
	trace.SpanFromContext(r.Context()).SetAttributes(semconv.HTTPRoute(route))
	return r.Method + " " + route
}

// routeTemplate is the path part of a ServeMux pattern ("GET
// /api/agents/{agentId}" → "/api/agents/{agentId}"); "" for no pattern and for
// NewMux's catch-all "/" (the 404 answer).
func routeTemplate(pattern string) string {
	if pattern == "" || pattern == "/" {
		return ""
	}
	if i := strings.IndexByte(pattern, '/'); i >= 0 {
		return pattern[i:]
	}
	return ""
}

// Recover turns a panic into 500 {"error":"internal","message":"Internal server error"}.
func Recover(h http.Handler, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				logger.ErrorContext(r.Context(), "panic in http handler", "panic", fmt.Sprint(v), "path", r.URL.Path, "stack", string(debug.Stack()))
				WriteError(w, ErrInternal)
			}
		}()
		h.ServeHTTP(w, r)
	})
}

type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s *statusRecorder) code() int {
	if s.status == 0 {
		return http.StatusOK
	}
	return s.status
}

// Request log settings, read from the environment by Middleware.
const (
	// RequestLogSampleEnv is the fraction of successful (status < 400) GET
	// and HEAD requests logged at INFO: "0.01" or "1/100" (the default: one in
	// a hundred), "1" every one, "0" none. The others are logged at DEBUG
	// (LOG_LEVEL=debug shows them all). Writes, 4xx and 5xx answers and slow
	// requests are always logged.
	RequestLogSampleEnv = "REQUEST_LOG_SAMPLE"
	// RequestLogSlowEnv is the duration from which a request is slow and
	// logged at WARN whatever its method (default 1s; 0 turns it off). Event
	// streams (text/event-stream) are long by nature and never slow.
	RequestLogSlowEnv = "REQUEST_LOG_SLOW"

	defaultRequestLogSample = 0.01
	defaultRequestLogSlow   = time.Second
)

type requestLogConfig struct {
	sample float64       // fraction of successful reads logged at INFO
	slow   time.Duration // 0: no slow-request detection
}

func requestLogConfigFromEnv(logger *slog.Logger) requestLogConfig {
	c := requestLogConfig{sample: defaultRequestLogSample, slow: defaultRequestLogSlow}
	if v := strings.TrimSpace(os.Getenv(RequestLogSampleEnv)); v != "" {
		f, err := ParseSampleRate(v)
		if err != nil {
			logger.Warn("ignoring "+RequestLogSampleEnv, "value", v, "error", err, "using", c.sample)
		} else {
			c.sample = f
		}
	}
	if v := strings.TrimSpace(os.Getenv(RequestLogSlowEnv)); v != "" {
		d, err := time.ParseDuration(v)
		if v == "0" {
			d, err = 0, nil
		}
		if err != nil || d < 0 {
			logger.Warn("ignoring "+RequestLogSlowEnv, "value", v, "using", c.slow.String())
		} else {
			c.slow = d
		}
	}
	return c
}

// ParseSampleRate parses a fraction between 0 and 1 written as a decimal
// ("0.01"), a ratio ("1/100") or a percentage ("1%").
func ParseSampleRate(s string) (float64, error) {
	s = strings.TrimSpace(s)
	var f float64
	var err error
	switch {
	case strings.HasSuffix(s, "%"):
		f, err = strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
		f /= 100
	case strings.Contains(s, "/"):
		num, den, _ := strings.Cut(s, "/")
		var n, d float64
		if n, err = strconv.ParseFloat(strings.TrimSpace(num), 64); err == nil {
			d, err = strconv.ParseFloat(strings.TrimSpace(den), 64)
		}
		if err == nil && d == 0 {
			err = errors.New("zero denominator")
		}
		f = n / d
	default:
		f, err = strconv.ParseFloat(s, 64)
	}
	if err != nil {
		return 0, fmt.Errorf("sample rate %q: %w", s, err)
	}
	if math.IsNaN(f) || f < 0 || f > 1 {
		return 0, fmt.Errorf("sample rate %q: not between 0 and 1", s)
	}
	return f, nil
}

// sampler keeps exactly the fraction rate of its calls, evenly spread: the
// first call, then one every 1/rate (deterministic, so a low rate still shows
// traffic as soon as it starts and the log volume is predictable).
type sampler struct {
	rate float64
	n    atomic.Uint64
}

func (s *sampler) keep() bool {
	switch {
	case s.rate >= 1:
		return true
	case s.rate <= 0:
		return false
	}
	i := float64(s.n.Add(1) - 1)
	return math.Floor(i*s.rate) != math.Floor((i-1)*s.rate)
}

// logRequests logs every request as "http request" (method, path, route,
// status, bytes, duration_ms) at a level chosen by requestLogLevel; records
// below the logger's level cost no formatting.
func logRequests(h http.Handler, logger *slog.Logger, cfg requestLogConfig) http.Handler {
	s := &sampler{rate: cfg.sample}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		d := time.Since(start)
		level, sampled := requestLogLevel(cfg, s, r, rec, d)
		ctx := r.Context()
		if !logger.Enabled(ctx, level) {
			return
		}
		// trace_id (added by the log handler) is the X-Request-Id answered.
		attrs := []any{"method", r.Method, "path", r.URL.Path, "route", r.Pattern,
			"status", rec.code(), "bytes", rec.bytes, "duration_ms", d.Milliseconds()}
		if sampled {
			attrs = append(attrs, "sample_rate", cfg.sample)
		}
		logger.Log(ctx, level, "http request", attrs...)
	})
}

// requestLogLevel: probes and scrapes at DEBUG; 5xx at ERROR; slow requests
// at WARN; successful GET/HEAD at INFO for the sampled fraction (sampled is
// true) and DEBUG otherwise; everything else (writes, 4xx) at INFO.
func requestLogLevel(cfg requestLogConfig, s *sampler, r *http.Request, rec *statusRecorder, d time.Duration) (level slog.Level, sampled bool) {
	code := rec.code()
	switch {
	case r.URL.Path == "/healthz" || r.URL.Path == "/readyz" || r.URL.Path == "/metrics":
		return slog.LevelDebug, false // probes and scrapes (a 503 from /readyz is expected while starting)
	case code >= 500:
		return slog.LevelError, false
	case cfg.slow > 0 && d >= cfg.slow && !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream"):
		return slog.LevelWarn, false
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && code < 400:
		if s.keep() {
			return slog.LevelInfo, true
		}
		return slog.LevelDebug, false
	default:
		return slog.LevelInfo, false
	}
}

func instrument(h http.Handler, reg prometheus.Registerer) http.Handler {
	if reg == nil {
		return h
	}
	requests := observability.Register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "http_requests_total", Help: "HTTP requests by method, route and status code.",
	}, []string{"method", "route", "code"}))
	duration := observability.Register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "http_request_duration_seconds", Help: "HTTP request latency by method and route.",
		Buckets: prometheus.DefBuckets,
	}, []string{"method", "route"}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		route := r.Pattern // set by ServeMux on this request
		if route == "" || route == "/" {
			route = "unmatched"
		}
		requests.WithLabelValues(r.Method, route, strconv.Itoa(rec.code())).Inc()
		duration.WithLabelValues(r.Method, route).Observe(time.Since(start).Seconds())
	})
}
