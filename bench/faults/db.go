package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// dbs are the services' databases, read directly for the invariants.
type dbs map[string]*pgxpool.Pool

func openDBs(ctx context.Context, base string) (dbs, error) {
	d := dbs{}
	for _, s := range services {
		cfg, err := pgxpool.ParseConfig(fmt.Sprintf("%s/agentic_%s?sslmode=disable&pool_max_conns=2&connect_timeout=3", strings.TrimRight(base, "/"), s.name))
		if err != nil {
			return nil, err
		}
		p, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			return nil, err
		}
		d[s.name] = p
	}
	return d, nil
}

func (d dbs) close() {
	for _, p := range d {
		p.Close()
	}
}

// retry runs f until it succeeds or 30 s pass (PostgreSQL may be restarting).
func retryDB(ctx context.Context, f func(context.Context) error) error {
	var err error
	for deadline := time.Now().Add(30 * time.Second); ; {
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		err = f(cctx)
		cancel()
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// --- money -------------------------------------------------------------------

type ledger struct {
	transfers, debits, credits, sumBalances int64
	mismatched                              []string // accounts whose stored balance ≠ credits − debits
	negative                                []string // user wallets / hold accounts below zero, debt above zero
	openHolds, openHoldMicros               int64
}

// checkLedger reads the wallet database in one REPEATABLE READ snapshot:
// every transfer debits one account and credits another by the same
// amount, so Σ debits = Σ credits and the balances sum to zero; every
// account's stored balance equals its credits minus its debits; no user
// wallet or hold account is below zero (the debt account, by design, is
// never above zero).
func (d dbs) checkLedger(ctx context.Context) (ledger, error) {
	var l ledger
	err := retryDB(ctx, func(ctx context.Context) error {
		l = ledger{}
		return pgx.BeginTxFunc(ctx, d["wallet"], pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			if err := tx.QueryRow(ctx, `SELECT count(*),
					COALESCE((SELECT sum(amount_micros) FROM transfers t JOIN accounts a ON a.id = t.debit_account), 0)::bigint,
					COALESCE((SELECT sum(amount_micros) FROM transfers t JOIN accounts a ON a.id = t.credit_account), 0)::bigint,
					(SELECT COALESCE(sum(balance_micros), 0) FROM accounts)::bigint
				FROM transfers`).Scan(&l.transfers, &l.debits, &l.credits, &l.sumBalances); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, `
				WITH movements AS (
					SELECT credit_account AS account, amount_micros AS delta FROM transfers
					UNION ALL
					SELECT debit_account, -amount_micros FROM transfers
				)
				SELECT a.id, a.kind, a.balance_micros, COALESCE(sum(m.delta), 0)::bigint
				FROM accounts a LEFT JOIN movements m ON m.account = a.id
				GROUP BY a.id, a.kind, a.balance_micros
				HAVING a.balance_micros <> COALESCE(sum(m.delta), 0)
				    OR (a.kind IN ('user_wallet', 'user_holds') AND a.balance_micros < 0)
				    OR (a.kind = 'user_debt' AND a.balance_micros > 0)`)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id, kind string
				var stored, moved int64
				if err := rows.Scan(&id, &kind, &stored, &moved); err != nil {
					return err
				}
				if stored != moved {
					l.mismatched = append(l.mismatched, fmt.Sprintf("%s stored %d, transfers %d", id, stored, moved))
				} else {
					l.negative = append(l.negative, fmt.Sprintf("%s (%s) %d", id, kind, stored))
				}
			}
			if err := rows.Err(); err != nil {
				return err
			}
			return tx.QueryRow(ctx, `SELECT count(*), COALESCE(sum(amount_micros), 0)::bigint FROM holds WHERE status = 'held'`).
				Scan(&l.openHolds, &l.openHoldMicros)
		})
	})
	return l, err
}

func (l ledger) ok() bool {
	return l.debits == l.credits && l.sumBalances == 0 && len(l.mismatched) == 0 && len(l.negative) == 0
}

func (l ledger) String() string {
	s := fmt.Sprintf("%d transfers: Σ debits %d = Σ credits %d µ$: %v; Σ balances %d; accounts ≠ their transfers: %d; wallets below zero: %d; open holds %d (%d µ$)",
		l.transfers, l.debits, l.credits, l.debits == l.credits, l.sumBalances, len(l.mismatched), len(l.negative), l.openHolds, l.openHoldMicros)
	if bad := append(slices.Clone(l.mismatched), l.negative...); len(bad) > 0 {
		s += fmt.Sprintf(" %v", bad[:min(3, len(bad))])
	}
	return s
}

// sessionReport: every paid Checkout Session credited exactly once with
// its recorded amount.
type sessionReport struct {
	paid, credited, pending, twice, wrongAmount, missing int
	details                                              []string
}

func (r sessionReport) ok() bool {
	return r.twice == 0 && r.wrongAmount == 0 && r.missing == 0 && r.pending == 0 && r.credited == r.paid
}

func (r sessionReport) String() string {
	s := fmt.Sprintf("%d paid sessions: %d credited exactly once, %d not (yet) credited, %d credited more than once, %d with a wrong amount, %d unknown to the wallet",
		r.paid, r.credited, r.pending, r.twice, r.wrongAmount, r.missing)
	if len(r.details) > 0 {
		s += fmt.Sprintf(" %v", r.details[:min(3, len(r.details))])
	}
	return s
}

// checkSessions looks each paid session up in the wallet: status paid, one
// deposit (idempotency key stripe:checkout:<id>) of amount_cents × 10⁴ µ$.
func (d dbs) checkSessions(ctx context.Context, paid []paidSession) (sessionReport, error) {
	r := sessionReport{paid: len(paid)}
	if len(paid) == 0 {
		return r, nil
	}
	ids := make([]string, len(paid))
	want := map[string]int64{}
	for i, p := range paid {
		ids[i] = p.id
		want[p.id] = p.cents
	}
	type row struct {
		status   string
		cents    int64
		deposits int64
		micros   int64
	}
	got := map[string]row{}
	err := retryDB(ctx, func(ctx context.Context) error {
		clear(got)
		rows, err := d["wallet"].Query(ctx, `
			SELECT cs.id, cs.status, cs.amount_cents,
				(SELECT count(*) FROM transfers t WHERE t.idempotency_key = 'stripe:checkout:' || cs.id),
				COALESCE((SELECT sum(amount_micros) FROM transfers t WHERE t.idempotency_key = 'stripe:checkout:' || cs.id), 0)::bigint
			FROM checkout_sessions cs WHERE cs.id = ANY($1)`, ids)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			var x row
			if err := rows.Scan(&id, &x.status, &x.cents, &x.deposits, &x.micros); err != nil {
				return err
			}
			got[id] = x
		}
		return rows.Err()
	})
	if err != nil {
		return r, err
	}
	for _, id := range ids {
		x, ok := got[id]
		switch {
		case !ok:
			r.missing++
			r.details = append(r.details, id+" unknown")
		case x.deposits == 0:
			r.pending++
			r.details = append(r.details, fmt.Sprintf("%s %s, no deposit", id, x.status))
		case x.deposits > 1:
			r.twice++
			r.details = append(r.details, fmt.Sprintf("%s %d deposits", id, x.deposits))
		case x.micros != want[id]*10_000 || x.status != "paid":
			r.wrongAmount++
			r.details = append(r.details, fmt.Sprintf("%s %s deposit %d µ$ for %d cents", id, x.status, x.micros, want[id]))
		default:
			r.credited++
		}
	}
	return r, nil
}

// --- events ------------------------------------------------------------------

// consumers: which consumer groups (in which service's database) read which topic.
var consumers = map[string][]struct{ group, db string }{
	"agentic.identity.v1":  {{"catalog", "catalog"}, {"analytics", "analytics"}},
	"agentic.catalog.v1":   {{"wallet-catalog", "wallet"}, {"analytics", "analytics"}},
	"agentic.documents.v1": {{"conversations-documents", "conversations"}, {"analytics", "analytics"}},
	"agentic.wallet.v1":    {{"mail-notifications", "mail"}, {"analytics", "analytics"}},
	"agentic.usage.v1":     {{"catalog-usage", "catalog"}, {"analytics", "analytics"}, {"mail-usage", "mail"}},
}

var producers = []string{"identity", "catalog", "documents", "wallet", "conversations", "mail"}

type eventReport struct {
	produced, published, expected, consumed, parked, missing int
	byTopic                                                  map[string][3]int // produced, expected deliveries, consumed
	missingSample                                            []string
}

func (r eventReport) String() string {
	s := fmt.Sprintf("%d produced (outbox), %d published; consumer deliveries: %d expected, %d consumed, %d parked, %d lost",
		r.produced, r.published, r.expected, r.consumed, r.parked, r.missing)
	var parts []string
	for _, t := range slices.Sorted(maps.Keys(r.byTopic)) {
		v := r.byTopic[t]
		parts = append(parts, fmt.Sprintf("%s %d→%d/%d", strings.TrimSuffix(strings.TrimPrefix(t, "agentic."), ".v1"), v[0], v[2], v[1]))
	}
	if len(parts) > 0 {
		s += " [" + strings.Join(parts, ", ") + "]"
	}
	if len(r.missingSample) > 0 {
		s += fmt.Sprintf(" e.g. %v", r.missingSample[:min(3, len(r.missingSample))])
	}
	return s
}

// checkEvents compares the events the producers' outboxes recorded in
// [from, to) with the consumers' processed_events / parked_events.
func (d dbs) checkEvents(ctx context.Context, from, to time.Time) (eventReport, error) {
	r := eventReport{byTopic: map[string][3]int{}}
	type ev struct{ id, topic string }
	var evs []ev
	for _, p := range producers {
		err := retryDB(ctx, func(ctx context.Context) error {
			rows, err := d[p].Query(ctx, `SELECT event_id::text, topic, published_at IS NOT NULL FROM outbox
				WHERE created_at >= $1 AND created_at < $2`, from, to)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var e ev
				var pub bool
				if err := rows.Scan(&e.id, &e.topic, &pub); err != nil {
					return err
				}
				evs = append(evs, e)
				r.produced++
				if pub {
					r.published++
				}
			}
			return rows.Err()
		})
		if err != nil && !strings.Contains(err.Error(), "does not exist") {
			return r, fmt.Errorf("outbox of %s: %w", p, err)
		}
	}
	// Per consumer database: which of these ids each group processed or parked.
	idsByDB := map[string][]string{}
	for _, e := range evs {
		for _, c := range consumers[e.topic] {
			idsByDB[c.db] = append(idsByDB[c.db], e.id)
		}
	}
	seen := map[string]string{} // group/id → processed|parked
	for db, ids := range idsByDB {
		err := retryDB(ctx, func(ctx context.Context) error {
			rows, err := d[db].Query(ctx, `SELECT consumer_group, event_id, 'processed' FROM processed_events WHERE event_id = ANY($1)
				UNION ALL SELECT consumer_group, event_id, 'parked' FROM parked_events WHERE event_id = ANY($1)`, ids)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var g, id, how string
				if err := rows.Scan(&g, &id, &how); err != nil {
					return err
				}
				if seen[g+"/"+id] != "processed" {
					seen[g+"/"+id] = how
				}
			}
			return rows.Err()
		})
		if err != nil {
			return r, fmt.Errorf("processed events in %s: %w", db, err)
		}
	}
	for _, e := range evs {
		t := r.byTopic[e.topic]
		t[0]++
		for _, c := range consumers[e.topic] {
			r.expected++
			t[1]++
			switch seen[c.group+"/"+e.id] {
			case "processed":
				r.consumed++
				t[2]++
			case "parked":
				r.parked++
			default:
				r.missing++
				if len(r.missingSample) < 5 {
					r.missingSample = append(r.missingSample, c.group+" "+e.topic+" "+e.id)
				}
			}
		}
		r.byTopic[e.topic] = t
	}
	return r, nil
}

// unpublished counts outbox rows created since from that the relay has not published.
func (d dbs) unpublished(ctx context.Context, from time.Time) (int, error) {
	n := 0
	for _, p := range producers {
		var c int
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := d[p].QueryRow(cctx, `SELECT count(*) FROM outbox WHERE created_at >= $1 AND published_at IS NULL`, from).Scan(&c)
		cancel()
		if err != nil {
			return -1, err
		}
		n += c
	}
	return n, nil
}

// newParked counts events parked since from, by consumer group.
func (d dbs) newParked(ctx context.Context, from time.Time) (map[string]int, error) {
	out := map[string]int{}
	for _, db := range []string{"catalog", "analytics", "wallet", "conversations", "mail"} {
		err := retryDB(ctx, func(ctx context.Context) error {
			rows, err := d[db].Query(ctx, `SELECT consumer_group, count(*) FROM parked_events WHERE parked_at >= $1 GROUP BY 1`, from)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var g string
				var n int
				if err := rows.Scan(&g, &n); err != nil {
					return err
				}
				out[g] += n
			}
			return rows.Err()
		})
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// --- answers: metering vs ledger vs read models --------------------------------

type chargeReport struct {
	charges       int
	states        map[string]int
	captured      int
	capturedSum   int64
	ledgerMissing int // captured charges without their wallet expense
	ledgerWrong   int // expense of another amount
	ledgerTwice   int // more than one expense for one charge's key
	// Open charges (reserving/held/capturing): the answering request owns
	// one until its lease ends, then the reconciler finishes it.
	openInLease int
	openExpired int
	leaseUntil  time.Time // latest lease of the open ones
	details     []string
}

func (r chargeReport) ok() bool {
	return r.ledgerMissing == 0 && r.ledgerWrong == 0 && r.ledgerTwice == 0 && r.openExpired == 0
}

func (r chargeReport) String() string {
	s := fmt.Sprintf("%d answers metered (%s); %d captured for %d µ$: %d without their wallet expense, %d with another amount, %d charged twice",
		r.charges, fmtCounts(r.states), r.captured, r.capturedSum, r.ledgerMissing, r.ledgerWrong, r.ledgerTwice)
	if r.openInLease+r.openExpired > 0 {
		s += fmt.Sprintf("; open: %d within the answering request's lease (the reconciler takes them over at %s), %d past their lease",
			r.openInLease, r.leaseUntil.Format("15:04:05"), r.openExpired)
	}
	if len(r.details) > 0 {
		s += fmt.Sprintf(" %v", r.details[:min(3, len(r.details))])
	}
	return s
}

// checkCharges: every answer metered since from (conversations.charges)
// is settled, and each captured one is exactly one wallet expense of the
// captured amount.
func (d dbs) checkCharges(ctx context.Context, from time.Time) (chargeReport, error) {
	r := chargeReport{states: map[string]int{}}
	type ch struct {
		key, transfer string
		micros        int64
	}
	var captured []ch
	err := retryDB(ctx, func(ctx context.Context) error {
		clear(r.states)
		captured = captured[:0]
		r.charges, r.openInLease, r.openExpired = 0, 0, 0
		rows, err := d["conversations"].Query(ctx, `SELECT idempotency_key, state, COALESCE(capture_micros, 0), COALESCE(transfer_id, ''),
				lease_until, lease_until < now() - interval '60 seconds'
			FROM charges WHERE created_at >= $1`, from)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c ch
			var state string
			var lease time.Time
			var expired bool
			if err := rows.Scan(&c.key, &state, &c.micros, &c.transfer, &lease, &expired); err != nil {
				return err
			}
			r.charges++
			r.states[state]++
			if state == "reserving" || state == "held" || state == "capturing" {
				if expired {
					r.openExpired++
				} else {
					r.openInLease++
					if lease.After(r.leaseUntil) {
						r.leaseUntil = lease
					}
				}
			}
			if state == "captured" && c.micros > 0 {
				captured = append(captured, c)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return r, err
	}
	r.captured = len(captured)
	if len(captured) == 0 {
		return r, nil
	}
	var transfers []string
	for _, c := range captured {
		r.capturedSum += c.micros
		transfers = append(transfers, c.transfer)
	}
	type tr struct {
		micros int64
		typ    string
	}
	got := map[string]tr{}
	err = retryDB(ctx, func(ctx context.Context) error {
		clear(got)
		rows, err := d["wallet"].Query(ctx, `SELECT id::text, amount_micros, type FROM transfers WHERE id::text = ANY($1)`, transfers)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var t tr
			if err := rows.Scan(&id, &t.micros, &t.typ); err != nil {
				return err
			}
			got[id] = t
		}
		return rows.Err()
	})
	if err != nil {
		return r, err
	}
	for _, c := range captured {
		t, ok := got[c.transfer]
		switch {
		case !ok:
			r.ledgerMissing++
			r.details = append(r.details, fmt.Sprintf("charge %s: transfer %q not in the ledger", c.key, c.transfer))
		case t.micros != c.micros || t.typ != "expense":
			r.ledgerWrong++
			r.details = append(r.details, fmt.Sprintf("charge %s: %s %d µ$ for %d", c.key, t.typ, t.micros, c.micros))
		}
	}
	// Each hold is captured at most once: one expense per hold.
	var twice int
	err = retryDB(ctx, func(ctx context.Context) error {
		return d["wallet"].QueryRow(ctx, `SELECT count(*) FROM (SELECT capture_transfer_id FROM holds
			WHERE created_at >= $1 AND capture_transfer_id IS NOT NULL GROUP BY capture_transfer_id HAVING count(*) > 1) x`, from).Scan(&twice)
	})
	r.ledgerTwice = twice
	return r, err
}

// readModels compares, for the given agents, the catalog's interaction
// counter and the analytics interactions with the answers the
// conversations service captured (the source of truth).
type readModelReport struct {
	agents, answers, catalog, analytics int
	differ                              []string
}

func (r readModelReport) ok() bool { return len(r.differ) == 0 }

func (r readModelReport) String() string {
	s := fmt.Sprintf("%d agents, %d paid answers: catalog counts %d, analytics %d; agents whose counts differ: %d",
		r.agents, r.answers, r.catalog, r.analytics, len(r.differ))
	if len(r.differ) > 0 {
		s += fmt.Sprintf(" %v", r.differ[:min(3, len(r.differ))])
	}
	return s
}

func (d dbs) checkReadModels(ctx context.Context, agents []string) (readModelReport, error) {
	r := readModelReport{agents: len(agents)}
	if len(agents) == 0 {
		return r, nil
	}
	count := func(db, q string) (map[string]int, error) {
		out := map[string]int{}
		err := retryDB(ctx, func(ctx context.Context) error {
			clear(out)
			rows, err := d[db].Query(ctx, q, agents)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var id string
				var n int
				if err := rows.Scan(&id, &n); err != nil {
					return err
				}
				out[id] = n
			}
			return rows.Err()
		})
		return out, err
	}
	truth, err := count("conversations", `SELECT agent_id::text, count(*) FROM charges WHERE agent_id::text = ANY($1) AND state = 'captured' GROUP BY 1`)
	if err != nil {
		return r, err
	}
	cat, err := count("catalog", `SELECT id::text, total_interactions FROM agents WHERE id::text = ANY($1)`)
	if err != nil {
		return r, err
	}
	an, err := count("analytics", `SELECT agent_id, count(*) FROM interactions WHERE agent_id = ANY($1) GROUP BY 1`)
	if err != nil {
		return r, err
	}
	for _, a := range agents {
		r.answers += truth[a]
		r.catalog += cat[a]
		r.analytics += an[a]
		if truth[a] != cat[a] || truth[a] != an[a] {
			r.differ = append(r.differ, fmt.Sprintf("%s: %d answers, catalog %d, analytics %d", a, truth[a], cat[a], an[a]))
		}
	}
	return r, nil
}
