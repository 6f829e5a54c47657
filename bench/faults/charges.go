package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
)

type chargeConfig struct {
	requests   int // answers + charges fired at once
	affordable int // worst-case answers the balance covers
}

// apiAnswer sends one non-streamed chat completion with an agent API key;
// it returns the HTTP status (0: transport error) and the error code.
func (st *suite) apiAnswer(ctx context.Context, key, model string) (int, string) {
	body, _ := json.Marshal(map[string]any{"model": model, "stream": false,
		"messages": []map[string]string{{"role": "user", "content": "What can you help me with?"}}})
	cctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(cctx, http.MethodPost, st.s.Base+"/api/v1/chat/completions", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := st.s.HC.Do(req)
	if err != nil {
		return 0, "transport"
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode == http.StatusOK {
		return 200, ""
	}
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(b, &e)
	return resp.StatusCode, e.Error.Code
}

// chargeScenario: one owner whose wallet covers `affordable` worst-case
// answers; half the requests are answers through the agent API (API keys,
// ≤ 100 per key: under API_KEY_RATE_LIMIT), half direct wallet gRPC Charges
// of one answer's price, all released at once.
func (st *suite) chargeScenario(ctx context.Context, cfg chargeConfig) *result {
	res := &result{name: "charges", title: fmt.Sprintf("6. %d concurrent answers/charges against a balance for ~%d answers", cfg.requests, cfg.affordable)}
	s := st.s
	owner, err := s.newUser(ctx, "payer", 11_000_000) // the $10 agent fee at the first answer + calibration
	if err != nil {
		return res.abort(err)
	}
	st.agents = append(st.agents, owner.agentID)
	// Answers are 3 in 5 of the burst, under the owner's API limit
	// (API_OWNER_RATE_LIMIT 600 per minute, the calibration included).
	nAnswers := min(cfg.requests*3/5, 580)
	nCharges := cfg.requests - nAnswers
	nKeys := max(1, (nAnswers+99)/100)
	var keys []string
	for i := range nKeys {
		var k struct {
			Key string `json:"key"`
		}
		if err := s.DoRetry(ctx, http.MethodPost, s.Base+"/api/agents/"+owner.agentID+"/api-keys", owner.Token,
			map[string]any{"name": fmt.Sprintf("faults %s #%d", s.Run, i)}, &k); err != nil {
			return res.abort(fmt.Errorf("api key: %w", err))
		}
		keys = append(keys, k.Key)
	}
	model := "agentic/" + owner.agentID
	calStart := time.Now().Add(-time.Second)
	if code, ec := st.apiAnswer(ctx, keys[0], model); code != 200 {
		return res.abort(fmt.Errorf("calibration answer: HTTP %d %s", code, ec))
	}
	var reserve, capture int64
	if err := st.db["conversations"].QueryRow(ctx, `SELECT reserve_micros, COALESCE(capture_micros, 0) FROM charges
		WHERE payer_uid = $1 AND created_at >= $2 ORDER BY created_at DESC LIMIT 1`, owner.UID, calStart).Scan(&reserve, &capture); err != nil {
		return res.abort(fmt.Errorf("calibration charge: %w", err))
	}
	if capture <= 0 {
		capture = reserve
	}
	// Available = affordable × R + R/2.
	target := int64(cfg.affordable)*reserve + reserve/2
	bal, held, err := s.wallet.Balance(ctx, owner.UID)
	if err != nil {
		return res.abort(err)
	}
	if avail := bal - held; avail < target {
		err = s.wallet.Credit(ctx, owner.UID, target-avail, "bench/faults: top-up to the target")
	} else if avail > target {
		err = s.wallet.Charge(ctx, owner.UID, avail-target, "bench/faults: trim to the target")
	}
	if err != nil {
		return res.abort(fmt.Errorf("set the balance: %w", err))
	}
	b0, h0, err := s.wallet.Balance(ctx, owner.UID)
	if err != nil {
		return res.abort(err)
	}
	// The direct charges together may take half of the balance (they reach
	// the wallet sooner than answers, which pass the gateway, the key check
	// and the catalog first); the answers' worst-case reserves race them
	// and each other for the rest.
	charge := max((b0-h0)/2/int64(max(nCharges, 1)), 1)
	res.line("owner's wallet: available %s = %d × worst-case reserve R %s + R/2; an answer reserves R and costs %s; %d answers (agent API, %d keys) + %d gRPC Charges of %s (half the balance in all), all at once",
		usd(b0-h0), cfg.affordable, usd(reserve), usd(capture), nAnswers, nKeys, nCharges, usd(charge))

	// Poll the exact balance while the burst runs.
	var polls, negative atomic.Int64
	minAvail := atomic.Int64{}
	minAvail.Store(b0 - h0)
	pollCtx, stopPoll := context.WithCancel(ctx)
	var pollWG sync.WaitGroup
	pollWG.Go(func() {
		for pollCtx.Err() == nil {
			cctx, cancel := context.WithTimeout(pollCtx, 5*time.Second)
			r, err := s.wallet.C.GetBalance(cctx, &walletv1.GetBalanceRequest{Uid: owner.UID})
			cancel()
			if err == nil {
				polls.Add(1)
				a := r.BalanceMicros - r.HeldMicros
				if a < 0 || r.BalanceMicros < 0 {
					negative.Add(1)
				}
				for {
					m := minAvail.Load()
					if a >= m || minAvail.CompareAndSwap(m, a) {
						break
					}
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
	})

	t := newTally()
	var okCharges atomic.Int64
	gate := make(chan struct{})
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := range nAnswers {
		wg.Go(func() {
			<-gate
			code, ec := st.apiAnswer(ctx, keys[i%len(keys)], model)
			out := "ok"
			if code != 200 {
				out = fmt.Sprintf("%d %s", code, ec)
				if code == 0 {
					out = "transport"
				}
			}
			t.add("answer", out)
		})
	}
	for range nCharges {
		wg.Go(func() {
			<-gate
			key := s.wallet.Key("burst")
			cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
			defer cancel()
			_, err := s.wallet.C.Charge(cctx, &walletv1.ChargeRequest{Uid: owner.UID, AmountMicros: charge, IdempotencyKey: key,
				Description: "bench/faults: concurrent charge"})
			out := "ok"
			if err != nil {
				st, _ := status.FromError(err)
				out = st.Code().String()
				if st.Code() == codes.FailedPrecondition {
					out += " " + strings.TrimSpace(st.Message())
				}
			} else {
				okCharges.Add(1)
			}
			t.add("grpc.charge", out)
		})
	}
	close(gate)
	wg.Wait()
	elapsed := time.Since(t0)
	var b1, h1 int64
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if b1, h1, err = s.wallet.Balance(ctx, owner.UID); (err == nil && h1 == 0) || time.Now().After(deadline) {
			break
		}
	}
	stopPoll()
	pollWG.Wait()
	res.load = t
	res.line("%d requests in %s: %s", cfg.requests, elapsed.Round(time.Millisecond), t.summary())
	for _, l := range t.byOp() {
		res.line("  %s", l)
	}
	cr, err := st.db.checkCharges(ctx, t0)
	if err != nil {
		return res.abort(err)
	}
	var expenses int64
	var nExp int
	if err := st.db["wallet"].QueryRow(ctx, `SELECT count(*), COALESCE(sum(amount_micros), 0)::bigint FROM transfers
		WHERE uid = $1 AND type = 'expense' AND created_at >= $2`, owner.UID, t0).Scan(&nExp, &expenses); err != nil {
		return res.abort(err)
	}
	var answered int
	t.mu.Lock()
	answered = t.ops["answer"]["ok"]
	t.mu.Unlock()
	res.line("answers: %d × 200, metered %s", answered, cr)
	res.check(cr.ok(), "every answer settled and charged once", "%s", cr)
	spent := b0 - b1
	res.check(h1 == 0, "nothing left on hold", "held %d µ$", h1)
	res.check(spent == cr.capturedSum+okCharges.Load()*charge && spent == expenses, "charged = recorded usage",
		"balance fell by %s = Σ captured answers %s + %d charges × %s; ledger expenses %d totalling %s",
		usd(spent), usd(cr.capturedSum), okCharges.Load(), usd(charge), nExp, usd(expenses))
	res.check(negative.Load() == 0 && b1-h1 >= 0, "never below zero", "%d polls of GetBalance, minimum available %s, final available %s",
		polls.Load(), usd(minAvail.Load()), usd(b1-h1))
	res.check(int64(answered)+okCharges.Load() >= 1 && spent <= b0-h0, "spent no more than was available",
		"%d answers + %d charges for %s of %s", answered, okCharges.Load(), usd(spent), usd(b0-h0))
	_, _, fails := t.totals()
	other := 0
	for k, n := range fails {
		if !strings.HasPrefix(k, "402") && !strings.HasPrefix(k, "FailedPrecondition") {
			other += n
		}
	}
	res.check(other == 0, "every refusal is insufficient funds (402 / FAILED_PRECONDITION)", "%d other failures: %s", other, fmtCounts(fails))
	res.money = fmt.Sprintf("min available %s, spent %s of %s = recorded usage", usd(minAvail.Load()), usd(spent), usd(b0-h0))
	res.recovery = "n/a (no outage)"
	return res
}

func usd(micros int64) string { return fmt.Sprintf("$%.6f", float64(micros)/1e6) }
