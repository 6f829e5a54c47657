package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// What the run cost the stack, to tell the service's own time from
// queueing: the catalog's /metrics (server-side time per route, waits for a
// database connection) and each process's CPU time from /proc (Linux).
// Both are read when the recorded part starts and when it ends.

// catalogRoutes are the routes the bench loads, as the catalog labels them.
var catalogRoutes = []string{"GET /api/marketplace/agents", "GET /api/marketplace/agents/{slug}", "GET /api/marketplace/categories"}

// processes whose CPU time is summed (by command name; "bench" is this
// program).
var processes = []string{"postgres", "catalog", "gateway", "documents", "redis-server"}

type sumCount struct{ sum, count float64 }

// snapshot is one reading.
type snapshot struct {
	at     time.Time
	routes map[string]sumCount // seconds
	// pool: acquires, acquires that found no idle connection, their wait (s).
	acquires, emptyAcquires, emptyWait, maxConns float64
	cpu                                          map[string]float64 // seconds by process name
	ok                                           bool               // the metrics were read
}

func takeSnapshot(ctx context.Context, hc *http.Client, metricsURL string) snapshot {
	s := snapshot{at: time.Now(), routes: map[string]sumCount{}, cpu: procCPU()}
	if metricsURL == "" {
		return s
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metricsURL, nil)
	if err != nil {
		return s
	}
	resp, err := hc.Do(req)
	if err != nil {
		return s
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return s
	}
	s.ok = parseMetrics(resp.Body, &s) == nil
	return s
}

// parseMetrics reads the series the report needs from a Prometheus text page.
func parseMetrics(r io.Reader, s *snapshot) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "pgxpool_acquire_count":
			s.acquires = v
		case "pgxpool_empty_acquire":
			s.emptyAcquires = v
		case "pgxpool_empty_acquire_wait_time_ns":
			s.emptyWait = v / 1e9
		case "pgxpool_max_conns":
			s.maxConns = v
		}
		for _, route := range catalogRoutes {
			if !strings.Contains(line, `route="`+route+`"`) {
				continue
			}
			x := s.routes[route]
			switch {
			case strings.HasPrefix(line, "http_request_duration_seconds_sum{"):
				x.sum += v
			case strings.HasPrefix(line, "http_request_duration_seconds_count{"):
				x.count += v
			}
			s.routes[route] = x
		}
	}
	return sc.Err()
}

// procCPU sums user + system time of the processes by command name, and
// of this program as "bench"; nil without /proc.
func procCPU() map[string]float64 {
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil || len(dirs) == 0 {
		return nil
	}
	out := map[string]float64{}
	self := strconv.Itoa(os.Getpid())
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue
		}
		name, ticks, ok := statCPU(string(b))
		if !ok {
			continue
		}
		if filepath.Base(d) == self {
			out["bench"] += ticks / clockTicks
			continue
		}
		for _, p := range processes {
			if name == p {
				out[p] += ticks / clockTicks
			}
		}
	}
	return out
}

// clockTicks is USER_HZ, 100 on Linux.
const clockTicks = 100

// statCPU parses /proc/<pid>/stat: the command name and utime + stime.
func statCPU(stat string) (string, float64, bool) {
	open, end := strings.IndexByte(stat, '('), strings.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return "", 0, false
	}
	f := strings.Fields(stat[end+1:])
	// After the name: state(0) ppid … utime is field 14 of the line, 11 here.
	if len(f) < 13 {
		return "", 0, false
	}
	u, err1 := strconv.ParseFloat(f[11], 64)
	s, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return "", 0, false
	}
	return stat[open+1 : end], u + s, true
}

// printCost writes what the recorded part cost, per request.
func printCost(out io.Writer, before, after snapshot, requests int) {
	if requests == 0 {
		return
	}
	if before.ok && after.ok {
		fmt.Fprintln(out, "catalog, server side (its /metrics over the recorded part; other traffic to the catalog counts too):")
		for _, r := range catalogRoutes {
			a, b := after.routes[r], before.routes[r]
			if n := a.count - b.count; n > 0 {
				fmt.Fprintf(out, "  %-36s mean %6.1f ms  (n=%.0f)\n", r, (a.sum-b.sum)/n*1000, n)
			}
		}
		if acq := after.acquires - before.acquires; acq > 0 {
			waits := after.emptyAcquires - before.emptyAcquires
			mean := 0.0
			if waits > 0 {
				mean = (after.emptyWait - before.emptyWait) / waits * 1000
			}
			fmt.Fprintf(out, "  database pool (max %.0f connections): %.0f of %.0f acquires waited for a connection, %.1f ms on average\n",
				after.maxConns, waits, acq, mean)
		}
	}
	if len(before.cpu) > 0 && len(after.cpu) > 0 {
		el := after.at.Sub(before.at).Seconds()
		fmt.Fprintf(out, "CPU per request (/proc utime+stime over the recorded part, %d requests):", requests)
		var total float64
		for _, p := range append(processes, "bench") {
			d := after.cpu[p] - before.cpu[p]
			if d <= 0 {
				continue
			}
			total += d
			fmt.Fprintf(out, " %s %.2f ms;", p, d/float64(requests)*1000)
		}
		fmt.Fprintf(out, " together %.2f ms, %.2f CPUs busy on average\n", total/float64(requests)*1000, total/el)
	}
}
