package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"

	"github.com/agentic-app/agentic/services/platform/observability"
)

// Check is a named readiness check.
type Check struct {
	Name string
	Fn   func(context.Context) error
}

// NewMux returns a ServeMux with the operational endpoints:
//
//   - GET /healthz: 200 {"status":"ok"} while the process runs
//   - GET /readyz: runs every check (in parallel, 3s timeout); 200
//     {"status":"ready","checks":{...}} or 503 {"status":"unavailable","checks":{name: error}}
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

// ReadyHandler runs checks and reports readiness.
func ReadyHandler(checks ...Check) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		results := make(map[string]string, len(checks))
		var mu sync.Mutex
		var wg sync.WaitGroup
		failed := false
		for _, c := range checks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := c.Fn(ctx)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					failed = true
					results[c.Name] = err.Error()
				} else {
					results[c.Name] = "ok"
				}
			}()
		}
		wg.Wait()
		if failed {
			WriteJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "checks": results})
			return
		}
		WriteJSON(w, http.StatusOK, map[string]any{"status": "ready", "checks": results})
	})
}

// Middleware wraps h with, from the outside in: panic recovery, OpenTelemetry
// (otelhttp, extracting W3C trace context), request logging and Prometheus
// HTTP metrics (http_requests_total and http_request_duration_seconds by
// method, route pattern and status code).
func Middleware(h http.Handler, service string, logger *slog.Logger, reg prometheus.Registerer) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	h = instrument(h, reg)
	h = logRequests(h, logger)
	h = otelhttp.NewHandler(h, service,
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string {
			return r.Method + " " + r.URL.Path
		}))
	return Recover(h, logger)
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

func logRequests(h http.Handler, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		level := slog.LevelInfo
		switch {
		case r.URL.Path == "/healthz" || r.URL.Path == "/readyz" || r.URL.Path == "/metrics":
			level = slog.LevelDebug // probes and scrapes (a 503 from /readyz is expected while starting)
		case rec.code() >= 500:
			level = slog.LevelError
		}
		logger.Log(r.Context(), level, "http request",
			"method", r.Method, "path", r.URL.Path, "route", r.Pattern,
			"status", rec.code(), "bytes", rec.bytes, "duration_ms", time.Since(start).Milliseconds())
	})
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
