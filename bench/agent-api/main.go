// Command agent-api-bench measures the agent API of the running local stack
// (issue 17, "Speed"): -clients concurrent clients stream chat completions
// through the gateway with agent API keys against the LLM simulator (zero
// latency by default), then the same number of clients stream answers from
// the browser's chat endpoint, and it prints, side by side:
//
//   - answers per second (complete streams ending in [DONE] / done);
//   - time to first token and to the end of the stream (p50 / p99);
//   - the key check's own time as the service reports it per request
//     (Server-Timing "key;dur=…"), p50 / p99 / max — the target is a p99
//     ≤ 2 ms with the key cache — and, when -metrics is reachable, the
//     p99 of conversations_api_key_check_seconds over the run;
//   - refusals by status and code (429s mean the stack's rate limits are on:
//     start it with API_KEY_RATE_LIMIT=0 API_OWNER_RATE_LIMIT=0
//     CHAT_RATE_LIMIT=0 to measure throughput rather than the limits).
//
// It only talks to loopback addresses, and each phase is bounded by
// -duration and -max-requests. Not part of `make test`.
//
//	go run ./bench/agent-api                         # 64 clients, 15 s per phase
//	go run ./bench/agent-api -clients 16 -duration 5s -phases api
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const question = "What can you help me with?"

func main() {
	base := flag.String("base", "http://localhost:8080", "gateway origin (loopback only)")
	emulator := flag.String("emulator", "http://127.0.0.1:9099", "Firebase Auth emulator origin")
	firebaseKey := flag.String("firebase-api-key", "demo-api-key", "Firebase Web API key (emulator: any)")
	walletAddr := flag.String("wallet-grpc", "127.0.0.1:9104", "wallet internal gRPC address (funds the owner)")
	metrics := flag.String("metrics", "http://127.0.0.1:8106/metrics", "the conversations service's /metrics (\"\" to skip)")
	clients := flag.Int("clients", 64, "concurrent streaming clients")
	duration := flag.Duration("duration", 15*time.Second, "length of each phase")
	maxRequests := flag.Int("max-requests", 50_000, "at most this many requests per phase")
	keys := flag.Int("keys", 16, "API keys the clients share round-robin (at most 25 per agent)")
	phases := flag.String("phases", "api,chat", "phases to run: api, chat")
	fundDollars := flag.Int64("fund", 200, "dollars credited to the owner's wallet")
	flag.Parse()

	for _, u := range []string{*base, *emulator, *metrics} {
		if u == "" {
			continue
		}
		if err := loopbackOnly(u); err != nil {
			fatal(err)
		}
	}
	if host, _, ok := strings.Cut(*walletAddr, ":"); !ok || (host != "127.0.0.1" && host != "localhost" && host != "[::1]") {
		fatal(fmt.Errorf("-wallet-grpc %s is not a loopback address", *walletAddr))
	}
	*clients = min(max(*clients, 1), 512)
	*keys = min(max(*keys, 1), 25, *clients)
	*duration = min(max(*duration, time.Second), 10*time.Minute)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	s := &stack{base: strings.TrimRight(*base, "/"), emulator: strings.TrimRight(*emulator, "/"), firebaseKey: *firebaseKey,
		hc: newHTTPClient(*clients), run: hex.EncodeToString(b)}

	fmt.Printf("bench/agent-api run %s at %s — %s, %d clients, %s per phase, %d CPUs (GOMAXPROCS %d)\n",
		s.run, time.Now().Format(time.RFC3339), s.base, *clients, *duration, runtime.NumCPU(), runtime.GOMAXPROCS(0))

	// Setup: an owner with funds, an agent, keys, conversations.
	owner, err := s.signUp(ctx)
	if err != nil {
		fatal(err)
	}
	if err := fund(ctx, *walletAddr, owner.uid, s.run, *fundDollars*1_000_000); err != nil {
		fatal(fmt.Errorf("fund the owner: %w", err))
	}
	agentID, err := s.createAgent(ctx, owner)
	if err != nil {
		fatal(fmt.Errorf("create agent: %w", err))
	}
	model := "agentic/" + agentID
	var keyList []string
	for i := range *keys {
		k, err := s.createKey(ctx, owner, agentID, i+1)
		if err != nil {
			fatal(fmt.Errorf("create API key: %w", err))
		}
		keyList = append(keyList, k)
	}
	// Warm-up: one answer each way (the agent's monthly fee, connection set-up).
	if sm := s.apiCompletion(ctx, keyList[0], model, question); !sm.ok {
		fatal(fmt.Errorf("warm-up API request failed: status %d %s %v", sm.status, sm.code, sm.err))
	}
	// Every key used once (GET /api/v1/models), so that the run measures the
	// steady-state key check; a key's first check on a replica reads
	// PostgreSQL, and with 16 keys those 16 cold checks alone would be the
	// p99 of a short run.
	for _, k := range keyList {
		if err := s.do(ctx, "GET", s.base+"/api/v1/models", k, nil, nil); err != nil {
			fatal(fmt.Errorf("warm-up models request failed: %w", err))
		}
	}

	want := map[string]bool{}
	for _, p := range strings.Split(*phases, ",") {
		want[strings.TrimSpace(p)] = true
	}
	var results []phaseResult
	if want["api"] {
		before, herr := histogramOrNil(ctx, s, *metrics)
		r := runPhase(ctx, "agent API (/api/v1/chat/completions, stream)", *clients, *duration, *maxRequests, func(ctx context.Context, i int, _ int) sample {
			return s.apiCompletion(ctx, keyList[i%len(keyList)], model, question)
		})
		if herr == nil {
			if after, err := histogramOrNil(ctx, s, *metrics); err == nil {
				r.histP99, r.histN = quantileOf(after, before, 0.99)
			}
		}
		results = append(results, r)
	}
	if want["chat"] {
		convs := make([]string, *clients)
		for i := range convs {
			if convs[i], err = s.createConversation(ctx, owner, agentID); err != nil {
				fatal(fmt.Errorf("create conversation: %w", err))
			}
		}
		var seq atomic.Int64
		results = append(results, runPhase(ctx, "chat (/api/conversations/{id}/messages, SSE)", *clients, *duration, *maxRequests, func(ctx context.Context, i int, _ int) sample {
			return s.chatMessage(ctx, owner.token, convs[i], question, fmt.Sprintf("bench-%s-%d", s.run, seq.Add(1)))
		}))
	}
	report(results)
}

// phaseResult is one phase's figures.
type phaseResult struct {
	name            string
	elapsed         time.Duration
	answered        int
	ttft, total     []time.Duration
	keyCheck        []time.Duration
	refusals        map[string]int
	retryAfter      map[string]int
	histP99, histN  float64
	transportErrors int
}

func histogramOrNil(ctx context.Context, s *stack, u string) (histogram, error) {
	if u == "" {
		return nil, fmt.Errorf("no metrics URL")
	}
	return scrapeHistogram(ctx, s.hc, u, "conversations_api_key_check_seconds")
}

// runPhase runs clients goroutines, each sending one request after the
// other until the phase's time or request budget is used up.
func runPhase(ctx context.Context, name string, clients int, d time.Duration, maxReq int, send func(context.Context, int, int) sample) phaseResult {
	fmt.Printf("\n%s: running…\n", name)
	r := phaseResult{name: name, refusals: map[string]int{}, retryAfter: map[string]int{}, histP99: math.NaN()}
	var mu sync.Mutex
	var budget atomic.Int64
	budget.Store(int64(maxReq))
	pctx, cancel := context.WithTimeout(ctx, d+30*time.Second) // a stuck stream cannot hold the phase forever
	defer cancel()
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			for n := 0; time.Now().Before(deadline) && budget.Add(-1) >= 0 && pctx.Err() == nil; n++ {
				sm := send(pctx, i, n)
				mu.Lock()
				switch {
				case sm.err != nil && sm.status == 0:
					r.transportErrors++
				case sm.ok:
					r.answered++
					r.ttft = append(r.ttft, sm.ttft)
					r.total = append(r.total, sm.total)
				default:
					r.refusals[fmt.Sprintf("%d %s", sm.status, sm.code)]++
					if sm.retry != "" {
						r.retryAfter[sm.retry]++
					}
				}
				if sm.keyCheck >= 0 {
					r.keyCheck = append(r.keyCheck, sm.keyCheck)
				}
				mu.Unlock()
				if sm.status == 429 {
					// Rate limited: back off a little instead of hammering the limiter.
					time.Sleep(100 * time.Millisecond)
				}
			}
		})
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	return r
}

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

func dist(d []time.Duration) string {
	if len(d) == 0 {
		return "n/a"
	}
	return fmt.Sprintf("p50 %s  p99 %s  max %s  (n=%d)", ms(quantile(d, .5)), ms(quantile(d, .99)), ms(quantile(d, 1)), len(d))
}

func report(rs []phaseResult) {
	fmt.Println()
	for _, r := range rs {
		fmt.Printf("%s\n", r.name)
		fmt.Printf("  answers/s            %.1f  (%d answered in %s)\n", float64(r.answered)/r.elapsed.Seconds(), r.answered, r.elapsed.Round(time.Millisecond))
		fmt.Printf("  time to first token  %s\n", dist(r.ttft))
		fmt.Printf("  whole answer         %s\n", dist(r.total))
		if len(r.keyCheck) > 0 {
			p99 := quantile(r.keyCheck, .99)
			verdict := "within"
			if p99 > 2*time.Millisecond {
				verdict = "OVER"
			}
			fmt.Printf("  key check (service)  %s  — p99 %s the 2 ms target\n", dist(r.keyCheck), verdict)
		}
		if !math.IsNaN(r.histP99) && r.histN > 0 {
			fmt.Printf("  key check (/metrics) p99 ≈ %.3f ms over %.0f checks (histogram buckets)\n", r.histP99*1000, r.histN)
		}
		if r.transportErrors > 0 {
			fmt.Printf("  transport errors     %d\n", r.transportErrors)
		}
		if len(r.refusals) > 0 {
			var ks []string
			for k := range r.refusals {
				ks = append(ks, k)
			}
			sort.Strings(ks)
			for _, k := range ks {
				fmt.Printf("  refused              %-40s %d\n", k, r.refusals[k])
			}
			if r.refusals["429 rate_limit_exceeded"] > 0 || r.refusals["429 rate_limited"] > 0 {
				fmt.Println("  (429s: the stack's rate limits are on; see the command's doc comment)")
			}
		}
	}
	if len(rs) == 2 && rs[1].answered > 0 && rs[0].answered > 0 {
		a := float64(rs[0].answered) / rs[0].elapsed.Seconds()
		c := float64(rs[1].answered) / rs[1].elapsed.Seconds()
		fmt.Printf("\nagent API vs chat: %.1f vs %.1f answers/s (%.0f%%); TTFT p50 %s vs %s\n", a, c, 100*a/c,
			ms(quantile(rs[0].ttft, .5)), ms(quantile(rs[1].ttft, .5)))
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "agent-api-bench:", err)
	os.Exit(2)
}
