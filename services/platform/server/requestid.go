package server

import (
	"crypto/rand"
	"net/http"

	"go.opentelemetry.io/otel/trace"
)

// HeaderRequestID names the response header that carries a request's id:
// its trace id, which every log line of the request carries as trace_id
// (observability.TraceHandler), so a user's "Reference: …" finds them.
const HeaderRequestID = "X-Request-Id"

// withRequestID answers every request's id, set before the handler writes
// so that every answer (errors and streams included) has it. It runs
// inside otelhttp: the request's span continues the caller's trace (the
// gateway's traceparent) or starts one. With tracing off (a no-op
// provider) a span without a parent has no trace id; such a request gets a
// random one in its context, so that its logs and its downstream calls
// (propagated by otelgrpc) carry the id all the same.
func withRequestID(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sc := trace.SpanContextFromContext(r.Context())
		if !sc.IsValid() {
			var tid trace.TraceID
			var sid trace.SpanID
			_, _ = rand.Read(tid[:])
			_, _ = rand.Read(sid[:])
			sc = trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid})
			r = r.WithContext(trace.ContextWithSpanContext(r.Context(), sc))
		}
		w.Header().Set(HeaderRequestID, sc.TraceID().String())
		h.ServeHTTP(w, r)
	})
}

// noSniff tells browsers never to guess a response's type (an error's JSON
// rendered as HTML): every answer of a service carries it, whichever
// encoder wrote it.
func noSniff(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, r)
	})
}
