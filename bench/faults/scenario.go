package main

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"
)

// result is what one scenario found.
type result struct {
	name, title string
	lines       []string
	fails       []string
	load        *tally
	events      string
	money       string
	recovery    string
	settled     string
	aborted     error
}

func (r *result) line(format string, args ...any) {
	l := fmt.Sprintf(format, args...)
	r.lines = append(r.lines, l)
	fmt.Println("  " + l)
}

func (r *result) check(ok bool, name, format string, args ...any) {
	d := fmt.Sprintf(format, args...)
	if ok {
		r.line("PASS  %s — %s", name, d)
		return
	}
	r.line("FAIL  %s — %s", name, d)
	r.fails = append(r.fails, name+": "+d)
}

func (r *result) fail(format string, args ...any) {
	r.check(false, "error", format, args...)
}

func (r *result) abort(err error) *result {
	r.aborted = err
	r.line("ABORTED  %v", err)
	r.fails = append(r.fails, "aborted: "+err.Error())
	return r
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// --- readiness and probes -------------------------------------------------------

// readyz answers every service's /readyz status (0: no answer).
func (st *suite) readyz(ctx context.Context) map[string]int {
	out := map[string]int{}
	for _, s := range services {
		out[s.name] = st.s.status(ctx, fmt.Sprintf("http://127.0.0.1:%d/readyz", s.httpPort))
	}
	return out
}

func green(m map[string]int) bool {
	for _, c := range m {
		if c != http.StatusOK {
			return false
		}
	}
	return true
}

func fmtStatuses(m map[string]int) string {
	var parts []string
	for _, s := range services {
		c, ok := m[s.name]
		if !ok {
			continue
		}
		v := fmt.Sprintf("%d", c)
		if c == 0 {
			v = "down"
		}
		parts = append(parts, s.name+" "+v)
	}
	return strings.Join(parts, ", ")
}

// probe runs one request that only succeeds when the named part works.
func (st *suite) probe(ctx context.Context, what string) error {
	u := st.probeUser
	switch what {
	case "identity":
		return st.s.do(ctx, 5*time.Second, http.MethodPost, st.s.Base+"/api/user/onboarding", u.Token, map[string]any{"displayName": "Fault probe"}, nil)
	case "catalog":
		return st.s.editAgent(ctx, u)
	case "documents":
		return st.s.get(ctx, u, "/api/agents/"+u.agentID+"/documents")
	case "wallet":
		return st.s.get(ctx, u, "/api/user/balance")
	case "analytics":
		return st.s.get(ctx, u, "/api/dashboard/stats")
	case "conversations":
		return st.s.get(ctx, u, "/api/agents/"+u.agentID+"/conversations")
	case "chat":
		if u.conv == "" || u.turns >= 4 {
			c, err := st.s.newConversation(ctx, u)
			if err != nil {
				return err
			}
			u.conv, u.turns = c, 0
		}
		u.turns++
		_, err := st.s.chat(ctx, u, "Are you there?")
		return err
	case "mail":
		// The agents' SMTP inbox greets.
		d := net.Dialer{Timeout: 3 * time.Second}
		c, err := d.DialContext(ctx, "tcp", "127.0.0.1:2525")
		if err != nil {
			return err
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(3 * time.Second))
		l, err := bufio.NewReader(c).ReadString('\n')
		if err != nil || !strings.HasPrefix(l, "220") {
			return fmt.Errorf("smtp greeting %q: %v", l, err)
		}
		return nil
	}
	return fmt.Errorf("unknown probe %s", what)
}

// --- fault scenarios ----------------------------------------------------------------

// fault describes one injected fault.
type fault struct {
	name, title string
	// inject breaks the part; it returns a description.
	inject func(ctx context.Context) (string, error)
	// hold is how long the fault lasts before restore.
	hold time.Duration
	// restore starts the part again; it returns how.
	restore func(ctx context.Context) (string, error)
	// probes must succeed for the scenario to count as recovered.
	probes []string
	// sampleReady: report /readyz during the outage.
	sampleReady bool
	// prepare, when set, runs right before inject (after the warm-up) and
	// says what it did (the wallet kill: consumer answers in flight).
	prepare func(ctx context.Context) string
}

// faultScenario: warm-up under load, inject, hold, restore, measure the
// time until readiness is green and every probe succeeds, keep the load on
// a few seconds, stop it, let the outbox and answers settle, check.
func (st *suite) faultScenario(ctx context.Context, f fault) *result {
	res := &result{name: f.name, title: f.title}
	if err := st.s.WaitHealthy(ctx); err != nil {
		return res.abort(err)
	}
	start := time.Now()
	st.load.start(ctx)
	loadStopped := false
	stopLoad := func() {
		if !loadStopped {
			st.load.stop()
			loadStopped = true
		}
	}
	defer stopLoad()
	sessions0 := len(st.load.paid())
	sleepCtx(ctx, st.warm)

	if f.prepare != nil {
		res.line("before the fault: %s", f.prepare(ctx))
	}
	desc, err := f.inject(ctx)
	faultAt := time.Now()
	if err != nil {
		return res.abort(fmt.Errorf("inject: %w", err))
	}
	res.line("fault at +%.1f s under load: %s", faultAt.Sub(start).Seconds(), desc)
	restored := false
	defer func() {
		if !restored {
			how, err := f.restore(context.WithoutCancel(ctx))
			fmt.Printf("  (restored after an interruption: %s %v)\n", how, err)
		}
	}()

	// Hold the fault; sample readiness and the probes while it lasts.
	worst := map[string]int{}
	probeDuring := map[string]map[string]int{}
	holdEnd := faultAt.Add(f.hold)
	for time.Now().Before(holdEnd) && ctx.Err() == nil {
		if f.sampleReady {
			for k, v := range st.readyz(ctx) {
				if old, ok := worst[k]; !ok || old == http.StatusOK {
					worst[k] = v
				}
			}
			for _, p := range f.probes {
				if probeDuring[p] == nil {
					probeDuring[p] = map[string]int{}
				}
				probeDuring[p][outcome(st.probe(ctx, p))]++
			}
		}
		sleepCtx(ctx, min(time.Until(holdEnd), 2*time.Second))
	}
	if f.sampleReady {
		n503 := 0
		for _, v := range worst {
			if v != http.StatusOK {
				n503++
			}
		}
		res.line("readyz during the outage (worst seen): %s — not ready: %d of %d services", fmtStatuses(worst), n503, len(worst))
		var parts []string
		for _, p := range sortedKeys(probeDuring) {
			parts = append(parts, p+": "+fmtCounts(probeDuring[p]))
		}
		res.line("probes during the outage: %s", strings.Join(parts, "; "))
	}
	how, err := f.restore(ctx)
	restoreAt := time.Now()
	restored = true
	if err != nil {
		res.fail("restore (%s): %v", how, err)
	}
	res.line("restored at +%.1f s (outage %.1f s): %s", restoreAt.Sub(start).Seconds(), restoreAt.Sub(faultAt).Seconds(), how)

	// Recovery: readiness green, then every probe OK.
	var readyAt, probesAt time.Time
	var lastProbeErr string
	deadline := restoreAt.Add(st.maxRecover)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if readyAt.IsZero() {
			if green(st.readyz(ctx)) {
				readyAt = time.Now()
			} else {
				sleepCtx(ctx, 250*time.Millisecond)
				continue
			}
		}
		okAll := true
		for _, p := range f.probes {
			if err := st.probe(ctx, p); err != nil {
				okAll, lastProbeErr = false, p+": "+err.Error()
				break
			}
		}
		if okAll {
			probesAt = time.Now()
			break
		}
		sleepCtx(ctx, 500*time.Millisecond)
	}
	rec := func(t time.Time) string {
		if t.IsZero() {
			return fmt.Sprintf("not within %s", st.maxRecover)
		}
		return fmt.Sprintf("%.1f s", t.Sub(restoreAt).Seconds())
	}
	res.line("recovery after restore: readiness green in %s, probes (%s) OK in %s; fault → probes OK %s",
		rec(readyAt), strings.Join(f.probes, ", "), rec(probesAt), func() string {
			if probesAt.IsZero() {
				return "—"
			}
			return fmt.Sprintf("%.1f s", probesAt.Sub(faultAt).Seconds())
		}())
	if probesAt.IsZero() {
		res.fail("not recovered within %s: %s", st.maxRecover, lastProbeErr)
		res.recovery = "not recovered in " + st.maxRecover.String()
	} else {
		res.recovery = fmt.Sprintf("ready %s, probes %s after restore", rec(readyAt), rec(probesAt))
	}
	sleepCtx(ctx, st.after)
	stopLoad()
	t := st.load.t
	res.load = t
	res.line("requests under load: %s", t.summary())
	for _, l := range t.byOp() {
		res.line("  %s", l)
	}
	if !t.lastFail.IsZero() && !probesAt.IsZero() {
		res.line("last failed load request at %+.1f s from restore (first at %+.1f s from the fault)",
			t.lastFail.Sub(restoreAt).Seconds(), t.firstFail.Sub(faultAt).Seconds())
	}
	st.settleAndCheck(ctx, res, start, restoreAt, st.load.paid()[sessions0:])
	return res
}

// settleAndCheck waits (bounded) for the outbox to drain and answers to
// settle, then checks events, money and read models for the window.
func (st *suite) settleAndCheck(ctx context.Context, res *result, from, restoreAt time.Time, paid []paidSession) {
	var drainedAt, consumedAt, modelsAt time.Time
	deadline := time.Now().Add(st.settle)
	var pending int
	var er eventReport
	var rm readModelReport
	var evErr, rmErr error
	for ctx.Err() == nil {
		if drainedAt.IsZero() {
			n, err := st.db.unpublished(ctx, from)
			var open int
			if err == nil {
				// Answers in flight; an open charge whose request failed waits
				// for its lease to end (the reconciler's turn): reported, not awaited.
				err = st.db["conversations"].QueryRow(ctx, `SELECT count(*) FROM charges WHERE created_at >= $1
					AND state IN ('reserving', 'held', 'capturing') AND (lease_until < now() OR updated_at > now() - interval '30 seconds')`, from).Scan(&open)
			}
			var credit sessionReport
			if err == nil {
				credit, err = st.db.checkSessions(ctx, paid)
			}
			pending = n + open + credit.pending
			if err == nil && pending == 0 {
				drainedAt = time.Now()
			}
		}
		if !drainedAt.IsZero() {
			er, evErr = st.db.checkEvents(ctx, from, drainedAt)
			if evErr == nil && er.missing == 0 && consumedAt.IsZero() {
				consumedAt = time.Now()
			}
			rm, rmErr = st.db.checkReadModels(ctx, st.agents)
			if rmErr == nil && rm.ok() && modelsAt.IsZero() {
				modelsAt = time.Now()
			}
		}
		if (!consumedAt.IsZero() && !modelsAt.IsZero()) || time.Now().After(deadline) {
			break
		}
		sleepCtx(ctx, time.Second)
	}
	since := func(t time.Time) string {
		if t.IsZero() {
			return fmt.Sprintf("not within %s", st.settle)
		}
		return fmt.Sprintf("%.1f s", t.Sub(restoreAt).Seconds())
	}
	res.line("after restore: outbox drained + answers settled + paid sessions credited %s, every event consumed %s, read models caught up %s",
		since(drainedAt), since(consumedAt), since(modelsAt))
	if drainedAt.IsZero() {
		res.line("not settled: %d unpublished events + open answers + uncredited sessions", pending)
		er, evErr = st.db.checkEvents(ctx, from, time.Now())
		rm, rmErr = st.db.checkReadModels(ctx, st.agents)
	}
	if !consumedAt.IsZero() && !modelsAt.IsZero() {
		res.settled = fmt.Sprintf("events consumed %s, read models %s", since(consumedAt), since(modelsAt))
	} else {
		res.settled = "not settled in " + st.settle.String()
	}
	if evErr != nil {
		res.fail("events: %v", evErr)
	} else {
		res.events = fmt.Sprintf("%d→%d/%d (lost %d, parked %d)", er.produced, er.consumed, er.expected, er.missing, er.parked)
		res.check(er.missing == 0 && er.parked == 0 && er.published == er.produced, "events produced = consumed", "%s", er)
	}
	if parked, err := st.db.newParked(ctx, from); err == nil && len(parked) > 0 {
		res.line("events parked in the window (any producer): %s", fmtCounts(parked))
	}
	if rmErr != nil {
		res.fail("read models: %v", rmErr)
	} else {
		res.check(rm.ok(), "read models = source (no lost or duplicated effect)", "%s", rm)
	}
	var ledgerOK, sessionsOK, chargesOK bool
	var sessionsLine, chargesLine string
	if l, err := st.db.checkLedger(ctx); err != nil {
		res.fail("ledger: %v", err)
	} else {
		ledgerOK = l.ok()
		res.check(ledgerOK, "ledger balanced, no wallet below zero, earnings = what consumers' captures credited", "%s", l)
	}
	if sr, err := st.db.checkSessions(ctx, paid); err != nil {
		res.fail("sessions: %v", err)
	} else {
		sessionsOK = sr.ok()
		sessionsLine = fmt.Sprintf("%d/%d paid sessions credited once", sr.credited, sr.paid)
		res.check(sessionsOK, "every paid session credited exactly once", "%s", sr)
	}
	if cr, err := st.db.checkCharges(ctx, from); err != nil {
		res.fail("charges: %v", err)
	} else {
		chargesOK = cr.ok()
		chargesLine = fmt.Sprintf("%d answers charged once", cr.captured)
		res.check(chargesOK, "every answer charged exactly once", "%s", cr)
		if cr.openInLease > 0 {
			res.line("NOTE  %d answer(s) still open inside the answering request's lease: settled by the reconciler after %s", cr.openInLease, cr.leaseUntil.Format(time.TimeOnly))
		}
	}
	consumersOK := true
	var consumersLine string
	if cr, err := st.db.checkConsumers(ctx, from); err != nil {
		res.fail("consumer answers: %v", err)
		consumersOK = false
	} else if cr.charges > 0 {
		consumersOK = cr.ok()
		consumersLine = fmt.Sprintf("%d/%d consumer answers credited to the creator once", cr.credited, cr.captured)
		res.check(consumersOK, "every consumer answer credited to its creator exactly once", "%s", cr)
	}
	verdict := "ledger balanced, none below zero"
	if !ledgerOK {
		verdict = "LEDGER FAIL"
	}
	parts := []string{verdict}
	if res.money != "" {
		parts = append(parts, res.money) // the scenario's own money finding
	}
	if len(paid) > 0 {
		parts = append(parts, sessionsLine)
	}
	parts = append(parts, chargesLine)
	if consumersLine != "" {
		parts = append(parts, consumersLine)
	}
	res.money = strings.Join(parts, "; ")
	if !sessionsOK || !chargesOK || !consumersOK {
		res.money += " (FAIL)"
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
