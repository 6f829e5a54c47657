package main

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The bench's readers against the two stream formats and the refusals.
func TestStreamsAndRefusals(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Header.Get("Authorization") == "Bearer agk_limited":
			w.Header().Set("Retry-After", "7")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(429)
			fmt.Fprint(w, `{"error":{"message":"slow down","type":"rate_limit_error","param":null,"code":"rate_limit_exceeded"}}`)
		case r.URL.Path == "/api/v1/chat/completions":
			w.Header().Set("Server-Timing", `key;desc="API key check";dur=0.137`)
			w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n")
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"Hi \"}}]}\n\n")
			fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"total_tokens\":3,\"cost\":0.0001}}\n\n")
			fmt.Fprint(w, "data: [DONE]\n\n")
		default:
			w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
			fmt.Fprint(w, "event: start\ndata: {}\n\nevent: delta\ndata: {\"text\":\"Hi\"}\n\nevent: done\ndata: {\"messageId\":\"m\"}\n\n")
		}
	}))
	defer srv.Close()
	s := &stack{base: srv.URL, hc: srv.Client()}
	ctx := context.Background()

	a := s.apiCompletion(ctx, "agk_ok", "agentic/x", "q")
	if !a.ok || a.status != 200 || a.ttft <= 0 || a.keyCheck != 137*time.Microsecond {
		t.Fatalf("api sample %+v", a)
	}
	c := s.chatMessage(ctx, "tok", "conv", "q", "c1")
	if !c.ok || c.ttft <= 0 || c.keyCheck != -1 {
		t.Fatalf("chat sample %+v", c)
	}
	l := s.apiCompletion(ctx, "agk_limited", "agentic/x", "q")
	if l.ok || l.status != 429 || l.code != "rate_limit_exceeded" || l.retry != "7" {
		t.Fatalf("429 sample %+v", l)
	}
}

func TestQuantileOfHistogram(t *testing.T) {
	before := histogram{0.001: 10, 0.002: 10, math.Inf(1): 10}
	after := histogram{0.001: 100, 0.002: 110, math.Inf(1): 110}
	// 100 new checks: 90 ≤ 1 ms, 10 in (1 ms, 2 ms]: p99 interpolates to 1.9 ms.
	if q, n := quantileOf(after, before, 0.99); n != 100 || math.Abs(q-0.0019) > 1e-9 {
		t.Fatalf("p99 %v over %v", q, n)
	}
}

func TestLoopbackOnly(t *testing.T) {
	for u, ok := range map[string]bool{"http://localhost:8080": true, "http://127.0.0.1:8106/metrics": true, "http://[::1]:8080": true,
		"http://10.0.0.5:8080": false, "https://agentic.example.com": false, "nonsense": false} {
		if err := loopbackOnly(u); (err == nil) != ok {
			t.Errorf("%s: %v", u, err)
		}
	}
}
