package main

import (
	"context"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentic-app/agentic/bench/benchstack"
)

// --- pricing (docs/llm.md, docs/conversations.md) ----------------------------

type price struct{ in, out int64 } // micro-dollars per 1M tokens

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

func (p price) cost(in, out int64) int64 { return ceilDiv(in*p.in+out*p.out, 1_000_000) }
func fee(cost int64) int64               { return ceilDiv(cost*3, 100) }
func total(cost int64) int64             { return cost + fee(cost) }

// reserveInputTokens mirrors conversations.ReserveInputTokens: n + n/20 + 32.
func reserveInputTokens(n int64) int64 { return n + n/20 + 32 }

// worstCase is what one answer with a prompt of in tokens reserves.
func (p price) worstCase(in int64, maxOut int64) int64 {
	return total(p.cost(reserveInputTokens(in), maxOut))
}

func usd(micros int64) string { return fmt.Sprintf("$%.6f", float64(micros)/1e6) }

// --- checks --------------------------------------------------------------------

type checks struct{ fails []string }

func (c *checks) check(ok bool, name, detail string, args ...any) {
	d := fmt.Sprintf(detail, args...)
	if ok {
		fmt.Printf("  PASS  %s — %s\n", name, d)
		return
	}
	fmt.Printf("  FAIL  %s — %s\n", name, d)
	c.fails = append(c.fails, name+": "+d)
}

func note(format string, args ...any) { fmt.Printf("  NOTE  "+format+"\n", args...) }

// --- the money run -----------------------------------------------------------------

type moneyConfig struct {
	messages, answers, senders, setupPar int
	drain                                bool
	price                                price
	maxOut                               int64
	rateLimit                            int
	rateWindow                           time.Duration
}

type pollStats struct {
	n, negative                   atomic.Int64
	mu                            sync.Mutex
	minAvail, minBalance, maxHeld int64
	firstBad                      string
}

func (p *pollStats) add(bal, held int64) {
	p.n.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	avail := bal - held
	if p.n.Load() == 1 || avail < p.minAvail {
		p.minAvail = avail
	}
	if p.n.Load() == 1 || bal < p.minBalance {
		p.minBalance = bal
	}
	p.maxHeld = max(p.maxHeld, held)
	if avail < 0 || bal < 0 || held < 0 {
		p.negative.Add(1)
		if p.firstBad == "" {
			p.firstBad = fmt.Sprintf("balance %d held %d available %d µ$ at %s", bal, held, avail, time.Now().Format(time.RFC3339Nano))
		}
	}
}

func moneyRun(ctx context.Context, a *api, w *benchstack.Wallet, cfg moneyConfig, doc benchDoc) ([]string, error) {
	c := &checks{}
	fmt.Printf("\n== Money correctness: %d concurrent messages against one owner's wallet holding %d worst-case reserves\n",
		cfg.messages, cfg.answers)
	q := questions(doc, 1)[0]

	// 1. The owner, the agent, its knowledge, the senders (active subscribers: the owner pays).
	owner, err := a.signUp(ctx, "payer")
	if err != nil {
		return nil, err
	}
	ag, err := a.createAgent(ctx, owner, "Money Bench Tutor", instructions)
	if err != nil {
		return nil, err
	}
	if err := a.linkDocument(ctx, owner, ag.ID, doc.name, doc.url, a.Wait); err != nil {
		return nil, err
	}
	const fund0 = 10_050_000 // a $10 agent fee (if the wallet charges one) + the calibration answer
	if err := w.Credit(ctx, owner.UID, fund0, "bench/conversations: money run funding"); err != nil {
		return nil, fmt.Errorf("credit: %w", err)
	}
	senders := make([]*account, cfg.senders)
	var setupErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, cfg.setupPar)
	for i := range senders {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			s, err := a.signUp(ctx, "sender")
			if err == nil {
				err = a.invite(ctx, owner, ag.ID, s)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil && setupErr == nil {
				setupErr = err
			}
			senders[i] = s
		})
	}
	wg.Wait()
	if setupErr != nil {
		return nil, fmt.Errorf("senders: %w", setupErr)
	}
	pool := &chatter{accounts: senders}

	// 2. Calibration: one answer to the same question in a fresh conversation
	// (the run's prompts are identical: same agent, same question, no history).
	calConv, err := a.createConversation(ctx, owner, ag.ID, "calibration")
	if err != nil {
		return nil, err
	}
	cal := a.sendMessage(ctx, owner, calConv, q, "cal-"+a.Run)
	if !cal.answered() || cal.Usage == nil {
		return nil, fmt.Errorf("calibration answer failed: %s %s %v", cal.outcome(), cal.Message, cal.Err)
	}
	u := *cal.Usage
	reserve := cfg.price.worstCase(u.InputTokens, cfg.maxOut)
	fmt.Printf("  calibration answer: %d input + %d output tokens = %s (cost %d + fee %d µ$); worst-case reserve R = %s\n",
		u.InputTokens, u.OutputTokens, usd(u.TotalMicros), u.CostMicros, u.FeeMicros, usd(reserve))
	fmt.Printf("    R = ceil-priced (in + in/20 + 32 = %d input, %d output tokens) + 3%% fee, prices %d/%d µ$ per 1M tokens\n",
		reserveInputTokens(u.InputTokens), cfg.maxOut, cfg.price.in, cfg.price.out)
	checkUsage(c, "calibration usage arithmetic", cfg.price, []usage{u})

	hist0, err := a.transactions(ctx, owner)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	var feeMicros int64
	var feeDesc string
	for _, t := range hist0 {
		if t.Type == "expense" && strings.HasPrefix(t.Description, "Agentic User fee") {
			feeMicros += t.micros()
			feeDesc = t.Description
		}
	}
	if feeMicros > 0 {
		fmt.Printf("  agent fee charged at the first answer: %s (%q)\n", usd(feeMicros), feeDesc)
	} else {
		var fees any
		ferr := a.Do(ctx, http.MethodGet, a.Base+"/api/user/agent-fees", owner.Token, nil, &fees)
		note("no agent fee ('Agentic User fee …' expense) was charged at the agent's first answer (history: %d entries; GET /api/user/agent-fees → %v %v)",
			len(hist0), fees, ferr)
	}
	bal, held, err := w.Balance(ctx, owner.UID)
	if err != nil {
		return nil, err
	}
	c.check(bal == fund0-feeMicros-u.TotalMicros && held == 0, "calibration ledger",
		"balance %s = funding %s − fee %s − answer %s (held %d)", usd(bal), usd(fund0), usd(feeMicros), usd(u.TotalMicros), held)

	// 3. Available money = answers × R + R/2: at most `answers` reserves can be open at once.
	target := int64(cfg.answers)*reserve + reserve/2
	if avail := bal - held; avail < target {
		err = w.Credit(ctx, owner.UID, target-avail, "bench/conversations: money run top-up to the target")
	} else if avail > target {
		err = w.Charge(ctx, owner.UID, avail-target, "bench/conversations: trim to the target")
	}
	if err != nil {
		return nil, fmt.Errorf("set the target balance: %w", err)
	}
	b0, h0, err := w.Balance(ctx, owner.UID)
	if err != nil {
		return nil, err
	}
	if b0-h0 != target {
		return nil, fmt.Errorf("could not set the balance: available %d µ$, wanted %d", b0-h0, target)
	}
	fmt.Printf("  wallet before the run: available %s = %d × R + R/2\n", usd(target), cfg.answers)
	histBefore, err := a.transactions(ctx, owner)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, t := range histBefore {
		known[t.ID] = true
	}

	// 4. One conversation per message, spread over the senders under their rate limit.
	type job struct {
		acc  *account
		conv string
	}
	jobs := make([]job, cfg.messages)
	for i := range jobs {
		acc, _ := pool.pick(cfg.rateLimit-1, cfg.rateWindow)
		if acc == nil {
			return nil, fmt.Errorf("%d senders × %d messages per window cannot send %d messages: raise -money-senders",
				cfg.senders, cfg.rateLimit-1, cfg.messages)
		}
		acc.used++
		jobs[i].acc = acc
	}
	for i := range jobs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			conv, err := a.createConversation(ctx, jobs[i].acc, ag.ID, fmt.Sprintf("money %d", i))
			mu.Lock()
			defer mu.Unlock()
			if err != nil && setupErr == nil {
				setupErr = err
			}
			jobs[i].conv = conv
		})
	}
	wg.Wait()
	if setupErr != nil {
		return nil, setupErr
	}

	// 5. Pollers: gRPC GetBalance (PostgreSQL, exact) and GET /api/user/balance (the gateway, cached).
	grpcPoll, httpPoll := &pollStats{}, &pollStats{}
	pollCtx, stopPoll := context.WithCancel(ctx)
	var pollWG sync.WaitGroup
	pollWG.Go(func() {
		for pollCtx.Err() == nil {
			if b, h, err := w.Balance(pollCtx, owner.UID); err == nil {
				grpcPoll.add(b, h)
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
	pollWG.Go(func() {
		for pollCtx.Err() == nil {
			if b, err := a.balance(pollCtx, owner); err == nil {
				httpPoll.add(int64(math.Round(b.Balance*1e6)), int64(math.Round(b.Held*1e6)))
			}
			time.Sleep(20 * time.Millisecond)
		}
	})

	// 6. Fire all messages at once.
	load := startLoadSampler()
	results := make([]*result, cfg.messages)
	gate := make(chan struct{})
	for i := range jobs {
		wg.Go(func() {
			<-gate
			results[i] = a.sendMessage(ctx, jobs[i].acc, jobs[i].conv, q, fmt.Sprintf("money-%s-%d", a.Run, i))
		})
	}
	t0 := time.Now()
	close(gate)
	wg.Wait()
	elapsed := time.Since(t0)
	loadLine := load.Stop()

	// Let every capture settle (held back to 0), then stop polling.
	var b1, h1 int64
	for deadline := time.Now().Add(30 * time.Second); ; {
		if b1, h1, err = w.Balance(ctx, owner.UID); err == nil && h1 == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	stopPoll()
	pollWG.Wait()

	outcomes := map[string]int{}
	var answered []*result
	var sumTotal int64
	minC, maxC := int64(math.MaxInt64), int64(0)
	var usages []usage
	for _, r := range results {
		k := r.outcome()
		if r.Status == 0 && r.Err != nil {
			k = "transport error: " + shortErr(r.Err)
		}
		outcomes[k]++
		if r.Status == http.StatusOK && r.Usage != nil {
			answered = append(answered, r)
			sumTotal += r.Usage.TotalMicros
			minC, maxC = min(minC, r.Usage.TotalMicros), max(maxC, r.Usage.TotalMicros)
			usages = append(usages, *r.Usage)
		}
	}
	n := len(answered)
	fmt.Printf("  %d messages in %s: ", cfg.messages, elapsed.Round(time.Millisecond))
	for _, k := range slices.Sorted(maps.Keys(outcomes)) {
		fmt.Printf("[%s ×%d] ", k, outcomes[k])
	}
	fmt.Printf("\n  %s\n", loadLine)
	if n > 0 {
		fmt.Printf("  answers cost %s … %s each (calibration %s); answered %d, captured in total %s of %s available\n",
			usd(minC), usd(maxC), usd(u.TotalMicros), n, usd(sumTotal), usd(target))
	}
	if minC == math.MaxInt64 {
		minC = u.TotalMicros
	}

	other := cfg.messages - outcomes["200 answered"] - outcomes["402 insufficient_funds"]
	c.check(other == 0, "every message answered or 402", "%d answered + %d × 402 insufficient_funds, %d other outcomes",
		outcomes["200 answered"], outcomes["402 insufficient_funds"], other)
	want := min(cfg.messages, cfg.answers)
	c.check(n >= want, "no refusal while a worst case was affordable",
		"%d answered ≥ %d (the wallet holds %d worst-case reserves; a 402 means available < R at that moment, so at least that many answers are paid)", n, want, cfg.answers)
	maxN := (target-reserve)/minC + 1
	c.check(int64(n) <= maxN, "no answer without money for its worst case",
		"%d answered ≤ %d = ⌊(available − R) / cheapest answer⌋ + 1", n, maxN)
	if n > cfg.answers {
		note("%d answers, more than the %d reserves the wallet held at once: captures release the unused part of each hold (R %s vs actual ≈ %s), so later messages found money again", n, cfg.answers, usd(reserve), usd(u.TotalMicros))
	}
	checkUsage(c, "usage arithmetic of every answer", cfg.price, usages)
	same := 0
	for _, x := range usages {
		if x.InputTokens == u.InputTokens {
			same++
		}
	}
	if same != len(usages) {
		note("%d of %d answers had a prompt of another size than the calibration's (%d tokens)", len(usages)-same, len(usages), u.InputTokens)
	}
	c.check(h1 == 0, "no money left on hold", "held %d µ$ after the run", h1)
	c.check(b0-b1 == sumTotal, "ledger = sum of SSE usage", "balance dropped by %s = Σ usage.totalMicros %s of the %d answers",
		usd(b0-b1), usd(sumTotal), n)
	c.check(grpcPoll.negative.Load() == 0 && grpcPoll.n.Load() > 0, "never below zero (wallet gRPC GetBalance)",
		"%d polls, min available %s, min balance %s, max held %s %s", grpcPoll.n.Load(), usd(grpcPoll.minAvail),
		usd(grpcPoll.minBalance), usd(grpcPoll.maxHeld), grpcPoll.firstBad)
	c.check(httpPoll.negative.Load() == 0 && httpPoll.n.Load() > 0, "never below zero (GET /api/user/balance)",
		"%d polls, min available %s, min balance %s, max held %s %s", httpPoll.n.Load(), usd(httpPoll.minAvail),
		usd(httpPoll.minBalance), usd(httpPoll.maxHeld), httpPoll.firstBad)

	// Transaction history: the run's expenses are exactly the answers' captures.
	checkHistory := func(label string, known map[string]bool, totals []int64, feeOK bool) {
		hist, err := a.transactions(ctx, owner)
		if err != nil {
			c.check(false, label, "history: %v", err)
			return
		}
		var got []int64
		var sum int64
		var others []string
		for _, t := range hist {
			if known[t.ID] {
				continue
			}
			if t.Type == "expense" && strings.HasPrefix(t.Description, "Agentic User fee") && feeOK {
				others = append(others, fmt.Sprintf("fee %s", usd(t.micros())))
				continue
			}
			if t.Type != "expense" {
				others = append(others, fmt.Sprintf("%s %s %q", t.Type, usd(t.micros()), t.Description))
				continue
			}
			got = append(got, t.micros())
			sum += t.micros()
		}
		var want int64
		for _, x := range totals {
			want += x
		}
		slices.Sort(got)
		ws := slices.Sorted(slices.Values(totals))
		c.check(slices.Equal(got, ws) && len(others) == 0, label,
			"%d new expenses totalling %s; %d answers with Σ usage.totalMicros %s; amounts match one to one: %v; other entries: %v",
			len(got), usd(sum), len(totals), usd(want), slices.Equal(got, ws), others)
	}
	var totals []int64
	for _, x := range usages {
		totals = append(totals, x.TotalMicros)
	}
	checkHistory("history expenses = captures (concurrent run)", known, totals, false)

	// Stored conversations: answered → one complete assistant message with the
	// same usage; refused → nothing kept.
	var bad []string
	var badMu sync.Mutex
	for i := range jobs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			msgs, err := a.conversation(ctx, jobs[i].acc, jobs[i].conv)
			var problem string
			switch r := results[i]; {
			case err != nil:
				problem = err.Error()
			case r.answered():
				var asst []message
				for _, m := range msgs {
					if m.Role == "assistant" {
						asst = append(asst, m)
					}
				}
				if len(asst) != 1 || asst[0].Status != "complete" || asst[0].Usage == nil ||
					asst[0].Usage.TotalMicros != r.Usage.TotalMicros || asst[0].ID != r.Done {
					problem = fmt.Sprintf("answered, stored %+v", asst)
				}
			case r.Status == http.StatusPaymentRequired:
				if len(msgs) != 0 {
					problem = fmt.Sprintf("refused, but %d messages stored", len(msgs))
				}
			}
			if problem != "" {
				badMu.Lock()
				bad = append(bad, fmt.Sprintf("#%d: %s", i, problem))
				badMu.Unlock()
			}
		})
	}
	wg.Wait()
	c.check(len(bad) == 0, "stored conversations match", "%d of %d differ %v", len(bad), len(jobs), firstN(bad, 3))

	// 7. Drain: one message at a time until the first 402. With nothing else
	// in flight, a message must be answered iff available ≥ R.
	if cfg.drain {
		drainStart := time.Now()
		drained, wrong := 0, []string{}
		var refusedAt int64 = -1
		var drainTotals []int64
		for i := 0; time.Since(drainStart) < 60*time.Second; i++ {
			acc, wait := pool.pick(cfg.rateLimit-1, cfg.rateWindow)
			if acc == nil {
				logf("drain: waiting %s for the senders' rate-limit window", wait.Round(time.Second))
				time.Sleep(wait)
				continue
			}
			acc.used++
			conv, err := a.createConversation(ctx, acc, ag.ID, fmt.Sprintf("drain %d", i))
			if err != nil {
				return c.fails, err
			}
			bb, hh, err := w.Balance(ctx, owner.UID)
			if err != nil {
				return c.fails, err
			}
			avail := bb - hh
			r := a.sendMessage(ctx, acc, conv, q, fmt.Sprintf("drain-%s-%d", a.Run, i))
			switch {
			case r.answered() && r.Usage != nil:
				drained++
				drainTotals = append(drainTotals, r.Usage.TotalMicros)
				if avail < reserve {
					wrong = append(wrong, fmt.Sprintf("answered with available %s < R", usd(avail)))
				}
				continue
			case r.Status == http.StatusPaymentRequired:
				refusedAt = avail
			default:
				wrong = append(wrong, fmt.Sprintf("unexpected %s %s", r.outcome(), r.Message))
			}
			break
		}
		b2, h2, _ := w.Balance(ctx, owner.UID)
		fmt.Printf("  drain (one at a time): %d more answered, then 402 at available %s (R = %s)\n", drained, usd(refusedAt), usd(reserve))
		c.check(len(wrong) == 0 && refusedAt >= 0 && refusedAt < reserve, "drain: answered iff available ≥ R",
			"%d answered with ≥ R available, first 402 at %s < R %s; problems %v", drained, usd(refusedAt), usd(reserve), wrong)
		c.check(b2-h2 < reserve && h2 == 0, "drain: what is left cannot pay a worst case", "available %s < R %s", usd(b2-h2), usd(reserve))
		all := append(slices.Clone(totals), drainTotals...)
		var sumAll int64
		for _, x := range all {
			sumAll += x
		}
		c.check(b0-b2 == sumAll, "ledger = sum of SSE usage (whole run)", "balance dropped by %s = Σ %s over %d answers",
			usd(b0-b2), usd(sumAll), len(all))
		checkHistory("history expenses = captures (whole run)", known, all, false)
		fmt.Printf("  in all: %d answers from %s available (%d × R + R/2), %s left\n", len(all), usd(target), cfg.answers, usd(b2-h2))
	}
	return c.fails, nil
}

func checkUsage(c *checks, name string, p price, us []usage) {
	var bad []string
	for _, u := range us {
		cost := p.cost(u.InputTokens, u.OutputTokens)
		if u.CostMicros != cost || u.FeeMicros != fee(cost) || u.TotalMicros != cost+fee(cost) {
			bad = append(bad, fmt.Sprintf("%+v (want cost %d fee %d)", u, cost, fee(cost)))
		}
	}
	c.check(len(bad) == 0, name, "%d answers: cost = ⌈(in×%d + out×%d)/10⁶⌉, fee = ⌈cost×3/100⌉, total = cost + fee; mismatches %v",
		len(us), p.in, p.out, firstN(bad, 3))
}

func firstN(s []string, n int) []string { return s[:min(n, len(s))] }
