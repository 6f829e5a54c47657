package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentic-app/agentic/bench/benchstack"
)

// chatter is one of the concurrent "users": an owner with an agent (and its
// own wallet), plus optional extra accounts subscribed to that agent so that
// one chatter can keep sending under the per-user rate limit.
type chatter struct {
	owner    *account
	accounts []*account // owner first
	agent    *benchstack.Agent
	next     int
}

// pick returns an account with quota left in the current fixed window (the
// service's limiter: windows aligned to multiples of window), or how long to
// wait for the next window.
func (c *chatter) pick(limit int, window time.Duration) (*account, time.Duration) {
	now := time.Now().UnixNano()
	w := now / int64(window)
	for i := range c.accounts {
		acc := c.accounts[(c.next+i)%len(c.accounts)]
		if acc.window != w {
			acc.window, acc.used = w, 0
		}
		if limit <= 0 || acc.used < limit {
			c.next = (c.next + i + 1) % len(c.accounts)
			return acc, 0
		}
	}
	return nil, time.Duration((w+1)*int64(window)-now) + 50*time.Millisecond
}

type benchDoc struct {
	name, url, title, text string
}

// seededDoc picks the Algebra syllabus (else any shared Google Doc) of the Drive simulator.
func seededDoc(ctx context.Context, hc *http.Client, driveSim string) (benchDoc, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, driveSim+"/_sim/files", nil)
	resp, err := hc.Do(req)
	if err != nil {
		return benchDoc{}, fmt.Errorf("drive simulator: %w", err)
	}
	defer resp.Body.Close()
	var files []struct {
		ID, Title, Text, URL string
		AnyoneWithLink       bool
	}
	if err := json.NewDecoder(resp.Body).Decode(&files); err != nil {
		return benchDoc{}, fmt.Errorf("drive simulator files: %w", err)
	}
	var pick *benchDoc
	for _, f := range files {
		if !f.AnyoneWithLink || !strings.Contains(f.URL, "docs.google.com/document/") || len(f.Text) < 1000 {
			continue
		}
		d := benchDoc{name: "Syllabus", url: f.URL, title: f.Title, text: f.Text}
		if strings.Contains(strings.ToLower(f.Title), "algebra") {
			return d, nil
		}
		if pick == nil {
			pick = &d
		}
	}
	if pick == nil {
		return benchDoc{}, fmt.Errorf("the Drive simulator has no seeded document shared with anyone")
	}
	pick.name = "Handbook"
	return *pick, nil
}

// questions about doc that the simulator can match to a passage.
func questions(doc benchDoc, n int) []string {
	var qs []string
	if strings.Contains(strings.ToLower(doc.text), "office hours") {
		qs = append(qs, "When are the office hours of the instructor?")
	}
	for _, l := range strings.Split(doc.text, "\n") {
		w := strings.Fields(l)
		if len(w) < 8 {
			continue
		}
		qs = append(qs, "What does the document say about: "+strings.Join(w[:min(10, len(w))], " ")+"?")
		if len(qs) >= n {
			break
		}
	}
	if len(qs) == 0 {
		qs = append(qs, "What is this document about?")
	}
	return qs
}

const instructions = "Help the users of this agent with the linked document: answer from it, cite it, and say so when it does not cover a question."

// setupChatters signs up n owners (each with an agent, the document, k-1
// subscribers, and funds) with limited parallelism.
func setupChatters(ctx context.Context, a *api, w *benchstack.Wallet, n, k, par int, doc benchDoc, fund int64) ([]*chatter, error) {
	// The first failure stops the others: one that every chatter would hit
	// (a stack that refuses the bench) is reported at once, not after each
	// chatter has retried it in turn.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	out := make([]*chatter, n)
	var firstErr error
	var mu sync.Mutex
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	var done atomic.Int64
	for i := range out {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			c, err := func() (*chatter, error) {
				owner, err := a.signUp(ctx, "owner")
				if err != nil {
					return nil, err
				}
				ag, err := a.createAgent(ctx, owner, fmt.Sprintf("Bench Tutor %d", i+1), instructions)
				if err != nil {
					return nil, err
				}
				if err := a.linkDocument(ctx, owner, ag.ID, doc.name, doc.url, a.Wait); err != nil {
					return nil, err
				}
				if err := w.Credit(ctx, owner.UID, fund, "bench/conversations: latency run funding"); err != nil {
					return nil, fmt.Errorf("credit: %w", err)
				}
				c := &chatter{owner: owner, accounts: []*account{owner}, agent: ag}
				for j := 1; j < k; j++ {
					sub, err := a.signUp(ctx, "seat")
					if err != nil {
						return nil, err
					}
					if err := a.invite(ctx, owner, ag.ID, sub); err != nil {
						return nil, err
					}
					c.accounts = append(c.accounts, sub)
				}
				return c, nil
			}()
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
				stop()
			}
			out[i] = c
			if d := done.Add(1); d%16 == 0 || int(d) == n {
				logf("setup: %d/%d chatters ready", d, n)
			}
		})
	}
	wg.Wait()
	return out, firstErr
}

// --- the model's own time to first token ------------------------------------

// simPrompt is a prompt built like the service's (docs/llm.md layout) from the
// agent's passages for one question, sent straight to the LLM simulator.
type simPrompt struct {
	system, user string
}

func buildSimPrompt(agentName, instr string, ps []passage, question string) simPrompt {
	var b strings.Builder
	fmt.Fprintf(&b, "You are %s, an assistant created on Agentic. Answer in Markdown.\n", agentName)
	b.WriteString("\n## Instructions\n" + instr + "\n")
	b.WriteString("\n## Knowledge\n")
	if len(ps) == 0 {
		b.WriteString("No passage of the agent's documents is relevant to this message. If it asks about something the documents would cover, say that your documents do not cover it; cite nothing and do not invent facts about them.")
		return simPrompt{system: b.String(), user: question}
	}
	b.WriteString("Answer from the passages below when they are relevant. Cite every passage you use with its number in square brackets, for example [1]. If they do not contain the answer, say so instead of guessing.\n" +
		"In the instructions, @Name refers to a document and #label to the documents carrying that label; the numbers after a reference are its passages.")
	b.WriteString("\n\n<knowledge>\n")
	for i, p := range ps {
		fmt.Fprintf(&b, `<passage n="%d" document="%s"`, i+1, html.EscapeString(p.DocumentName))
		if len(p.Labels) > 0 {
			fmt.Fprintf(&b, ` labels="%s"`, html.EscapeString(strings.Join(p.Labels, " ")))
		}
		if p.URL != "" {
			fmt.Fprintf(&b, ` url="%s"`, html.EscapeString(p.URL))
		}
		b.WriteString(">\n" + strings.TrimSpace(p.Text) + "\n</passage>\n")
	}
	b.WriteString("</knowledge>")
	return simPrompt{system: b.String(), user: question}
}

type simSample struct {
	ttft                  time.Duration
	promptTok, completTok int64
}

// simOnce streams one completion from the simulator: time to the first
// non-empty content delta, and the usage it reports.
func simOnce(ctx context.Context, hc *http.Client, base, model string, p simPrompt, maxTokens int) (simSample, error) {
	body, _ := json.Marshal(map[string]any{
		"model": model, "stream": true, "stream_options": map[string]any{"include_usage": true},
		"max_completion_tokens": maxTokens, "user": "bench",
		"messages": []map[string]string{{"role": "system", "content": p.system}, {"role": "user", "content": p.user}},
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/chat/completions", bytes.NewReader(body))
	if err != nil {
		return simSample{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	t0 := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return simSample{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 500))
		return simSample{}, fmt.Errorf("simulator HTTP %d: %s", resp.StatusCode, b)
	}
	var s simSample
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 256<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "data: ") || line == "data: [DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
			Usage *struct {
				PromptTokens     int64 `json:"prompt_tokens"`
				CompletionTokens int64 `json:"completion_tokens"`
			} `json:"usage"`
		}
		if json.Unmarshal([]byte(line[6:]), &chunk) != nil {
			continue
		}
		if s.ttft == 0 && len(chunk.Choices) > 0 && chunk.Choices[0].Delta.Content != "" {
			s.ttft = time.Since(t0)
		}
		if chunk.Usage != nil {
			s.promptTok, s.completTok = chunk.Usage.PromptTokens, chunk.Usage.CompletionTokens
		}
	}
	return s, sc.Err()
}

// --- the run -----------------------------------------------------------------

type latencyConfig struct {
	users, accountsPerUser, turns, rateLimit, setupPar int
	rateWindow, duration                               time.Duration
	fund                                               int64
	simURL, simModel, metricsURL                       string
	serviceMetrics                                     []string
	maxOutput                                          int
	probeEvery                                         time.Duration
	// think is the mean pause of a user between an answer and the next
	// message (uniform in [think/2, 3·think/2]); 0: closed loop, each user
	// sends again at once (a load generator, not a person).
	think time.Duration
	// samplesPath, when set, receives one CSV line per answered message
	// (seconds since the run's start, TTFT in ms) to see when the slow
	// ones happen.
	samplesPath string
	// pgDSN, when set, is where PostgreSQL's activity is sampled during the
	// run (pgwaits.go): statements of agentic_* running ≥ pgWaitMin.
	pgDSN              string
	pgWaitMin, pgEvery time.Duration
}

func latencyRun(ctx context.Context, a *api, w *benchstack.Wallet, cfg latencyConfig, doc benchDoc) (fails []string, err error) {
	fmt.Printf("\n== Latency/throughput: %d concurrent users chatting through %s (SSE), %s, think time %s\n", cfg.users, a.Base, cfg.duration, thinkLabel(cfg.think))
	t0 := time.Now()
	chatters, err := setupChatters(ctx, a, w, cfg.users, cfg.accountsPerUser, cfg.setupPar, doc, cfg.fund)
	if err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}
	qs := questions(doc, 8)
	logf("setup: %d owners, %d accounts, agents with %q linked, in %s", len(chatters), len(chatters)*cfg.accountsPerUser,
		doc.title, time.Since(t0).Round(time.Millisecond))

	// Warm-up: one answer per chatter (pays a first-answer agent fee if the
	// wallet charges one, fills caches and connection pools). Not measured.
	var warmMu sync.Mutex
	warm := map[string]int{}
	var warmUsage []*usage
	var wg sync.WaitGroup
	for i, c := range chatters {
		wg.Go(func() {
			acc, _ := c.pick(cfg.rateLimit-1, cfg.rateWindow)
			if acc == nil {
				return
			}
			acc.used++
			conv, err := a.createConversation(ctx, acc, c.agent.ID, "warm-up")
			if err != nil {
				warmMu.Lock()
				warm["create conversation: "+err.Error()]++
				warmMu.Unlock()
				return
			}
			r := a.sendMessage(ctx, acc, conv, qs[i%len(qs)], fmt.Sprintf("warm-%s-%d", a.Run, i))
			warmMu.Lock()
			warm[r.outcome()]++
			if r.Usage != nil && i%len(qs) == 0 {
				warmUsage = append(warmUsage, r.Usage)
			}
			warmMu.Unlock()
		})
	}
	wg.Wait()
	logf("warm-up: %v", warm)

	// The model's own TTFT: the simulator directly, same prompt layout and
	// passages as the service sends (knowledge search of the same agent).
	prompts := make([]simPrompt, len(qs))
	for i, q := range qs {
		ps, err := a.search(ctx, chatters[0].owner, chatters[0].agent.ID, q, 8)
		if err != nil {
			logf("knowledge search for the model probe: %v (probe without passages)", err)
		}
		prompts[i] = buildSimPrompt(chatters[0].agent.Name, instructions, ps, q)
	}
	probeHC := benchstack.NewHTTPClient()
	var idle []time.Duration
	var probeTok int64
	for i := 0; i < 30; i++ {
		s, err := simOnce(ctx, probeHC, cfg.simURL, cfg.simModel, prompts[i%len(prompts)], cfg.maxOutput)
		if err != nil {
			logf("model probe: %v", err)
			break
		}
		idle = append(idle, s.ttft)
		if i == 0 {
			probeTok = s.promptTok
		}
	}
	if len(warmUsage) > 0 {
		fmt.Printf("  prompt size: the service's prompt for question 1 = %d input tokens; the probe's = %d (simulator's count)\n",
			warmUsage[0].InputTokens, probeTok)
	}

	// Metrics of the service before the run.
	hists := []string{"conversations_time_to_first_token_seconds", "conversations_platform_latency_seconds"}
	before, merr := scrapeHistograms(ctx, probeHC, cfg.metricsURL, hists...)
	seriesBefore := scrapeSeries(ctx, probeHC, cfg.serviceMetrics)

	// The run.
	load := startLoadSampler()
	pgw := startPGWaits(ctx, cfg.pgDSN, cfg.pgWaitMin, cfg.pgEvery)
	var (
		mu       sync.Mutex
		results  []*result
		loaded   []time.Duration // model TTFT under the same load
		throttle atomic.Int64    // ns spent waiting for rate-limit quota
	)
	runCtx, cancel := context.WithTimeout(ctx, cfg.duration)
	defer cancel()
	start := time.Now()
	var probeWG sync.WaitGroup
	probeWG.Go(func() {
		t := time.NewTicker(cfg.probeEvery)
		defer t.Stop()
		for i := 0; ; i++ {
			select {
			case <-runCtx.Done():
				return
			case <-t.C:
			}
			s, err := simOnce(ctx, probeHC, cfg.simURL, cfg.simModel, prompts[i%len(prompts)], cfg.maxOutput)
			if err == nil {
				mu.Lock()
				loaded = append(loaded, s.ttft)
				mu.Unlock()
			}
		}
	})
	for ci, c := range chatters {
		wg.Go(func() {
			if cfg.think > 0 {
				// People do not all press Send at the same instant: each
				// user's first message comes at a random point of one think
				// time, as it would in a steady stream of users (without it,
				// the run opens with all users' messages at once, a burst
				// that a closed-loop run measures anyway).
				select {
				case <-runCtx.Done():
					return
				case <-time.After(time.Duration(rand.Int64N(int64(cfg.think) + 1))):
				}
			}
			for n := 0; runCtx.Err() == nil; n++ {
				acc, wait := c.pick(cfg.rateLimit-1, cfg.rateWindow) // one below the limit: window edges
				if acc == nil {
					throttle.Add(int64(wait))
					select {
					case <-runCtx.Done():
						return
					case <-time.After(wait):
					}
					continue
				}
				if acc.conv == "" || acc.turns >= cfg.turns {
					conv, err := a.createConversation(runCtx, acc, c.agent.ID, fmt.Sprintf("bench %d", n))
					if err != nil {
						if runCtx.Err() != nil {
							return
						}
						mu.Lock()
						results = append(results, &result{Code: "create conversation failed", Err: err})
						mu.Unlock()
						time.Sleep(200 * time.Millisecond)
						continue
					}
					acc.conv, acc.turns = conv, 0
				}
				acc.used++
				acc.turns++
				// The message itself is not cut at the deadline: in-flight answers finish.
				r := a.sendMessage(ctx, acc, acc.conv, qs[(ci+n)%len(qs)], fmt.Sprintf("m-%s-%d-%d", a.Run, ci, n))
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
				if r.Status == 0 || r.Status >= 500 {
					time.Sleep(100 * time.Millisecond) // a restarting service: do not spin
				}
				if cfg.think > 0 {
					pause := cfg.think/2 + time.Duration(rand.Int64N(int64(cfg.think)+1))
					select {
					case <-runCtx.Done():
						return
					case <-time.After(pause):
					}
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	probeWG.Wait()
	loadLine := load.Stop()
	pgLines := pgw.Stop()
	after, merr2 := scrapeHistograms(ctx, probeHC, cfg.metricsURL, hists...)
	seriesAfter := scrapeSeries(ctx, probeHC, cfg.serviceMetrics)

	// Report.
	outcomes := map[string]int{}
	var ttft, total, platform, own, modelSeen []time.Duration
	answered, cited := 0, 0
	for _, r := range results {
		k := r.outcome()
		if r.Err != nil && r.Status == 0 {
			k = "transport error: " + shortErr(r.Err)
			if r.Code != "" {
				k = r.Code + ": " + shortErr(r.Err)
			}
		}
		outcomes[k]++
		if r.answered() {
			answered++
			ttft = append(ttft, r.TTFT)
			total = append(total, r.Total)
			if r.ModelTTFT > 0 {
				modelSeen = append(modelSeen, r.ModelTTFT)
				own = append(own, r.TTFT-r.ModelTTFT)
			}
			if r.Citations > 0 {
				cited++
			}
		}
	}
	if cfg.samplesPath != "" {
		if err := writeSamples(cfg.samplesPath, start, results); err != nil {
			fmt.Println("  samples:", err)
		}
	}
	modelP50 := benchstack.Quantile(benchstack.SortedCopy(loaded), .5)
	if len(loaded) == 0 {
		modelP50 = benchstack.Quantile(benchstack.SortedCopy(idle), .5)
	}
	for _, d := range ttft {
		platform = append(platform, d-modelP50)
	}
	fmt.Printf("  messages sent: %d in %s; answered %d (%d with citations)\n", len(results), elapsed.Round(time.Millisecond), answered, cited)
	fmt.Printf("  answers/s: %.1f\n", float64(answered)/elapsed.Seconds())
	fmt.Printf("  outcomes by status:")
	for _, k := range slices.Sorted(maps.Keys(outcomes)) {
		fmt.Printf(" [%s ×%d]", k, outcomes[k])
	}
	fmt.Println()
	if th := time.Duration(throttle.Load()); th > 0 {
		fmt.Printf("  client-side pacing under the per-user limit (%d/%s): %s of waiting in total\n", cfg.rateLimit, cfg.rateWindow, th.Round(time.Millisecond))
	}
	fmt.Printf("  client TTFT (request → first delta):    %s\n", dist(ttft))
	fmt.Printf("  client full answer (request → done):    %s\n", dist(total))
	fmt.Printf("  model TTFT, simulator direct, idle:     %s\n", dist(idle))
	fmt.Printf("  model TTFT, simulator direct, in run:   %s\n", dist(loaded))
	fmt.Printf("  model TTFT, as the service saw it:      %s (Server-Timing \"model\" of %d answers)\n", dist(modelSeen), len(modelSeen))
	fmt.Printf("  platform-added, each answer (client TTFT − its own model TTFT): %s\n", dist(own))
	fmt.Printf("  platform-added, one subtrahend (client TTFT − model TTFT p50 in run = %s): %s\n", benchstack.MS(modelP50), dist(platform))
	// Each answer's own model time is the exact subtrahend; the in-run
	// median of the direct probe is the fallback for a service that sends
	// no Server-Timing, and charges the model's own spread to the platform.
	measured, how := own, "each answer"
	if len(own) < answered {
		measured, how = platform, "one subtrahend"
	}
	p99 := benchstack.Quantile(benchstack.SortedCopy(measured), .99)
	verdict := "MET"
	if p99 > 25*time.Millisecond {
		verdict = "NOT MET"
	}
	fmt.Printf("  target platform-added p99 ≤ 25 ms: %s (p99 %s, %s)\n", verdict, benchstack.MS(p99), how)
	if merr == nil && merr2 == nil {
		for _, n := range hists {
			d := after[n].sub(before[n])
			p50, cnt := d.quantile(.5)
			p99s, _ := d.quantile(.99)
			if cnt == 0 || math.IsNaN(p50) {
				fmt.Printf("  service metric %s: no observations in the run\n", n)
				continue
			}
			fmt.Printf("  service metric %s: p50 %s  p99 %s (n=%.0f, from histogram buckets)\n", n, fmtQ(p50, d), fmtQ(p99s, d), cnt)
		}
	} else {
		fmt.Printf("  service metrics unavailable: %v %v\n", merr, merr2)
	}
	printBreakdown(seriesBefore, seriesAfter)
	printCPU(cfg.serviceMetrics, seriesBefore, seriesAfter, answered, elapsed)
	fmt.Printf("  %s\n", loadLine)
	for _, l := range pgLines {
		fmt.Printf("  %s\n", l)
	}
	for k, v := range outcomes {
		if k != "200 answered" {
			fails = append(fails, fmt.Sprintf("latency run: %d × %s", v, k))
		}
	}
	return fails, nil
}

func shortErr(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func thinkLabel(d time.Duration) string {
	if d <= 0 {
		return "none (closed loop)"
	}
	return fmt.Sprintf("%s mean (uniform %s–%s)", d, d/2, d*3/2)
}

// writeSamples writes "sent_s,ttft_ms,model_ms,service_ms,<stage>_ms…" for
// every answered message, in the order they were sent: model_ms and
// service_ms are the model's part of the TTFT and the conversations
// service's own time before the model, as the service reported them (0
// when it did not), then service_ms by stage; the rest of ttft_ms is the
// gateway, the network and the client; last the send time as Unix seconds.
func writeSamples(path string, start time.Time, results []*result) error {
	var b strings.Builder
	b.WriteString("sent_s,ttft_ms,model_ms,service_ms")
	for _, n := range stageNames {
		b.WriteString("," + n + "_ms")
	}
	b.WriteString(",sent_unix_s\n")
	rs := slices.Clone(results)
	slices.SortFunc(rs, func(x, y *result) int { return x.Sent.Compare(y.Sent) })
	for _, r := range rs {
		if r.answered() {
			fmt.Fprintf(&b, "%.3f,%.1f,%.1f,%.1f", r.Sent.Sub(start).Seconds(), ms(r.TTFT), ms(r.ModelTTFT), ms(r.Before))
			for _, d := range r.Stages {
				fmt.Fprintf(&b, ",%.1f", ms(d))
			}
			// Wall-clock time, to line an answer up with other tools'
			// records (perf record -k realtime, logs).
			fmt.Fprintf(&b, ",%.6f\n", float64(r.Sent.UnixMicro())/1e6)
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
