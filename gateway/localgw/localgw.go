// Package localgw is the gateway used where Envoy is not installed (the local
// Tilt stack): one origin that serves the built SPA and proxies /api/* (and
// the few pages outside /api the table gives a service) to the services named
// by the route table.
//
// It deliberately does not check tokens: the services always verify them
// themselves, and emulator tokens are unsigned (ARCHITECTURE.md).
package localgw

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/gzhttp"

	"github.com/agentic-app/agentic/gateway/routes"
)

// Config describes where the upstreams and the SPA are.
type Config struct {
	Table *routes.Table
	// Upstreams maps a service name to its HTTP address (host:port).
	Upstreams map[string]string
	// StaticDir holds the built SPA (index.html and assets/).
	StaticDir string
	Logger    *slog.Logger
	// CSPExtraOrigins are added to the Content-Security-Policy's
	// connect-src and frame-src (the Auth emulator locally).
	CSPExtraOrigins []string
}

// MaxIdlePerUpstream is how many idle keep-alive connections the gateway
// keeps to each service. net/http's default is 2: with more requests than
// that in flight (64 users chatting), nearly every request dialled a new
// connection and closed it afterwards (133 sockets to conversations in
// TIME_WAIT after a 20 s run), a TCP handshake and a new server goroutine
// before each answer's first byte. Envoy pools upstream connections too.
const MaxIdlePerUpstream = 256

// upstreamTransport is http.DefaultTransport with a keep-alive pool sized
// for the gateway's concurrency.
func upstreamTransport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 0 // no total bound; per upstream below
	tr.MaxIdleConnsPerHost = MaxIdlePerUpstream
	return tr
}

// New builds the gateway handler.
func New(cfg Config) (http.Handler, error) {
	proxies := make(map[string]*httputil.ReverseProxy, len(cfg.Table.Services))
	transport := upstreamTransport()
	sec := cfg.Table.SecurityHeaders.Headers(cfg.CSPExtraOrigins...)
	for name := range cfg.Table.Services {
		addr, ok := cfg.Upstreams[name]
		if !ok {
			return nil, fmt.Errorf("no upstream address for service %q", name)
		}
		target := &url.URL{Scheme: "http", Host: addr}
		name := name
		proxies[name] = &httputil.ReverseProxy{
			// Flush every write: streamed answers (text/event-stream) must reach
			// the browser token by token, never buffered.
			FlushInterval: -1,
			Transport:     transport,
			Rewrite: func(pr *httputil.ProxyRequest) {
				pr.SetURL(target)
				pr.SetXForwarded()
			},
			// The services answer X-Request-Id themselves (the trace id the
			// gateway sent); an answer without one gets it here.
			ModifyResponse: func(res *http.Response) error {
				// The gateway set its security headers already; the proxy
				// adds the service's headers to them, so drop the service's
				// copies (its nosniff) rather than send two values.
				for k := range sec {
					res.Header.Del(k)
				}
				if res.Header.Get(headerRequestID) == "" {
					if id, ok := traceID(res.Request.Header.Get("Traceparent")); ok {
						res.Header.Set(headerRequestID, id)
					}
				}
				return nil
			},
			ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
				if id, ok := traceID(r.Header.Get("Traceparent")); ok {
					w.Header().Set(headerRequestID, id)
				}
				if errors.Is(r.Context().Err(), context.Canceled) {
					// The browser left (a navigation, a Stop) while the service
					// worked: not the service's failure, and nobody reads this.
					writeError(w, statusClientClosedRequest, "client_closed_request", "The client closed the request.")
					return
				}
				cfg.Logger.Warn("upstream unavailable", "service", name, "path", r.URL.Path, "err", err)
				writeError(w, http.StatusBadGateway, "bad_gateway",
					fmt.Sprintf("The %s service is unavailable. Please try again shortly.", name))
			},
		}
	}
	index := filepath.Join(cfg.StaticDir, "index.html")
	files := http.FileServer(http.Dir(cfg.StaticDir))

	mux := http.NewServeMux()
	mux.HandleFunc("/_gateway/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		id := traceRequest(r)
		route, ok := cfg.Table.Lookup(r.URL.Path)
		if !ok {
			w.Header().Set(headerRequestID, id)
			// The gateway's own answer: no service will log it.
			cfg.Logger.Info("no API route", "method", r.Method, "path", r.URL.Path)
			writeError(w, http.StatusNotFound, "not_found", "No API route matches "+r.URL.Path+".")
			return
		}
		proxies[route.Service].ServeHTTP(w, r)
	})
	// The SPA is compressed here as Envoy/nginx would in a cluster; /api
	// responses pass through as the services send them.
	spa := gzhttp.GzipHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "Only GET and HEAD are served here.")
			return
		}
		clean := path.Clean("/" + r.URL.Path)
		if clean != "/" && clean != "/index.html" {
			if info, err := os.Stat(filepath.Join(cfg.StaticDir, filepath.FromSlash(clean))); err == nil && !info.IsDir() {
				if strings.HasPrefix(clean, "/assets/") {
					// Vite puts a content hash in every asset name.
					w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
				}
				files.ServeHTTP(w, r)
				return
			}
		}
		// Client-side routes (and unknown paths, which the SPA renders as
		// its 404 screen) all get index.html, never cached so a new build
		// is picked up on the next load. /index.html itself is the file
		// (the catalog reads the SPA's shell there, WEB_INDEX_URL), not a
		// redirect to / as http.ServeFile would answer.
		w.Header().Set("Cache-Control", "no-cache")
		serveIndex(w, r, index)
	}))
	// Pages the route table gives a service (the catalog's agent pages and
	// sitemap.xml) are routed before the SPA's files, as Envoy does.
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if route, ok := cfg.Table.Lookup(r.URL.Path); ok && route.Page() {
			traceRequest(r)
			proxies[route.Service].ServeHTTP(w, r)
			return
		}
		spa.ServeHTTP(w, r)
	}))
	page := func(path string) bool {
		route, ok := cfg.Table.Lookup(path)
		return ok && route.Page()
	}
	return accessLog(cfg.Logger, page, securityHeaders(sec, mux)), nil
}

// serveIndex answers with the SPA's index.html (conditional requests and
// HEAD included).
func serveIndex(w http.ResponseWriter, r *http.Request, index string) {
	f, err := os.Open(index)
	if err != nil {
		http.Error(w, "the web app is not built (web/dist/index.html)", http.StatusServiceUnavailable)
		return
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		http.Error(w, "the web app is not built (web/dist/index.html)", http.StatusServiceUnavailable)
		return
	}
	http.ServeContent(w, r, "index.html", info.ModTime(), f)
}

// securityHeaders sets the route table's security headers on every
// response, before the handler writes (a service's own values, e.g. its
// nosniff, replace them when it sets the same header).
func securityHeaders(headers map[string]string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		for k, v := range headers {
			h.Set(k, v)
		}
		next.ServeHTTP(w, r)
	})
}

// headerRequestID carries a request's id: its trace id.
const headerRequestID = "X-Request-Id"

// traceRequest returns the request's trace id, starting its trace here when
// the caller sent none (a W3C traceparent with a new trace id), so that the
// service continues it: its logs and its X-Request-Id carry the same id,
// and so do the gateway's own answers (no route, a service down).
func traceRequest(r *http.Request) string {
	id, ok := traceID(r.Header.Get("Traceparent"))
	if !ok {
		var tid [16]byte
		var sid [8]byte
		_, _ = rand.Read(tid[:])
		_, _ = rand.Read(sid[:])
		id = hex.EncodeToString(tid[:])
		r.Header.Set("Traceparent", "00-"+id+"-"+hex.EncodeToString(sid[:])+"-01")
	}
	return id
}

// traceID is the trace id of a W3C traceparent ("00-<32 hex>-<16 hex>-<2
// hex>", ids not all zero).
func traceID(traceparent string) (string, bool) {
	parts := strings.Split(strings.TrimSpace(traceparent), "-")
	if len(parts) != 4 || len(parts[0]) != 2 || len(parts[1]) != 32 || len(parts[2]) != 16 || len(parts[3]) != 2 {
		return "", false
	}
	for _, p := range parts {
		if _, err := hex.DecodeString(p); err != nil || strings.ToLower(p) != p {
			return "", false
		}
	}
	if strings.Trim(parts[1], "0") == "" || strings.Trim(parts[2], "0") == "" || parts[0] == "ff" {
		return "", false
	}
	return parts[1], true
}

// statusClientClosedRequest is nginx's 499, as the services write it
// (server.StatusClientClosedRequest, docs/conventions.md): the client closed
// the connection before the answer.
const statusClientClosedRequest = 499

func writeError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "message": message})
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

// Flush keeps streaming responses working through the recorder.
func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// accessLog logs what only the gateway knows. An /api/ request below 500 is
// in the answering service's request log already (docs/conventions.md,
// Observability; an /api/ path with no route is logged where it is
// refused), so here it is DEBUG (LOG_LEVEL=debug shows it); a 5xx (the
// gateway's 502 when a service is down, or a service's failure) is WARN;
// the SPA's files are logged only when refused (405), at INFO; a page the
// table gives a service (page) is logged as an /api/ request. Every line
// costs Tilt, which reads the gateway's output, CPU on the cores the
// answers need: one line per request had logged each chat message twice.
func accessLog(logger *slog.Logger, page func(path string) bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		level := slog.LevelDebug
		switch {
		case rec.status >= 500:
			level = slog.LevelWarn
		case !strings.HasPrefix(r.URL.Path, "/api/") && !page(r.URL.Path):
			if rec.status < 400 {
				return // the SPA's own files
			}
			level = slog.LevelInfo
		}
		logger.Log(r.Context(), level, "request", "method", r.Method, "path", r.URL.Path, "status", rec.status,
			"duration_ms", time.Since(start).Milliseconds())
	})
}
