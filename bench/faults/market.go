package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"
)

// --- the marketplace (issue 28): a listed agent, consumers, creators ----------

// driveDoc picks a Drive-simulator Google Doc shared with anyone with the
// link (so the agent's address can read it): publishing needs a readable
// document.
func (s *stack) driveDoc(ctx context.Context) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(cctx, http.MethodGet, s.driveSim+"/_sim/files", nil)
	resp, err := s.HC.Do(req)
	if err != nil {
		return "", fmt.Errorf("drive simulator: %w", err)
	}
	defer resp.Body.Close()
	var files []struct {
		URL, Text      string
		AnyoneWithLink bool
	}
	if err := json.NewDecoder(resp.Body).Decode(&files); err != nil {
		return "", fmt.Errorf("drive simulator files: %w", err)
	}
	for _, f := range files {
		if f.AnyoneWithLink && strings.Contains(f.URL, "docs.google.com/document/") && len(f.Text) >= 200 {
			return f.URL, nil
		}
	}
	return "", fmt.Errorf("the Drive simulator has no seeded Google Doc shared with anyone")
}

// listAgent links docURL to the creator's agent, waits until it is shared
// and synced, then lists the agent on the marketplace with a markup and a
// greeting cost.
func (s *stack) listAgent(ctx context.Context, creator *user, docURL string, markup, greetingCents int) error {
	var d struct {
		ID string `json:"id"`
	}
	if err := s.DoRetry(ctx, http.MethodPost, s.Base+"/api/agents/"+creator.agentID+"/documents", creator.Token,
		map[string]any{"name": "Handbook", "url": docURL, "labels": []string{}, "sharingStatus": "shared"}, &d); err != nil {
		return fmt.Errorf("link document: %w", err)
	}
	for deadline := time.Now().Add(s.Wait); ; {
		var docs []struct {
			ID            string `json:"id"`
			SharingStatus string `json:"sharingStatus"`
			SyncState     string `json:"syncState"`
			TokenCount    *int   `json:"tokenCount"`
		}
		if err := s.DoRetry(ctx, http.MethodGet, s.Base+"/api/agents/"+creator.agentID+"/documents", creator.Token, nil, &docs); err != nil {
			return err
		}
		synced := false
		for _, x := range docs {
			if x.ID == d.ID && x.SyncState == "synced" {
				if x.SharingStatus != "shared" || x.TokenCount == nil {
					return fmt.Errorf("document %s synced but not readable (%s)", docURL, x.SharingStatus)
				}
				synced = true
			}
		}
		if synced {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("document %s not synced after %s", docURL, s.Wait)
		}
		sleepCtx(ctx, 250*time.Millisecond)
	}
	// Publishing counts the readable documents (documents service): retried
	// a little in case the count lags the sync.
	var err error
	for deadline := time.Now().Add(30 * time.Second); ctx.Err() == nil; sleepCtx(ctx, time.Second) {
		err = s.DoRetry(ctx, http.MethodPatch, s.Base+"/api/agents/"+creator.agentID, creator.Token,
			map[string]any{"isPublic": true, "markupPercent": markup, "greetingCostCents": greetingCents}, nil)
		if err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("list agent: %w", err)
	}
	return nil
}

// newConsumer signs up a user without an agent and funds their wallet.
func (s *stack) newConsumer(ctx context.Context, prefix string, fund int64) (*user, error) {
	acc, err := s.SignUp(ctx, prefix)
	if err != nil {
		return nil, err
	}
	if fund > 0 {
		if err := s.wallet.Credit(ctx, acc.UID, fund, "bench/faults: funding"); err != nil {
			return nil, fmt.Errorf("credit: %w", err)
		}
	}
	return &user{Account: *acc}, nil
}

// market is the listed agent of the load and the users around it.
type market struct {
	creator *user
	agentID string
	// burst: consumers that each send one answer at once right before the
	// wallet is killed, so that some are between Reserve and Capture.
	burst []*user
}

// setupMarket lists one creator's agent (markup 50 %, greeting 1¢; the
// creator's wallet holds the $10 monthly fee charged with the first
// consumer answer, and 5¢ more) and signs up nBurst funded consumers.
func (st *suite) setupMarket(ctx context.Context, docURL string, nBurst int) (*market, error) {
	s := st.s
	creator, err := s.newUser(ctx, "creator", 10_050_000)
	if err != nil {
		return nil, err
	}
	if err := s.listAgent(ctx, creator, docURL, 50, 1); err != nil {
		return nil, err
	}
	m := &market{creator: creator, agentID: creator.agentID}
	for range nBurst {
		u, err := s.newConsumer(ctx, "burst", 1_000_000)
		if err != nil {
			return nil, err
		}
		m.burst = append(m.burst, u)
	}
	return m, nil
}

// consumerBurst (the wallet kill's prepare): every burst consumer starts a
// conversation with the listed agent, then all send one message at once;
// it returns once at least one of those answers is held (reserved, not yet
// captured) or after 5 s, and reports how many were. The answers finish in
// the background (counted as load op "market.burst"; the load's stop waits
// for them).
func (st *suite) consumerBurst(ctx context.Context) string {
	m, l := st.market, st.load
	if m == nil || len(m.burst) == 0 {
		return "no listed agent: no consumer answers in flight"
	}
	var convs []string
	var users []*user
	for _, u := range m.burst {
		c, err := st.s.newConversationWith(ctx, u, m.agentID)
		if err != nil {
			l.t.add("market.burst", outcome(err))
			continue
		}
		users, convs = append(users, u), append(convs, c)
	}
	t0 := time.Now().Add(-time.Second)
	for i, u := range users {
		l.wg.Go(func() {
			_, err := st.s.chatIn(context.WithoutCancel(ctx), u, convs[i], "What does your document say first?")
			l.t.add("market.burst", outcome(err))
		})
	}
	held, open := 0, 0
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && ctx.Err() == nil; sleepCtx(ctx, 20*time.Millisecond) {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := st.db["conversations"].QueryRow(cctx, `SELECT count(*) FILTER (WHERE state = 'held'), count(*) FILTER (WHERE state IN ('reserving', 'held', 'capturing'))
			FROM charges WHERE agent_id::text = $1 AND created_at >= $2`, m.agentID, t0).Scan(&held, &open)
		cancel()
		if err == nil && held > 0 {
			break
		}
	}
	return fmt.Sprintf("%d consumer answers of the listed agent sent at once: %d held between Reserve and Capture (%d open) when the fault is injected",
		len(users), held, open)
}

// earner is a creator whose earnings can be withdrawn: a listed agent with
// the largest greeting cost ($5), four conversations of one consumer
// answered at setup, so ≥ $20 of earnings mature after EARNINGS_HOLD (1 min
// in development) — two $10 payouts for the Connect storm.
type earner struct {
	creator *user
	answers int   // consumer answers captured at setup
	earned  int64 // Σ their markup + greeting (µ$), from the answers' usage
}

func (st *suite) setupEarner(ctx context.Context, docURL string) (*earner, error) {
	s := st.s
	creator, err := s.newUser(ctx, "earner", 10_050_000)
	if err != nil {
		return nil, err
	}
	if err := s.listAgent(ctx, creator, docURL, 50, 500); err != nil {
		return nil, err
	}
	payer, err := s.newConsumer(ctx, "fan", 21_000_000)
	if err != nil {
		return nil, err
	}
	e := &earner{creator: creator}
	for attempt := 0; e.answers < 4 && attempt < 8 && ctx.Err() == nil; attempt++ {
		c, err := s.newConversationWith(ctx, payer, creator.agentID)
		if err != nil {
			sleepCtx(ctx, time.Second)
			continue
		}
		t, err := s.chatIn(ctx, payer, c, "What does your document cover?")
		if err != nil || t.AssistantMessage.Usage == nil {
			sleepCtx(ctx, time.Second)
			continue
		}
		e.answers++
		e.earned += t.AssistantMessage.Usage.MarkupMicros + t.AssistantMessage.Usage.GreetingMicros
		sleepCtx(ctx, 3*time.Second) // CHAT_RATE_LIMIT
	}
	return e, nil
}

// earnings is GET /api/user/earnings (the parts the suite reads), in µ$.
type earningsView struct {
	pending, available, paidOut, inTransit int64
	holdSeconds                            int64
	account                                string
}

func (s *stack) earnings(ctx context.Context, u *user) (earningsView, error) {
	var e struct {
		Pending       float64 `json:"pending"`
		Available     float64 `json:"available"`
		PaidOut       float64 `json:"paidOut"`
		InTransit     float64 `json:"inTransit"`
		HoldSeconds   int64   `json:"holdSeconds"`
		PayoutAccount struct {
			Status string `json:"status"`
		} `json:"payoutAccount"`
	}
	if err := s.DoRetry(ctx, http.MethodGet, s.Base+"/api/user/earnings", u.Token, nil, &e); err != nil {
		return earningsView{}, fmt.Errorf("earnings: %w", err)
	}
	micros := func(d float64) int64 { return int64(math.Round(d * 1e6)) }
	return earningsView{pending: micros(e.Pending), available: micros(e.Available), paidOut: micros(e.PaidOut), inTransit: micros(e.InTransit),
		holdSeconds: e.HoldSeconds, account: e.PayoutAccount.Status}, nil
}
