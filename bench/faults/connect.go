package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"
)

// --- Stripe Connect webhook storm (issue 28) ------------------------------------

type connectConfig struct {
	deliveries, concurrency int
	secret                  string
}

// accountStatus is the wallet's state for an account object
// (wallet.AccountState): payouts enabled → enabled; details not submitted
// → onboarding; else restricted.
func accountStatus(payoutsEnabled, detailsSubmitted bool) string {
	switch {
	case payoutsEnabled:
		return "enabled"
	case !detailsSubmitted:
		return "onboarding"
	}
	return "restricted"
}

// accountObject is the simulator's account obj with the given state.
func accountObject(obj map[string]any, enabled, submitted bool, reason string) map[string]any {
	o := clone(obj)
	o["payouts_enabled"], o["details_submitted"], o["charges_enabled"] = enabled, submitted, enabled
	req := map[string]any{"currently_due": []string{}, "eventually_due": []string{}, "past_due": []string{}, "disabled_reason": nil}
	if !enabled {
		due := []string{"individual.verification.document"}
		req["currently_due"], req["past_due"], req["disabled_reason"] = due, due, reason
	}
	o["requirements"] = req
	return o
}

// uuidV4 is a random UUID (an unknown payout id).
func uuidV4() string {
	h := randomHex(16)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:32]
}

// accountLink is POST /api/user/payouts/account-link: the wallet creates the
// user's Express account on the simulator (once) and returns the hosted
// onboarding URL.
func (s *stack) accountLink(ctx context.Context, u *user) (string, error) {
	var out struct {
		URL string `json:"url"`
	}
	if err := s.DoRetry(ctx, http.MethodPost, s.Base+"/api/user/payouts/account-link", u.Token, map[string]any{}, &out); err != nil {
		return "", fmt.Errorf("account link: %w", err)
	}
	return out.URL, nil
}

// payout is POST /api/user/payouts {amount} (dollars); it returns the payout id.
func (s *stack) payout(ctx context.Context, u *user, dollars float64) (string, error) {
	var out struct {
		Payout struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"payout"`
	}
	if err := s.do(ctx, 30*time.Second, http.MethodPost, s.Base+"/api/user/payouts", u.Token, map[string]any{"amount": dollars}, &out); err != nil {
		return "", fmt.Errorf("payout: %w", err)
	}
	return out.Payout.ID, nil
}

// payoutRow is a payout as the wallet database has it, with its transfers.
type payoutRow struct {
	id, status, transfer                string
	amount, returned                    int64
	nPayout, nPaid, nReturn             int
	paidMicros, returnMicros, outMicros int64
}

func (r payoutRow) String() string {
	return fmt.Sprintf("payout %s %s: %d µ$, returned %d; transfers: payout ×%d (%d µ$), payout_paid ×%d (%d µ$), payout_return ×%d (%d µ$)",
		r.id, r.status, r.amount, r.returned, r.nPayout, r.outMicros, r.nPaid, r.paidMicros, r.nReturn, r.returnMicros)
}

func (d dbs) payoutRow(ctx context.Context, id string) (payoutRow, error) {
	r := payoutRow{id: id}
	err := retryDB(ctx, func(ctx context.Context) error {
		return d["wallet"].QueryRow(ctx, `SELECT p.status, COALESCE(p.stripe_transfer_id, ''), p.amount_micros, p.returned_micros,
				count(t.id) FILTER (WHERE t.type = 'payout'), COALESCE(sum(t.amount_micros) FILTER (WHERE t.type = 'payout'), 0)::bigint,
				count(t.id) FILTER (WHERE t.type = 'payout_paid'), COALESCE(sum(t.amount_micros) FILTER (WHERE t.type = 'payout_paid'), 0)::bigint,
				count(t.id) FILTER (WHERE t.type = 'payout_return'), COALESCE(sum(t.amount_micros) FILTER (WHERE t.type = 'payout_return'), 0)::bigint
			FROM payouts p LEFT JOIN transfers t ON t.metadata->>'payout_id' = p.id::text AND t.type IN ('payout', 'payout_paid', 'payout_return')
			WHERE p.id = $1::uuid GROUP BY p.id`, id).
			Scan(&r.status, &r.transfer, &r.amount, &r.returned, &r.nPayout, &r.outMicros, &r.nPaid, &r.paidMicros, &r.nReturn, &r.returnMicros)
	})
	return r, err
}

// transferOf waits (≤ 20 s) until the payout's Stripe Transfer is recorded.
func (st *suite) transferOf(ctx context.Context, payoutID string) (string, map[string]any, error) {
	for deadline := time.Now().Add(20 * time.Second); ctx.Err() == nil; sleepCtx(ctx, 200*time.Millisecond) {
		r, err := st.db.payoutRow(ctx, payoutID)
		if err == nil && r.transfer != "" {
			var obj map[string]any
			if err := st.s.simJSON(ctx, http.MethodGet, "/v1/transfers/"+r.transfer, nil, &obj); err != nil {
				return "", nil, err
			}
			return r.transfer, obj, nil
		}
		if time.Now().After(deadline) {
			return "", nil, fmt.Errorf("payout %s: no Stripe Transfer recorded after 20 s (%v)", payoutID, err)
		}
	}
	return "", nil, ctx.Err()
}

// connectScenario: a storm of signed Connect deliveries — account.updated
// for Express accounts created through the gateway (many states, distinct
// `created` times, duplicated, replayed, shuffled, forged), transfer.created
// for a real $10 payout, then transfer.created/reversed/failed for a second
// real payout reversed on the simulator (when the suite's earner has $20 of
// matured earnings; EARNINGS_HOLD is 1 min in development), and transfer.*
// for unknown transfers. The simulator's own deliveries are paused while the
// suite delivers (they are dropped, not queued).
func (st *suite) connectScenario(ctx context.Context, cfg connectConfig) *result {
	res := &result{name: "connect webhooks", title: fmt.Sprintf("5b. Connect webhook storm, budget %d deliveries (account.updated, transfer.*: duplicates, replays, reordering, forged; concurrency %d)", cfg.deliveries, cfg.concurrency)}
	s := st.s
	start := time.Now()
	rng := rand.New(rand.NewPCG(uint64(start.UnixNano()), 11))
	evID := func() string { return "evt_faults_connect_" + randomHex(12) }
	D := cfg.deliveries

	// 1. Express accounts through the gateway.
	const nAcc = 3
	type acct struct {
		u   *user
		id  string
		obj map[string]any
		// the newest genuine event's state
		enabled, submitted bool
		created            int64
	}
	var accts []*acct
	for range nAcc {
		u, err := s.newConsumer(ctx, "payee", 0)
		if err != nil {
			return res.abort(err)
		}
		if _, err := s.accountLink(ctx, u); err != nil {
			return res.abort(err)
		}
		a := &acct{u: u}
		if err := retryDB(ctx, func(ctx context.Context) error {
			return st.db["wallet"].QueryRow(ctx, `SELECT COALESCE(stripe_account_id, '') FROM connect_accounts WHERE uid = $1`, u.UID).Scan(&a.id)
		}); err != nil || a.id == "" {
			return res.abort(fmt.Errorf("connect account of %s not recorded (%q): %v", u.UID, a.id, err))
		}
		if err := s.simJSON(ctx, http.MethodGet, "/v1/accounts/"+a.id, nil, &a.obj); err != nil {
			return res.abort(err)
		}
		accts = append(accts, a)
	}
	res.line("%d Express accounts created through POST /api/user/payouts/account-link (simulator): %s", nAcc, func() string {
		var ids []string
		for _, a := range accts {
			ids = append(ids, a.id)
		}
		return strings.Join(ids, ", ")
	}())

	// 2. The earner's account onboarded on the simulator (its deliveries
	// live: account.updated enables payouts), earnings matured.
	e := st.earner
	var view0 earningsView
	withdraw := false
	switch {
	case e == nil || e.answers == 0:
		res.line("NOTE  no earner (setup failed or skipped): transfer.* only for unknown transfers")
	default:
		url, err := s.accountLink(ctx, e.creator)
		if err != nil {
			return res.abort(err)
		}
		i := strings.LastIndex(url, "/connect/onboarding/")
		if i < 0 {
			return res.abort(fmt.Errorf("account link %q is not the simulator's onboarding page", url))
		}
		if err := s.simForm(ctx, "/connect/onboarding/"+url[i+len("/connect/onboarding/"):]+"/complete"); err != nil {
			return res.abort(err)
		}
		view0, err = s.earnings(ctx, e.creator)
		if err != nil {
			return res.abort(err)
		}
		if view0.holdSeconds > 300 {
			res.line("NOTE  EARNINGS_HOLD is %d s: the earner's $%.2f stay pending; no real payout (transfer.* only for unknown transfers)",
				view0.holdSeconds, float64(view0.pending)/1e6)
			break
		}
		wait := time.Duration(view0.holdSeconds)*time.Second + 90*time.Second
		for deadline := time.Now().Add(wait); ctx.Err() == nil; sleepCtx(ctx, 2*time.Second) {
			if view0, err = s.earnings(ctx, e.creator); err != nil {
				return res.abort(err)
			}
			if (view0.account == "enabled" && view0.pending == 0 && view0.available >= 20_000_000) || time.Now().After(deadline) {
				break
			}
		}
		res.line("earner: %d consumer answers at setup earned %d µ$; now available %d µ$, pending %d µ$, payout account %s",
			e.answers, e.earned, view0.available, view0.pending, view0.account)
		withdraw = view0.account == "enabled" && view0.available >= 10_000_000 && view0.inTransit == 0
		if !withdraw {
			res.fail("the earner cannot withdraw $10 (account %s, available %d µ$, in transit %d µ$)", view0.account, view0.available, view0.inTransit)
		}
	}

	// From here the suite delivers the events itself.
	if err := s.simJSON(ctx, http.MethodPost, "/admin/webhooks", map[string]any{"paused": true}, nil); err != nil {
		return res.abort(err)
	}
	defer func() {
		if err := s.simJSON(context.WithoutCancel(ctx), http.MethodPost, "/admin/webhooks", map[string]any{"paused": false}, nil); err != nil {
			res.fail("resume the simulator's webhooks: %v", err)
		}
	}()
	var payA string
	var trA map[string]any
	if withdraw {
		var err error
		if payA, err = s.payout(ctx, e.creator, 10); err != nil {
			return res.abort(err)
		}
		if _, trA, err = st.transferOf(ctx, payA); err != nil {
			return res.abort(err)
		}
	}

	// 3. Phase 1: account.updated storm, transfer.created for payout A,
	// transfer.* for unknown transfers.
	now := time.Now()
	t0 := now.Unix()
	var ds []delivery
	triple := func(kind string, p []byte) {
		sig := signStripe(p, cfg.secret, now)
		ds = append(ds,
			delivery{kind: kind, payload: p, signature: sig, want: 200},
			delivery{kind: kind + " — duplicate (same bytes)", payload: p, signature: sig, want: 200},
			delivery{kind: kind + " — replay (re-signed)", payload: p, resign: true, want: 200})
	}
	perAcc := max(3, D*2/5/(nAcc*3))
	reasons := []string{"requirements.past_due", "under_review", "requirements.pending_verification"}
	for _, a := range accts {
		for i := 1; i <= perAcc; i++ {
			enabled := rng.IntN(2) == 0
			submitted := enabled || i%3 != 0
			created := t0 + int64(i) // distinct, after anything the simulator sent
			triple("account.updated", stripeEventAt(evID(), "account.updated", accountObject(a.obj, enabled, submitted, reasons[i%len(reasons)]), created))
			if created > a.created {
				a.created, a.enabled, a.submitted = created, enabled, submitted
			}
		}
		// Forged, newer than every genuine event: must change nothing.
		p := stripeEventAt(evID(), "account.updated", accountObject(a.obj, !a.enabled, true, "under_review"), t0+int64(perAcc)+100)
		ds = append(ds, delivery{kind: "forged account.updated (wrong secret, newest)", payload: p, signature: signStripe(p, "whsec_attacker", now), want: 400})
		p = stripeEventAt(evID(), "account.updated", accountObject(a.obj, !a.enabled, true, ""), t0+int64(perAcc)+101)
		sig := signStripe(p, cfg.secret, now)
		p = []byte(strings.Replace(string(p), `"livemode":false`, `"livemode":true `, 1))
		ds = append(ds, delivery{kind: "forged account.updated (body changed after signing)", payload: p, signature: sig, want: 400})
	}
	var createdA [][]byte
	if trA != nil {
		for range max(2, D/30) {
			p := stripeEvent(evID(), "transfer.created", trA)
			createdA = append(createdA, p)
			triple("transfer.created (payout A)", p)
		}
	}
	var unknownEvents []string
	nUnknown := max(4, D/20)
	for i := range nUnknown {
		typ := []string{"transfer.created", "transfer.reversed", "transfer.failed"}[i%3]
		obj := map[string]any{"id": "tr_faults_unknown_" + randomHex(8), "object": "transfer", "amount": 1000, "amount_reversed": 0,
			"reversed": false, "currency": "usd", "destination": accts[i%nAcc].id, "created": t0, "livemode": false,
			"metadata": map[string]any{"payout_id": uuidV4(), "uid": "faults-nobody"}}
		if typ == "transfer.reversed" {
			obj["amount_reversed"], obj["reversed"] = 1000, true
		}
		id := evID()
		unknownEvents = append(unknownEvents, id)
		p := stripeEvent(id, typ, obj)
		sig := signStripe(p, cfg.secret, now)
		ds = append(ds, delivery{kind: typ + " (unknown transfer)", payload: p, signature: sig, want: 200},
			delivery{kind: typ + " (unknown transfer) — duplicate", payload: p, signature: sig, want: 200})
	}
	rng.Shuffle(len(ds), func(i, j int) { ds[i], ds[j] = ds[j], ds[i] })
	t1, kinds, elapsed1 := st.deliver(ctx, ds, cfg.concurrency, cfg.secret)
	res.line("phase 1: %d deliveries in %s: %s", len(ds), elapsed1.Round(time.Millisecond), t1.summary())
	for _, k := range sortedKeys(kinds) {
		res.line("  %-60s %s", k, fmtCounts(kinds[k]))
	}
	total := len(ds)

	// Phase 2: payout B (after A is paid), reversed on the simulator;
	// transfer.created + transfer.reversed + transfer.failed for it, late
	// duplicates and new event ids of A's transfer.created.
	var payB string
	var t2 *tally
	if payA != "" {
		r, err := st.db.payoutRow(ctx, payA)
		if err != nil {
			return res.abort(err)
		}
		v, err := s.earnings(ctx, e.creator)
		if err != nil {
			return res.abort(err)
		}
		switch {
		case r.status != "paid":
			res.line("NOTE  payout A is %s after phase 1: no second payout", r.status)
		case v.available < 10_000_000:
			res.line("NOTE  %d µ$ available after payout A: no second payout (transfer.reversed/failed not covered)", v.available)
		default:
			if payB, err = s.payout(ctx, e.creator, 10); err != nil {
				return res.abort(err)
			}
			tr, created, err := st.transferOf(ctx, payB)
			if err != nil {
				return res.abort(err)
			}
			var reversed map[string]any
			if err := s.simJSON(ctx, http.MethodPost, "/admin/transfers/"+tr+"/reverse", map[string]any{}, &reversed); err != nil {
				return res.abort(err)
			}
			now = time.Now()
			ds = ds[:0]
			for range max(2, D/30) {
				triple("transfer.created (payout B)", stripeEvent(evID(), "transfer.created", created))
				triple("transfer.reversed (payout B, whole amount)", stripeEvent(evID(), "transfer.reversed", reversed))
			}
			triple("transfer.failed (payout B)", stripeEvent(evID(), "transfer.failed", created))
			for i, p := range createdA {
				ds = append(ds, delivery{kind: "transfer.created (payout A) — late duplicate", payload: p, signature: signStripe(p, cfg.secret, now), want: 200})
				if i == 0 {
					triple("transfer.created (payout A) — late, new event id", stripeEvent(evID(), "transfer.created", trA))
				}
			}
			rng.Shuffle(len(ds), func(i, j int) { ds[i], ds[j] = ds[j], ds[i] })
			var kinds2 map[string]map[string]int
			var elapsed2 time.Duration
			t2, kinds2, elapsed2 = st.deliver(ctx, ds, cfg.concurrency, cfg.secret)
			res.line("phase 2: %d deliveries in %s: %s", len(ds), elapsed2.Round(time.Millisecond), t2.summary())
			for _, k := range sortedKeys(kinds2) {
				res.line("  %-60s %s", k, fmtCounts(kinds2[k]))
			}
			total += len(ds)
		}
	}
	all := newTally()
	for _, t := range []*tally{t1, t2} {
		if t == nil {
			continue
		}
		for op, m := range t.ops {
			for out, n := range m {
				for range n {
					all.add(op, out)
				}
			}
		}
	}
	res.load = all
	_, okN, fails := all.totals()
	res.check(len(fails) == 0, "every Connect delivery answered as expected (2xx signed, 400 forged)", "%d of %d", okN, total)

	// 4. Effects. Accounts: the newest genuine event's state.
	var wrong []string
	for _, a := range accts {
		var status string
		var enabled bool
		var last int64
		err := retryDB(ctx, func(ctx context.Context) error {
			return st.db["wallet"].QueryRow(ctx, `SELECT status, payouts_enabled, last_event_created FROM connect_accounts WHERE uid = $1`, a.u.UID).
				Scan(&status, &enabled, &last)
		})
		if err != nil {
			return res.abort(err)
		}
		want := accountStatus(a.enabled, a.submitted)
		if status != want || enabled != a.enabled || last != a.created {
			wrong = append(wrong, fmt.Sprintf("%s: %s/payouts_enabled %v/created %d, newest event says %s/%v/%d", a.id, status, enabled, last, want, a.enabled, a.created))
		}
	}
	res.check(len(wrong) == 0, "each account's state = its newest genuine account.updated (older, duplicated and forged ones ignored)",
		"%d accounts × %d events, %d differ %v", nAcc, perAcc, len(wrong), wrong[:min(3, len(wrong))])

	// Payouts: A paid exactly once; B's money back exactly once.
	if payA != "" {
		r, err := st.db.payoutRow(ctx, payA)
		if err != nil {
			return res.abort(err)
		}
		res.check(r.status == "paid" && r.returned == 0 && r.nPayout == 1 && r.nPaid == 1 && r.paidMicros == r.amount && r.nReturn == 0,
			"payout A paid exactly once (transfer.created ×many)", "%s", r)
	}
	if payB != "" {
		r, err := st.db.payoutRow(ctx, payB)
		if err != nil {
			return res.abort(err)
		}
		res.check((r.status == "reversed" || r.status == "failed") && r.returned == r.amount && r.nPayout == 1 && r.nReturn == 1 &&
			r.returnMicros == r.amount && r.nPaid <= 1,
			"payout B returned exactly once (created/reversed/failed in any order)", "%s", r)
	}
	if payA != "" {
		v, err := s.earnings(ctx, e.creator)
		if err != nil {
			return res.abort(err)
		}
		res.check(v.available+v.pending == view0.available+view0.pending-10_000_000 && v.inTransit == 0 && v.paidOut == view0.paidOut+10_000_000,
			"the earner's earnings fell by exactly the paid payout, nothing in transit",
			"available + pending %d → %d µ$, paid out %d → %d µ$, in transit %d µ$", view0.available+view0.pending, v.available+v.pending, view0.paidOut, v.paidOut, v.inTransit)
	}
	// Unknown transfers: acknowledged, recorded as unknown, no money moved.
	var unknownOK, moved int
	err := retryDB(ctx, func(ctx context.Context) error {
		if err := st.db["wallet"].QueryRow(ctx, `SELECT count(*) FROM processed_webhook_events WHERE event_id = ANY($1) AND outcome = 'unknown_object'`,
			unknownEvents).Scan(&unknownOK); err != nil {
			return err
		}
		return st.db["wallet"].QueryRow(ctx, `SELECT count(*) FROM transfers WHERE type IN ('payout', 'payout_paid', 'payout_return')
			AND created_at >= $1 AND uid <> $2`, start, func() string {
			if e != nil {
				return e.creator.UID
			}
			return ""
		}()).Scan(&moved)
	})
	if err != nil {
		return res.abort(err)
	}
	res.check(unknownOK == len(unknownEvents) && moved == 0, "transfer.* for unknown transfers acknowledged and changed nothing",
		"%d/%d recorded unknown_object; payout transfers of anyone but the earner during the storm: %d", unknownOK, len(unknownEvents), moved)
	outcomes := map[string]int{}
	rows, err := st.db["wallet"].Query(ctx, `SELECT COALESCE(outcome, ''), count(*) FROM processed_webhook_events
		WHERE event_id LIKE 'evt_faults_connect_%' AND received_at >= $1 GROUP BY 1`, start)
	if err == nil {
		for rows.Next() {
			var o string
			var n int
			if rows.Scan(&o, &n) == nil {
				outcomes[o] = n
			}
		}
		rows.Close()
	}
	res.line("wallet's recorded outcomes of the distinct Connect event ids: %s", fmtCounts(outcomes))
	res.money = fmt.Sprintf("%d accounts = newest event", nAcc-len(wrong))
	if payA != "" {
		res.money += "; payout A paid once"
	}
	if payB != "" {
		res.money += "; payout B returned once"
	}
	res.recovery = "n/a (no outage)"
	return res
}

// simForm POSTs an (empty) form to one of the simulator's hosted pages and
// expects its redirect (303) or 2xx.
func (s *stack) simForm(ctx context.Context, path string) error {
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(cctx, http.MethodPost, s.stripeSim+path, nil)
	resp, err := s.noRedir.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther && resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: HTTP %d", path, resp.StatusCode)
	}
	return nil
}
