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
	earn                                    earningsLedger
}

// earningsLedger: the creators' money (issue 28; wallet migrations
// 00007_earnings.sql and 00008_payouts.sql), read in the ledger's snapshot.
type earningsLedger struct {
	present                     bool  // the wallet database has the earnings tables
	transfers, transferMicros   int64 // 'earning' transfers (platform revenue → pending earnings)
	rows, rowMicros, partMicros int64 // earnings rows: Σ amount, Σ markup + greeting
	problems                    []string
	// counts of the problems by check
	rowVsTransfer, pendingVsRows, captureVsEarning, creditedTwice, payoutVsTransfers int
}

func (e earningsLedger) ok() bool {
	return len(e.problems) == 0 && e.transferMicros == e.rowMicros && e.rowMicros == e.partMicros
}

func (e earningsLedger) String() string {
	if !e.present {
		return "earnings: no earnings tables in the wallet database"
	}
	s := fmt.Sprintf("earnings: %d earning transfers Σ %d µ$ = Σ %d earnings rows %d µ$ = Σ markup + greeting %d µ$: %v; rows ≠ their transfer: %d; pending accounts ≠ unreleased rows: %d; consumer captures ≠ their earning: %d; answers credited more than once: %d; payouts ≠ their transfers: %d",
		e.transfers, e.transferMicros, e.rows, e.rowMicros, e.partMicros, e.transferMicros == e.rowMicros && e.rowMicros == e.partMicros,
		e.rowVsTransfer, e.pendingVsRows, e.captureVsEarning, e.creditedTwice, e.payoutVsTransfers)
	if len(e.problems) > 0 {
		s += fmt.Sprintf(" %v", e.problems[:min(3, len(e.problems))])
	}
	return s
}

// earningsChecks are the wallet's own invariant checks of the earnings
// (postgres_earnings.go checkEarnings, postgres_payouts.go
// CheckPayoutInvariants), each row one problem: (what, a, b).
var earningsChecks = []struct {
	counter, format, sql string
}{
	{"row", "earning %s: transfer %d, earnings row %d", `
		SELECT COALESCE(t.id, e.transfer_id)::text, COALESCE(t.amount_micros, 0), COALESCE(e.amount_micros, 0)
		FROM (SELECT id, amount_micros FROM transfers WHERE type = 'earning') t
		FULL JOIN earnings e ON e.transfer_id = t.id
		WHERE COALESCE(t.amount_micros, 0) <> COALESCE(e.amount_micros, 0)
		   OR e.amount_micros <> e.markup_micros + e.greeting_micros`},
	{"pending", "pending earnings of %s: account %d, unreleased rows %d", `
		WITH un AS (SELECT creator_uid AS uid, sum(amount_micros) AS micros FROM earnings WHERE NOT released GROUP BY 1),
		     acc AS (SELECT uid, balance_micros FROM accounts WHERE kind = 'user_earnings_pending')
		SELECT COALESCE(acc.uid, un.uid), COALESCE(acc.balance_micros, 0), COALESCE(un.micros, 0)::bigint
		FROM acc FULL JOIN un ON un.uid = acc.uid
		WHERE COALESCE(acc.balance_micros, 0) <> COALESCE(un.micros, 0)`},
	{"capture", "consumer capture (hold %s): markup + greeting %d, earning %d", `
		SELECT h.id::text,
			(COALESCE(NULLIF(h.capture_metadata->>'markup_micros', ''), '0')::bigint
			 + COALESCE(NULLIF(h.capture_metadata->>'greeting_micros', ''), '0')::bigint),
			COALESCE(t.amount_micros, 0)
		FROM holds h LEFT JOIN transfers t ON t.idempotency_key = 'hold:' || h.id::text || ':earning'
		WHERE h.status = 'captured' AND h.capture_metadata->>'payer_role' = 'consumer'
		  AND (COALESCE(NULLIF(h.capture_metadata->>'markup_micros', ''), '0')::bigint
			 + COALESCE(NULLIF(h.capture_metadata->>'greeting_micros', ''), '0')::bigint) <> COALESCE(t.amount_micros, 0)`},
	{"twice", "answer %s credited %d times (Σ %d µ$)", `
		SELECT message_id, count(*), sum(amount_micros)::bigint FROM earnings
		WHERE message_id <> '' GROUP BY message_id HAVING count(*) > 1`},
}

// payoutCheck is CheckPayoutInvariants: every payout's transfers add up to
// its row, every in-transit account holds its user's payout in flight.
const payoutCheck = `
	WITH t AS (
		SELECT metadata->>'payout_id' AS pid,
			COALESCE(sum(amount_micros) FILTER (WHERE type = 'payout'), 0)::bigint AS out,
			COALESCE(sum(amount_micros) FILTER (WHERE type = 'payout_paid'), 0)::bigint AS paid,
			COALESCE(sum(amount_micros) FILTER (WHERE type = 'payout_return'), 0)::bigint AS back
		FROM transfers WHERE type IN ('payout', 'payout_paid', 'payout_return') GROUP BY 1
	)
	SELECT 'payout ' || p.id::text || ' ' || p.status, p.amount_micros, p.returned_micros, COALESCE(t.out, 0), COALESCE(t.paid, 0), COALESCE(t.back, 0)
	FROM payouts p LEFT JOIN t ON t.pid = p.id::text
	WHERE COALESCE(t.out, 0) <> p.amount_micros OR COALESCE(t.back, 0) <> p.returned_micros
	   OR (p.status = 'in_transit' AND COALESCE(t.paid, 0) <> 0)
	   OR (p.status = 'paid' AND COALESCE(t.paid, 0) = 0)
	   OR COALESCE(t.paid, 0) > p.amount_micros
	UNION ALL
	SELECT 'in transit of ' || a.uid, a.balance_micros, 0,
		COALESCE((SELECT sum(amount_micros - returned_micros) FROM payouts p WHERE p.uid = a.uid AND p.status = 'in_transit'), 0)::bigint, 0, 0
	FROM accounts a WHERE a.kind = 'user_payouts_in_transit'
	  AND a.balance_micros <> COALESCE((SELECT sum(amount_micros - returned_micros) FROM payouts p
			WHERE p.uid = a.uid AND p.status = 'in_transit'), 0)`

// checkEarnings reads the creators' money in the ledger's snapshot tx.
func checkEarnings(ctx context.Context, tx pgx.Tx) (earningsLedger, error) {
	var e earningsLedger
	var payouts bool
	if err := tx.QueryRow(ctx, `SELECT to_regclass('earnings') IS NOT NULL, to_regclass('payouts') IS NOT NULL`).Scan(&e.present, &payouts); err != nil {
		return e, err
	}
	if !e.present {
		return e, nil
	}
	if err := tx.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM transfers WHERE type = 'earning'),
			(SELECT COALESCE(sum(amount_micros), 0) FROM transfers WHERE type = 'earning')::bigint,
			(SELECT count(*) FROM earnings),
			(SELECT COALESCE(sum(amount_micros), 0) FROM earnings)::bigint,
			(SELECT COALESCE(sum(markup_micros + greeting_micros), 0) FROM earnings)::bigint`).
		Scan(&e.transfers, &e.transferMicros, &e.rows, &e.rowMicros, &e.partMicros); err != nil {
		return e, err
	}
	for _, c := range earningsChecks {
		rows, err := tx.Query(ctx, c.sql)
		if err != nil {
			return e, err
		}
		for rows.Next() {
			var id string
			var a, b int64
			if err := rows.Scan(&id, &a, &b); err != nil {
				rows.Close()
				return e, err
			}
			e.problems = append(e.problems, fmt.Sprintf(c.format, id, a, b))
			switch c.counter {
			case "row":
				e.rowVsTransfer++
			case "pending":
				e.pendingVsRows++
			case "capture":
				e.captureVsEarning++
			case "twice":
				e.creditedTwice++
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return e, err
		}
	}
	if !payouts {
		return e, nil
	}
	rows, err := tx.Query(ctx, payoutCheck)
	if err != nil {
		return e, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var amount, ret, out, paid, back int64
		if err := rows.Scan(&id, &amount, &ret, &out, &paid, &back); err != nil {
			return e, err
		}
		e.payoutVsTransfers++
		e.problems = append(e.problems, fmt.Sprintf("%s: amount %d, returned %d; transfers out %d, paid %d, back %d", id, amount, ret, out, paid, back))
	}
	return e, rows.Err()
}

// checkLedger reads the wallet database in one REPEATABLE READ snapshot:
// every transfer debits one account and credits another by the same
// amount, so Σ debits = Σ credits and the balances sum to zero; every
// account's stored balance equals its credits minus its debits; no user
// wallet, hold, earnings (pending, available) or payouts-in-transit account
// is below zero (the debt account, by design, is never above zero); and the
// creators' earnings (checkEarnings): Σ 'earning' transfers = Σ earnings
// rows = Σ markup + greeting, each row its transfer, each creator's pending
// account its unreleased rows, each consumer capture its earning, no answer
// credited twice, every payout's transfers its row.
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
				    OR (a.kind IN ('user_wallet', 'user_holds', 'user_earnings_pending', 'user_earnings_available',
				        'user_payouts_in_transit') AND a.balance_micros < 0)
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
			if err := tx.QueryRow(ctx, `SELECT count(*), COALESCE(sum(amount_micros), 0)::bigint FROM holds WHERE status = 'held'`).
				Scan(&l.openHolds, &l.openHoldMicros); err != nil {
				return err
			}
			l.earn, err = checkEarnings(ctx, tx)
			return err
		})
	})
	return l, err
}

func (l ledger) ok() bool {
	return l.debits == l.credits && l.sumBalances == 0 && len(l.mismatched) == 0 && len(l.negative) == 0 && l.earn.ok()
}

func (l ledger) String() string {
	s := fmt.Sprintf("%d transfers: Σ debits %d = Σ credits %d µ$: %v; Σ balances %d; accounts ≠ their transfers: %d; user accounts below zero: %d; open holds %d (%d µ$)",
		l.transfers, l.debits, l.credits, l.debits == l.credits, l.sumBalances, len(l.mismatched), len(l.negative), l.openHolds, l.openHoldMicros)
	if bad := append(slices.Clone(l.mismatched), l.negative...); len(bad) > 0 {
		s += fmt.Sprintf(" %v", bad[:min(3, len(bad))])
	}
	return s + "; " + l.earn.String()
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
	"agentic.identity.v1": {{"catalog", "catalog"}, {"analytics", "analytics"}, {"conversations-catalog", "conversations"}},
	"agentic.catalog.v1": {{"wallet-catalog", "wallet"}, {"analytics", "analytics"}, {"mail-invitations", "mail"},
		{"documents-catalog", "documents"}, {"conversations-catalog", "conversations"}, {"catalog-ratings", "catalog"}},
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

// --- consumer answers: each capture credited to the creator exactly once ---------

type consumerReport struct {
	charges     int            // consumer answers metered in the window
	states      map[string]int // their charge states
	captured    int            // captured with markup + greeting > 0
	capturedSum int64          // Σ their total (what the consumers paid)
	creatorSum  int64          // Σ markup + greeting of the captured ones
	credited    int            // captured ones with exactly one earning of their markup + greeting
	missing     int            // captured, no earning (yet: a capture settles both in one transaction)
	twice       int            // more than one earning for one answer (capture and late charge both credited)
	wrong       int            // an earning of another amount, or without its earnings row
	unpaid      int            // released/unbilled answers that credited the creator anyway
	details     []string
}

func (r consumerReport) ok() bool {
	return r.missing == 0 && r.twice == 0 && r.wrong == 0 && r.unpaid == 0 && r.credited == r.captured
}

func (r consumerReport) String() string {
	s := fmt.Sprintf("%d consumer answers metered (%s); %d captured (consumers paid %d µ$, creators' part %d µ$): %d credited to the creator exactly once, %d without their earning, %d credited twice, %d with another amount; %d refused/released answers credited",
		r.charges, fmtCounts(r.states), r.captured, r.capturedSum, r.creatorSum, r.credited, r.missing, r.twice, r.wrong, r.unpaid)
	if len(r.details) > 0 {
		s += fmt.Sprintf(" %v", r.details[:min(3, len(r.details))])
	}
	return s
}

// checkConsumers: every consumer answer metered since from (conversations
// charges whose reserve or capture metadata says payer_role consumer) that
// was captured credited the creator exactly once with its markup + greeting
// (the wallet's 'earning' transfer, key hold:<hold>:earning for a capture,
// <key>:late:earning for the late direct charge, and its earnings row); one
// released or unbilled credited nothing. That each was charged once (one
// expense of the captured total) is checkCharges', which covers every payer.
func (d dbs) checkConsumers(ctx context.Context, from time.Time) (consumerReport, error) {
	r := consumerReport{states: map[string]int{}}
	type ch struct {
		key, hold, state string
		total, creator   int64
	}
	var all []ch
	err := retryDB(ctx, func(ctx context.Context) error {
		clear(r.states)
		all = all[:0]
		rows, err := d["conversations"].Query(ctx, `SELECT idempotency_key, COALESCE(hold_id, ''), state, COALESCE(capture_micros, 0),
				COALESCE(NULLIF(capture_meta->>'markup_micros', ''), '0')::bigint + COALESCE(NULLIF(capture_meta->>'greeting_micros', ''), '0')::bigint
			FROM charges WHERE created_at >= $1
			  AND COALESCE(capture_meta->>'payer_role', reserve_meta->>'payer_role') = 'consumer'`, from)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c ch
			if err := rows.Scan(&c.key, &c.hold, &c.state, &c.total, &c.creator); err != nil {
				return err
			}
			all = append(all, c)
		}
		return rows.Err()
	})
	if err != nil || len(all) == 0 {
		return r, err
	}
	r.charges = len(all)
	var keys []string
	for _, c := range all {
		r.states[c.state]++
		if c.hold != "" {
			keys = append(keys, "hold:"+c.hold+":earning")
		}
		keys = append(keys, c.key+":late:earning")
	}
	type earning struct {
		micros int64
		row    bool
	}
	got := map[string]earning{}
	err = retryDB(ctx, func(ctx context.Context) error {
		clear(got)
		rows, err := d["wallet"].Query(ctx, `SELECT t.idempotency_key, t.amount_micros, e.transfer_id IS NOT NULL AND e.amount_micros = t.amount_micros
			FROM transfers t LEFT JOIN earnings e ON e.transfer_id = t.id
			WHERE t.type = 'earning' AND t.idempotency_key = ANY($1)`, keys)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			var e earning
			if err := rows.Scan(&k, &e.micros, &e.row); err != nil {
				return err
			}
			got[k] = e
		}
		return rows.Err()
	})
	if err != nil {
		return r, err
	}
	for _, c := range all {
		var found []earning
		for _, k := range []string{"hold:" + c.hold + ":earning", c.key + ":late:earning"} {
			if e, ok := got[k]; ok {
				found = append(found, e)
			}
		}
		switch {
		case c.state != "captured" || c.total == 0 || c.creator == 0:
			if len(found) > 0 && c.state != "captured" {
				r.unpaid++
				r.details = append(r.details, fmt.Sprintf("charge %s %s: %d earnings", c.key, c.state, len(found)))
			}
			continue
		}
		r.captured++
		r.capturedSum += c.total
		r.creatorSum += c.creator
		switch {
		case len(found) == 0:
			r.missing++
			r.details = append(r.details, fmt.Sprintf("charge %s: no earning for %d µ$", c.key, c.creator))
		case len(found) > 1:
			r.twice++
			r.details = append(r.details, fmt.Sprintf("charge %s: %d earnings", c.key, len(found)))
		case found[0].micros != c.creator || !found[0].row:
			r.wrong++
			r.details = append(r.details, fmt.Sprintf("charge %s: earning %d µ$ (row %v) for markup + greeting %d", c.key, found[0].micros, found[0].row, c.creator))
		default:
			r.credited++
		}
	}
	return r, nil
}
