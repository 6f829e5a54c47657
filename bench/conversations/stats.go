package main

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentic-app/agentic/bench/benchstack"
)

// dist formats p50/p90/p99/max of d.
func dist(d []time.Duration) string {
	if len(d) == 0 {
		return "n/a (no samples)"
	}
	return benchstack.Dist(d)
}

// --- load average ---------------------------------------------------------

type loadSampler struct {
	mu      sync.Mutex
	samples []float64
	stop    chan struct{}
	done    chan struct{}
}

func readLoad1() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return v, err == nil
}

func startLoadSampler() *loadSampler {
	l := &loadSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			if v, ok := readLoad1(); ok {
				l.mu.Lock()
				l.samples = append(l.samples, v)
				l.mu.Unlock()
			}
			select {
			case <-l.stop:
				return
			case <-t.C:
			}
		}
	}()
	return l
}

// Stop returns "load average (1 min) during the run: min … mean … max".
func (l *loadSampler) Stop() string {
	close(l.stop)
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.samples) == 0 {
		return "load average: unavailable"
	}
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	for _, v := range l.samples {
		lo, hi, sum = math.Min(lo, v), math.Max(hi, v), sum+v
	}
	return fmt.Sprintf("load average (1 min) during the run: start %.1f, mean %.1f, max %.1f (%d CPUs)",
		l.samples[0], sum/float64(len(l.samples)), hi, numCPU())
}

func numCPU() int {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\nprocessor") + boolInt(strings.HasPrefix(string(b), "processor"))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// --- Prometheus histograms ----------------------------------------------

// histogram is the cumulative bucket counts of one metric, summed over its
// label sets (le → count).
type histogram map[float64]float64

// scrapeHistograms reads the named histograms from a Prometheus text page.
func scrapeHistograms(ctx context.Context, hc *http.Client, url string, names ...string) (map[string]histogram, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d", url, resp.StatusCode)
	}
	out := map[string]histogram{}
	for _, n := range names {
		out[n] = histogram{}
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		for _, n := range names {
			if !strings.HasPrefix(line, n+"_bucket{") {
				continue
			}
			i := strings.Index(line, `le="`)
			if i < 0 {
				continue
			}
			rest := line[i+4:]
			j := strings.IndexByte(rest, '"')
			if j < 0 {
				continue
			}
			le, err := strconv.ParseFloat(rest[:j], 64)
			if err != nil {
				continue
			}
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err != nil {
				continue
			}
			out[n][le] += v
		}
	}
	return out, sc.Err()
}

// sub returns h − prev (per bucket).
func (h histogram) sub(prev histogram) histogram {
	d := histogram{}
	for le, v := range h {
		d[le] = v - prev[le]
	}
	return d
}

// quantile estimates q by linear interpolation inside the bucket, as
// PromQL's histogram_quantile does; a quantile beyond the last finite bucket
// is returned as +Inf.
func (h histogram) quantile(q float64) (float64, float64) {
	les := make([]float64, 0, len(h))
	for le := range h {
		les = append(les, le)
	}
	sort.Float64s(les)
	if len(les) == 0 {
		return math.NaN(), 0
	}
	total := h[les[len(les)-1]]
	if total <= 0 {
		return math.NaN(), 0
	}
	rank := q * total
	prevLE, prevC := 0.0, 0.0
	for _, le := range les {
		c := h[le]
		if c >= rank {
			if math.IsInf(le, 1) {
				return math.Inf(1), total // beyond the last finite bucket (prevLE)
			}
			if c == prevC {
				return le, total
			}
			return prevLE + (le-prevLE)*(rank-prevC)/(c-prevC), total
		}
		prevLE, prevC = le, c
	}
	return prevLE, total
}

// series is one Prometheus summary-like pair (name_sum, name_count) whose
// labels contain every string of labels; the means during a run show where
// the time of an answer goes.
type series struct {
	label, name string
	labels      []string
}

var breakdown = []series{
	{"catalog CheckAccess (gRPC, cached 10 s in conversations)", "catalog_request_duration_seconds", []string{`method="CheckAccess"`, `outcome="success"`}},
	{"documents Search (gRPC)", "documents_request_duration_seconds", []string{`method="Search"`, `outcome="success"`}},
	{"wallet Reserve (gRPC, before the model)", "wallet_request_duration_seconds", []string{`method="Reserve"`, `outcome="success"`}},
	{"wallet Capture (gRPC, after the answer)", "wallet_request_duration_seconds", []string{`method="Capture"`, `outcome="success"`}},
	{"conversations SendMessage (whole answer)", "conversations_request_duration_seconds", []string{`method="SendMessage"`, `outcome="success"`}},
	{"conversations time to first token", "conversations_time_to_first_token_seconds", nil},
	{"conversations platform latency (TTFT − model)", "conversations_platform_latency_seconds", nil},
	{"  stage lookup (conversation, access, replay check)", "conversations_answer_stage_seconds", []string{`stage="lookup"`}},
	{"  stage limit (rate limits, Redis)", "conversations_answer_stage_seconds", []string{`stage="limit"`}},
	{"  stage context (history ‖ knowledge, prompt)", "conversations_answer_stage_seconds", []string{`stage="context"`}},
	{"  stage begin (turn and charge recorded)", "conversations_answer_stage_seconds", []string{`stage="begin"`}},
	{"  stage reserve (wallet hold, as the caller sees it)", "conversations_answer_stage_seconds", []string{`stage="reserve"`}},
	{"  stage model (model start → first token)", "conversations_answer_stage_seconds", []string{`stage="model"`}},
}

type sumCount struct{ sum, count float64 }

// cpuKey is the key of a service's process_cpu_seconds_total in the scraped map.
func cpuKey(url string) string { return "cpu " + url }

// poolKey is the key of a service's database pool waits in the scraped map:
// count = acquires that found no idle connection, sum = their wait in ms
// (pgxpool_empty_acquire, pgxpool_empty_acquire_wait_time_ns).
func poolKey(url string) string { return "pool " + url }

// metricValue is the value of line if it is the unlabelled series name.
func metricValue(line, name string) (float64, bool) {
	if !strings.HasPrefix(line, name+" ") {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.Fields(line)[1], 64)
	return v, err == nil
}

// scrapeSeries reads the sum/count of every breakdown series from urls.
func scrapeSeries(ctx context.Context, hc *http.Client, urls []string) map[string]sumCount {
	out := map[string]sumCount{}
	for _, u := range urls {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			continue
		}
		resp, err := hc.Do(req)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if v, ok := metricValue(line, "process_cpu_seconds_total"); ok {
				out[cpuKey(u)] = sumCount{sum: v, count: 1}
			}
			if v, ok := metricValue(line, "pgxpool_empty_acquire"); ok {
				x := out[poolKey(u)]
				x.count = v
				out[poolKey(u)] = x
			}
			if v, ok := metricValue(line, "pgxpool_empty_acquire_wait_time_ns"); ok {
				x := out[poolKey(u)]
				x.sum = v / 1e6
				out[poolKey(u)] = x
			}
			for _, s := range breakdown {
				var field string
				switch {
				case strings.HasPrefix(line, s.name+"_sum"):
					field = "sum"
				case strings.HasPrefix(line, s.name+"_count"):
					field = "count"
				default:
					continue
				}
				ok := true
				for _, l := range s.labels {
					ok = ok && strings.Contains(line, l)
				}
				if !ok {
					continue
				}
				f := strings.Fields(line)
				v, err := strconv.ParseFloat(f[len(f)-1], 64)
				if err != nil {
					continue
				}
				x := out[s.label]
				if field == "sum" {
					x.sum += v
				} else {
					x.count += v
				}
				out[s.label] = x
			}
		}
		resp.Body.Close()
	}
	return out
}

// printCPU prints each service's CPU time per answer during the run, and
// its database pool's waits for a connection (none is the expected figure:
// a wait is time an answer spends before its query even starts).
func printCPU(urls []string, before, after map[string]sumCount, answers int, elapsed time.Duration) {
	if answers == 0 {
		return
	}
	fmt.Printf("  CPU per answer (process_cpu_seconds_total deltas), database pool waits:")
	for _, u := range urls {
		a, okA := after[cpuKey(u)]
		b, okB := before[cpuKey(u)]
		if !okA || !okB || a.sum < b.sum {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/metrics")
		pool := ""
		if pa, ok := after[poolKey(u)]; ok {
			pb := before[poolKey(u)]
			pool = fmt.Sprintf(", %.0f pool waits (%.0f ms)", pa.count-pb.count, pa.sum-pb.sum)
		}
		fmt.Printf(" [%s %.1f ms, %.0f%% of a core%s]", name, (a.sum-b.sum)/float64(answers)*1000, (a.sum-b.sum)/elapsed.Seconds()*100, pool)
	}
	fmt.Println()
}

func printBreakdown(before, after map[string]sumCount) {
	fmt.Println("  server-side means during the run (Prometheus _sum/_count deltas; every client of those services counts):")
	for _, s := range breakdown {
		a, b := after[s.label], before[s.label]
		n := a.count - b.count
		if n < 0 || a.sum < b.sum {
			fmt.Printf("    %-52s counters went down: the service restarted during the run\n", s.label)
			continue
		}
		if n == 0 {
			continue
		}
		fmt.Printf("    %-52s %7.1f ms  (n=%.0f)\n", s.label, (a.sum-b.sum)/n*1000, n)
	}
}

// fmtQ formats a histogram quantile in milliseconds.
func fmtQ(v float64, h histogram) string {
	if math.IsInf(v, 1) {
		last := 0.0
		for le := range h {
			if !math.IsInf(le, 1) && le > last {
				last = le
			}
		}
		return fmt.Sprintf("> %.0f ms (beyond the last bucket)", last*1000)
	}
	return fmt.Sprintf("≈ %.1f ms", v*1000)
}
