package main

import (
	"strings"
	"testing"
)

func TestStatCPU(t *testing.T) {
	stat := "2232 (postgres: bg writer) S 1 2232 2232 0 -1 4194368 180 0 0 0 41 17 0 0 20 0 1 0 1234 0 0"
	name, ticks, ok := statCPU(stat)
	if !ok || name != "postgres: bg writer" || ticks != 58 {
		t.Errorf("got %q %v %v", name, ticks, ok)
	}
	if _, _, ok := statCPU("garbage"); ok {
		t.Error("parsed garbage")
	}
}

func TestParseMetrics(t *testing.T) {
	page := `# HELP http_request_duration_seconds HTTP request latency by method and route.
http_request_duration_seconds_bucket{method="GET",route="GET /api/marketplace/agents",le="0.005"} 566
http_request_duration_seconds_sum{method="GET",route="GET /api/marketplace/agents"} 12.5
http_request_duration_seconds_count{method="GET",route="GET /api/marketplace/agents"} 500
http_request_duration_seconds_sum{method="GET",route="GET /api/marketplace/agents/{slug}/reviews"} 1
http_request_duration_seconds_count{method="GET",route="GET /api/marketplace/agents/{slug}"} 7
pgxpool_acquire_count 22082
pgxpool_empty_acquire 3335
pgxpool_empty_acquire_wait_time_ns 1.5e+09
pgxpool_max_conns 4
`
	var s snapshot
	s.routes = map[string]sumCount{}
	if err := parseMetrics(strings.NewReader(page), &s); err != nil {
		t.Fatal(err)
	}
	if got := s.routes["GET /api/marketplace/agents"]; got.sum != 12.5 || got.count != 500 {
		t.Errorf("agents: %+v", got)
	}
	if got := s.routes["GET /api/marketplace/agents/{slug}"]; got.sum != 0 || got.count != 7 {
		t.Errorf("profile (reviews must not count): %+v", got)
	}
	if s.acquires != 22082 || s.emptyAcquires != 3335 || s.emptyWait != 1.5 || s.maxConns != 4 {
		t.Errorf("pool: %+v", s)
	}
}
