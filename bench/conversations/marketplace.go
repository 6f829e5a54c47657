package main

import (
	"context"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/agentic-app/agentic/bench/benchstack"
)

// --- the marketplace money run (issue 28) ------------------------------------
//
// One creator lists an agent (markup and a greeting cost); many consumers with
// small wallets send two messages each, all at once, in two conversations of
// their own. Checked to the micro-dollar: no consumer's wallet below zero;
// every answer charged exactly once (each consumer's balance fell by exactly
// the sum of their answers' usage.totalMicros); the greeting charged once per
// conversation; the creator's earnings grew by exactly Σ markup + greeting;
// so Σ consumers' expenses = platform revenue (Σ cost + fee) + creator
// earnings; the creator's wallet paid only the agent's monthly fee.

type marketConfig struct {
	consumers, markup, greetingCents, setupPar int
	price                                      price
	maxOut                                     int64
}

func ceilPercent(v int64, pct int) int64 { return ceilDiv(v*int64(pct), 100) }

// consumerWorstCase is what one consumer answer reserves.
func (c marketConfig) consumerWorstCase(in int64) int64 {
	cost := c.price.cost(reserveInputTokens(in), c.maxOut)
	return cost + fee(cost) + ceilPercent(cost, c.markup) + int64(c.greetingCents)*10_000
}

// earnings reads the creator's pending + available earnings (µ$).
func (a *api) earnings(ctx context.Context, acc *account) (int64, error) {
	var e struct {
		Pending   float64 `json:"pending"`
		Available float64 `json:"available"`
	}
	if err := a.Do(ctx, http.MethodGet, a.Base+"/api/user/earnings", acc.Token, nil, &e); err != nil {
		return 0, fmt.Errorf("earnings: %w", err)
	}
	return int64(math.Round(e.Pending*1e6)) + int64(math.Round(e.Available*1e6)), nil
}

func marketplaceRun(ctx context.Context, a *api, w *benchstack.Wallet, cfg marketConfig, doc benchDoc) ([]string, error) {
	c := &checks{}
	fmt.Printf("\n== Marketplace money: %d consumers of one listed agent (markup %d%%, greeting %d¢), two messages each at once\n",
		cfg.consumers, cfg.markup, cfg.greetingCents)
	q := questions(doc, 1)[0]

	// 1. The creator lists an agent (an active agent with a shared, synced document).
	creator, err := a.signUp(ctx, "creator")
	if err != nil {
		return nil, err
	}
	const creatorFund = 10_000_000 // exactly the agent's monthly fee, charged with its first consumer answer
	if err := w.Credit(ctx, creator.UID, creatorFund, "bench/conversations: marketplace creator funding"); err != nil {
		return nil, err
	}
	ag, err := a.createAgent(ctx, creator, "Market Bench Tutor", instructions)
	if err != nil {
		return nil, err
	}
	if err := a.linkDocument(ctx, creator, ag.ID, doc.name, doc.url, a.Wait); err != nil {
		return nil, err
	}
	var published struct {
		Slug string `json:"slug"`
	}
	if err := a.DoRetry(ctx, http.MethodPatch, a.Base+"/api/agents/"+ag.ID, creator.Token, map[string]any{
		"isPublic": true, "markupPercent": cfg.markup, "greetingCostCents": cfg.greetingCents,
	}, &published); err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	fmt.Printf("  listed as /marketplace/%s\n", published.Slug)
	earn0, err := a.earnings(ctx, creator)
	if err != nil {
		return nil, err
	}

	// 2. Calibration: one consumer answer with money to spare (its prompt is the run's).
	cal, err := a.signUp(ctx, "calibrator")
	if err != nil {
		return nil, err
	}
	if err := w.Credit(ctx, cal.UID, 1_000_000, "bench/conversations: marketplace calibration"); err != nil {
		return nil, err
	}
	calConv, err := a.createConversation(ctx, cal, ag.ID, "calibration")
	if err != nil {
		return nil, err
	}
	r := a.sendMessage(ctx, cal, calConv, q, "mkt-cal-"+a.Run)
	if !r.answered() || r.Usage == nil {
		return nil, fmt.Errorf("calibration answer failed: %s %s %v", r.outcome(), r.Message, r.Err)
	}
	u := *r.Usage
	reserve := cfg.consumerWorstCase(u.InputTokens)
	fmt.Printf("  calibration: %d + %d tokens, cost %d + fee %d + markup %d + greeting %d = %d µ$; worst case R = %d µ$\n",
		u.InputTokens, u.OutputTokens, u.CostMicros, u.FeeMicros, u.MarkupMicros, u.GreetingMicros, u.TotalMicros, reserve)
	checkConsumerUsage(c, "calibration usage arithmetic", cfg, []usage{u}, []bool{true})
	if b, h, err := w.Balance(ctx, creator.UID); err == nil {
		c.check(b == 0 && h == 0, "the creator paid the agent's monthly fee with the first consumer answer",
			"creator's wallet %s (funded %s)", usd(b), usd(creatorFund))
	}

	// 3. Consumers: each wallet holds 1.5 worst cases, so at most one of their
	// two concurrent answers can be reserved at its worst; the second is
	// answered only if the first's capture released enough in time.
	fund := reserve + reserve/2
	consumers := make([]*account, cfg.consumers)
	convs := make([][2]string, cfg.consumers)
	var (
		mu       sync.Mutex
		setupErr error
		wg       sync.WaitGroup
	)
	sem := make(chan struct{}, cfg.setupPar)
	for i := range consumers {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			acc, err := a.signUp(ctx, "consumer")
			if err == nil {
				err = w.Credit(ctx, acc.UID, fund, "bench/conversations: marketplace consumer funding")
			}
			var c0, c1 string
			if err == nil {
				c0, err = a.createConversation(ctx, acc, ag.ID, "market a")
			}
			if err == nil {
				c1, err = a.createConversation(ctx, acc, ag.ID, "market b")
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil && setupErr == nil {
				setupErr = err
			}
			consumers[i], convs[i] = acc, [2]string{c0, c1}
		})
	}
	wg.Wait()
	if setupErr != nil {
		return nil, fmt.Errorf("consumers: %w", setupErr)
	}

	// 4. Every message at once.
	results := make([][2]*result, cfg.consumers)
	gate := make(chan struct{})
	for i := range consumers {
		for k := range 2 {
			wg.Go(func() {
				<-gate
				res := a.sendMessage(ctx, consumers[i], convs[i][k], q, fmt.Sprintf("mkt-%s-%d-%d", a.Run, i, k))
				mu.Lock()
				results[i][k] = res
				mu.Unlock()
			})
		}
	}
	t0 := time.Now()
	close(gate)
	wg.Wait()
	elapsed := time.Since(t0)

	// 5. Settle (holds back to 0), then check every consumer.
	outcomes := map[string]int{}
	var (
		usages   []usage
		firsts   []bool
		sumTotal int64
		sumCreat int64
		sumPlat  int64
		problems []string
		negative int
	)
	for i, acc := range consumers {
		var b, h int64
		for deadline := time.Now().Add(30 * time.Second); ; {
			if b, h, err = w.Balance(ctx, acc.UID); err == nil && h == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil {
			return c.fails, err
		}
		if b < 0 || h != 0 {
			negative++
		}
		var spent int64
		for k := range 2 {
			res := results[i][k]
			outcomes[res.outcome()]++
			if res.Status == http.StatusOK && res.Usage != nil {
				usages = append(usages, *res.Usage)
				firsts = append(firsts, true) // each conversation's first (and only) answer
				spent += res.Usage.TotalMicros
				sumCreat += res.Usage.MarkupMicros + res.Usage.GreetingMicros
				sumPlat += res.Usage.CostMicros + res.Usage.FeeMicros
			}
		}
		sumTotal += spent
		if fund-b != spent {
			problems = append(problems, fmt.Sprintf("consumer %d: wallet fell by %d µ$, answers' usage %d µ$", i, fund-b, spent))
		}
	}
	fmt.Printf("  %d messages in %s: ", 2*cfg.consumers, elapsed.Round(time.Millisecond))
	for _, k := range slices.Sorted(maps.Keys(outcomes)) {
		fmt.Printf("[%s ×%d] ", k, outcomes[k])
	}
	fmt.Println()

	other := 2*cfg.consumers - outcomes["200 answered"] - outcomes["402 insufficient_funds"]
	c.check(other == 0, "every message answered or 402", "%d answered + %d × 402, %d other outcomes",
		outcomes["200 answered"], outcomes["402 insufficient_funds"], other)
	c.check(outcomes["200 answered"] >= cfg.consumers, "every consumer got at least one answer",
		"%d answers for %d consumers (each wallet covers one worst case)", outcomes["200 answered"], cfg.consumers)
	c.check(negative == 0, "no consumer wallet below zero, nothing left on hold", "%d of %d wallets wrong", negative, cfg.consumers)
	c.check(len(problems) == 0, "every answer charged exactly once", "%d of %d consumers differ %v",
		len(problems), cfg.consumers, firstN(problems, 3))
	checkConsumerUsage(c, "usage arithmetic of every consumer answer", cfg, usages, firsts)

	// The creator's earnings (pending + available) grew by exactly the creators' parts.
	var earn1 int64
	want := earn0 + sumCreat + u.MarkupMicros + u.GreetingMicros
	for deadline := time.Now().Add(10 * time.Second); ; {
		if earn1, err = a.earnings(ctx, creator); err != nil {
			return c.fails, err
		}
		if earn1 == want || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.check(earn1 == want, "creator earnings = Σ markup + greeting", "earnings grew by %s, answers' markup + greeting %s",
		usd(earn1-earn0), usd(want-earn0))
	c.check(sumTotal == sumPlat+sumCreat && earn1-earn0-u.MarkupMicros-u.GreetingMicros == sumCreat,
		"Σ consumers' expenses = platform revenue + creator earnings",
		"%s = %s (cost + fee) + %s (markup + greeting), to the micro-dollar", usd(sumTotal), usd(sumPlat), usd(sumCreat))
	if b, h, err := w.Balance(ctx, creator.UID); err == nil {
		c.check(b == 0 && h == 0, "the creator's wallet paid nothing but the fee", "creator's wallet %s after the run", usd(b))
	}
	return c.fails, nil
}

// checkConsumerUsage checks each consumer answer's parts: cost and fee as for
// an owner, markup = ⌈cost × markup / 100⌉, the greeting on a conversation's
// first answer only, total = their sum.
func checkConsumerUsage(c *checks, name string, cfg marketConfig, us []usage, first []bool) {
	var bad []string
	for i, u := range us {
		cost := cfg.price.cost(u.InputTokens, u.OutputTokens)
		greeting := int64(0)
		if first[i] {
			greeting = int64(cfg.greetingCents) * 10_000
		}
		markup := ceilPercent(cost, cfg.markup)
		if u.CostMicros != cost || u.FeeMicros != fee(cost) || u.MarkupMicros != markup || u.GreetingMicros != greeting ||
			u.TotalMicros != cost+fee(cost)+markup+greeting {
			bad = append(bad, fmt.Sprintf("%+v (want cost %d fee %d markup %d greeting %d)", u, cost, fee(cost), markup, greeting))
		}
	}
	c.check(len(bad) == 0, name, "%d answers: markup = ⌈cost×%d/100⌉, greeting %d µ$ on a conversation's first answer; mismatches %v",
		len(us), cfg.markup, int64(cfg.greetingCents)*10_000, firstN(bad, 3))
}
