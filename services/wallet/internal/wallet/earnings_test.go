package wallet

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// consumerMeta is the Reserve metadata of a consumer's answer.
func consumerMeta(creator, agent, name string) map[string]string {
	return map[string]string{MetaPayerRole: PayerRoleConsumer, MetaCreatorUID: creator, MetaAgentID: agent, MetaAgentName: name}
}

func consumerCapture(holdID, creator string, amount, markup, greeting int64) Capture {
	return Capture{HoldID: holdID, AmountMicros: amount, Description: "Tutor · 42 tokens", Metadata: map[string]string{
		MetaPayerRole: PayerRoleConsumer, MetaCreatorUID: creator, "messageId": "m-" + holdID,
		MetaMarkupMicros: strconv.FormatInt(markup, 10), MetaGreetingMicros: strconv.FormatInt(greeting, 10)}}
}

func accountBalance(t testing.TB, pool *pgxpool.Pool, id string) int64 {
	t.Helper()
	var b int64
	if err := pool.QueryRow(context.Background(), `SELECT COALESCE((SELECT balance_micros FROM accounts WHERE id = $1), 0)`, id).Scan(&b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConsumerCaptureSplit: the consumer pays no agent fee (the creator
// does, first, in its own transaction); the capture is one expense of the
// whole total to revenue plus an earning of markup + greeting to the
// creator's pending earnings, exact to the micro-dollar, idempotent.
func TestConsumerCaptureSplit(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "cre", 25*MicrosPerDollar)
	fund(t, s, "con", 5*MicrosPerDollar)
	revenue0 := accountBalance(t, pool, AccountPlatformRevenue)

	r, err := s.Reserve(ctx, Reservation{UID: "con", AmountMicros: 2 * MicrosPerDollar, IdempotencyKey: "c-q1", TTL: time.Hour,
		Metadata: consumerMeta("cre", "ag-split", "Tutor")})
	if err != nil || !r.FeeCharged || len(r.Touched) != 1 || r.Touched[0] != "cre" {
		t.Fatalf("reserve: %+v %v", r, err)
	}
	mustBalance(t, s, "con", Balance{Micros: 5 * MicrosPerDollar, HeldMicros: 2 * MicrosPerDollar})
	mustBalance(t, s, "cre", Balance{Micros: 15 * MicrosPerDollar}) // the creator paid the $10 fee
	if n := feeCount(t, pool, "ag-split"); n != 1 {
		t.Fatalf("fees %d", n)
	}

	const total, markup, greeting = 1_234_567, 100_001, 200_000
	c := consumerCapture(r.Hold.ID, "cre", total, markup, greeting)
	res, err := s.Capture(ctx, c)
	if err != nil || res.Replayed || len(res.Touched) != 1 {
		t.Fatalf("capture: %+v %v", res, err)
	}
	mustBalance(t, s, "con", Balance{Micros: 5*MicrosPerDollar - total})
	if got := accountBalance(t, pool, EarningsPendingAccount("cre")); got != markup+greeting {
		t.Fatalf("pending %d", got)
	}
	if got := accountBalance(t, pool, AccountPlatformRevenue) - revenue0; got != AgentFeeMicros+total-(markup+greeting) {
		t.Fatalf("revenue delta %d", got)
	}
	h := history(t, s, "con")
	if len(h) != 2 || h[0].Type != TypeExpense || h[0].AmountMicros != total || h[0].Description != "Tutor · 42 tokens" {
		t.Fatalf("consumer history %+v", h)
	}
	var row struct {
		consumer, agent, name, msg string
		m, g, a                    int64
	}
	if err := pool.QueryRow(ctx, `SELECT consumer_uid, agent_id, agent_name, message_id, markup_micros, greeting_micros, amount_micros
		FROM earnings WHERE creator_uid = 'cre'`).Scan(&row.consumer, &row.agent, &row.name, &row.msg, &row.m, &row.g, &row.a); err != nil {
		t.Fatal(err)
	}
	if row.consumer != "con" || row.agent != "ag-split" || row.name != "Tutor" || row.msg != "m-"+r.Hold.ID ||
		row.m != markup || row.g != greeting || row.a != markup+greeting {
		t.Fatalf("earnings row %+v", row)
	}
	var evs int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE type = $1`, TypeEarningsCredited).Scan(&evs); err != nil {
		t.Fatal(err)
	}
	if evs != 1 {
		t.Fatalf("%d earnings events", evs)
	}

	// Replays move nothing; other parameters conflict.
	again, err := s.Capture(ctx, c)
	if err != nil || !again.Replayed {
		t.Fatalf("replay: %+v %v", again, err)
	}
	if _, err := s.Capture(ctx, consumerCapture(r.Hold.ID, "cre", total, markup+1, greeting)); !errors.Is(err, ErrIdempotencyConflict) {
		t.Fatalf("conflicting replay: %v", err)
	}
	if got := accountBalance(t, pool, EarningsPendingAccount("cre")); got != markup+greeting {
		t.Fatalf("pending after replays %d", got)
	}
	// A second answer of the same agent: no fee for anyone.
	r2, err := s.Reserve(ctx, Reservation{UID: "con", AmountMicros: MicrosPerDollar, IdempotencyKey: "c-q2", TTL: time.Hour,
		Metadata: consumerMeta("cre", "ag-split", "Tutor")})
	if err != nil || r2.FeeCharged {
		t.Fatalf("second reserve: %+v %v", r2, err)
	}
	mustInvariants(t, s)
}

// TestConsumerValidation: the split must fit in the capture and the creator
// is not the payer; nothing moves.
func TestConsumerValidation(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "cre", 25*MicrosPerDollar)
	fund(t, s, "con", 5*MicrosPerDollar)
	var ve *ValidationError
	if _, err := s.Reserve(ctx, Reservation{UID: "cre", AmountMicros: 1000, IdempotencyKey: "self", TTL: time.Hour,
		Metadata: consumerMeta("cre", "ag-v", "V")}); !errors.As(err, &ve) {
		t.Fatalf("creator as consumer: %v", err)
	}
	if _, err := s.Reserve(ctx, Reservation{UID: "con", AmountMicros: 1000, IdempotencyKey: "nocreator", TTL: time.Hour,
		Metadata: map[string]string{MetaPayerRole: PayerRoleConsumer, MetaAgentID: "ag-v"}}); !errors.As(err, &ve) {
		t.Fatalf("no creator: %v", err)
	}
	r, err := s.Reserve(ctx, Reservation{UID: "con", AmountMicros: MicrosPerDollar, IdempotencyKey: "v1", TTL: time.Hour,
		Metadata: consumerMeta("cre", "ag-v", "V")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Capture(ctx, consumerCapture(r.Hold.ID, "cre", 500, 400, 101)); !errors.As(err, &ve) {
		t.Fatalf("split above the capture: %v", err)
	}
	if _, err := s.Capture(ctx, consumerCapture(r.Hold.ID, "con", 500, 1, 1)); !errors.As(err, &ve) {
		t.Fatalf("creator = payer: %v", err)
	}
	bad := consumerCapture(r.Hold.ID, "cre", 500, 1, 1)
	bad.Metadata[MetaMarkupMicros] = "-3"
	if _, err := s.Capture(ctx, bad); !errors.As(err, &ve) {
		t.Fatalf("negative markup: %v", err)
	}
	if got := accountBalance(t, pool, EarningsPendingAccount("cre")); got != 0 {
		t.Fatalf("pending %d", got)
	}
	// The hold is still open and captures fine.
	if _, err := s.Capture(ctx, consumerCapture(r.Hold.ID, "cre", 500, 400, 100)); err != nil {
		t.Fatal(err)
	}
	// The direct charge path (late-charge fallback): the same split, key <key>:earning.
	p := Posting{UID: "con", Type: TypeExpense, AmountMicros: 1000, IdempotencyKey: "late-1", Provider: ProviderPlatform,
		Description: "V · 3 tokens", Metadata: map[string]string{MetaPayerRole: PayerRoleConsumer, MetaCreatorUID: "cre",
			MetaMarkupMicros: "300", MetaGreetingMicros: "0", MetaAgentID: "ag-v", MetaAgentName: "V"}}
	if _, err := s.Post(ctx, p); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Post(ctx, p); err != nil || !res.Replayed {
		t.Fatalf("charge replay: %+v %v", res, err)
	}
	over := p
	over.IdempotencyKey, over.Metadata = "late-2", map[string]string{MetaPayerRole: PayerRoleConsumer, MetaCreatorUID: "cre", MetaMarkupMicros: "1001"}
	if _, err := s.Post(ctx, over); !errors.As(err, &ve) {
		t.Fatalf("charge split above the amount: %v", err)
	}
	if got := accountBalance(t, pool, EarningsPendingAccount("cre")); got != 800 {
		t.Fatalf("pending %d", got)
	}
	var key string
	if err := pool.QueryRow(ctx, `SELECT idempotency_key FROM transfers WHERE type = 'earning' AND amount_micros = 300`).Scan(&key); err != nil || key != "late-1:earning" {
		t.Fatalf("charge earning key %q %v", key, err)
	}
	mustInvariants(t, s)
}

// TestCreatorCannotPayAgentUnavailable: a creator who cannot pay the
// agent's fee makes it unavailable to consumers (nothing held); a due
// renewal is paused; a deposit resumes it and consumers are served again.
func TestCreatorCannotPayAgentUnavailable(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "con", 5*MicrosPerDollar)
	fund(t, s, "poor", 3*MicrosPerDollar)
	meta := consumerMeta("poor", "ag-u", "Unpaid")
	_, err := s.Reserve(ctx, Reservation{UID: "con", AmountMicros: MicrosPerDollar, IdempotencyKey: "u1", TTL: time.Hour, Metadata: meta})
	if !errors.Is(err, ErrAgentUnavailable) {
		t.Fatalf("first answer, creator short: %v", err)
	}
	mustBalance(t, s, "con", Balance{Micros: 5 * MicrosPerDollar})
	mustBalance(t, s, "poor", Balance{Micros: 3 * MicrosPerDollar})
	var holds int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM holds WHERE uid = 'con'`).Scan(&holds); err != nil || holds != 0 {
		t.Fatalf("holds %d %v", holds, err)
	}

	// Paid, used, then due with no money: the renewal pauses the agent.
	fund(t, s, "poor", 8*MicrosPerDollar)
	if _, err := s.Reserve(ctx, Reservation{UID: "con", AmountMicros: MicrosPerDollar, IdempotencyKey: "u2", TTL: time.Hour, Metadata: meta}); err != nil {
		t.Fatal(err)
	}
	mustBalance(t, s, "poor", Balance{Micros: MicrosPerDollar})
	endPeriod(t, pool, "ag-u", time.Hour, true)
	if _, err := s.Reserve(ctx, Reservation{UID: "con", AmountMicros: MicrosPerDollar, IdempotencyKey: "u3", TTL: time.Hour, Metadata: meta}); !errors.Is(err, ErrAgentUnavailable) {
		t.Fatalf("renewal unpaid: %v", err)
	}
	var paused bool
	if err := pool.QueryRow(ctx, `SELECT paused FROM agent_billing WHERE agent_id = 'ag-u'`).Scan(&paused); err != nil || !paused {
		t.Fatalf("paused %v %v", paused, err)
	}
	// A deposit pays the paused agent's fee; the consumer is served.
	fund(t, s, "poor", 20*MicrosPerDollar)
	if _, err := s.Reserve(ctx, Reservation{UID: "con", AmountMicros: MicrosPerDollar, IdempotencyKey: "u4", TTL: time.Hour, Metadata: meta}); err != nil {
		t.Fatalf("after the deposit: %v", err)
	}
	mustInvariants(t, s)
}

// TestConcurrentConsumerCaptures: many consumers answered by one agent at
// once: Σ consumers' expenses = revenue delta + creator earnings, exactly.
func TestConcurrentConsumerCaptures(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "crc", 20*MicrosPerDollar)
	const consumers = 24
	for i := range consumers {
		fund(t, s, fmt.Sprintf("cc%d", i), 100_000+int64(i))
	}
	revenue0 := accountBalance(t, pool, AccountPlatformRevenue)
	var (
		wg              sync.WaitGroup
		mu              sync.Mutex
		spent, earnings int64
	)
	for i := range consumers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			uid := fmt.Sprintf("cc%d", i)
			for j := range 3 {
				r, err := s.Reserve(ctx, Reservation{UID: uid, AmountMicros: 30_000, IdempotencyKey: fmt.Sprintf("%s-%d", uid, j),
					TTL: time.Hour, Metadata: consumerMeta("crc", "ag-c", "Crowd")})
				if err != nil {
					t.Error(err)
					return
				}
				total := int64(10_000 + 37*i + j)
				markup, greeting := total/7, int64(0)
				if j == 0 {
					greeting = 1_000
				}
				if _, err := s.Capture(ctx, consumerCapture(r.Hold.ID, "crc", total, markup, greeting)); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				spent += total
				earnings += markup + greeting
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	revenue := accountBalance(t, pool, AccountPlatformRevenue) - revenue0 - AgentFeeMicros
	pending := accountBalance(t, pool, EarningsPendingAccount("crc"))
	if pending != earnings || revenue+pending != spent {
		t.Fatalf("spent %d, revenue %d, pending %d (want %d)", spent, revenue, pending, earnings)
	}
	var days, answers int64
	if err := pool.QueryRow(ctx, `SELECT count(*), COALESCE(sum(answers), 0) FROM earnings_days WHERE creator_uid = 'crc'`).Scan(&days, &answers); err != nil {
		t.Fatal(err)
	}
	if answers != consumers*3 || days < 1 || days > 2 {
		t.Fatalf("day lines %d, answers %d", days, answers)
	}
	mustInvariants(t, s)
}

// earn reserves and captures one consumer answer paying creator.
func earn(t testing.TB, s *PostgresStore, consumer, creator, agent, name, key string, total, markup int64) {
	t.Helper()
	ctx := context.Background()
	r, err := s.Reserve(ctx, Reservation{UID: consumer, AmountMicros: total, IdempotencyKey: key, TTL: time.Hour,
		Metadata: consumerMeta(creator, agent, name)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Capture(ctx, consumerCapture(r.Hold.ID, creator, total, markup, 0)); err != nil {
		t.Fatal(err)
	}
}

// TestEarningsMaturityAndTransfer: pending until the hold is over (lazy
// on read, or the ticker), then available; a transfer to the wallet is
// refused above what is available and is a deposit in the history.
func TestEarningsMaturityAndTransfer(t *testing.T) {
	s, pool := newStore(t)
	s.SetEarningsHold(time.Hour)
	ctx := context.Background()
	fund(t, s, "mk", 10*MicrosPerDollar)
	fund(t, s, "mc", 5*MicrosPerDollar)
	earn(t, s, "mc", "mk", "ag-m", "Maturer", "m1", 400_000, 150_000)
	earn(t, s, "mc", "mk", "ag-m", "Maturer", "m2", 400_000, 50_000)

	v, err := s.Earnings(ctx, "mk")
	if err != nil || v.PendingMicros != 200_000 || v.AvailableMicros != 0 || v.Hold != time.Hour ||
		len(v.ByAgent) != 1 || v.ByAgent[0].Answers != 2 || v.ByAgent[0].Users != 1 || v.ByAgent[0].EarnedMicros != 200_000 {
		t.Fatalf("pending view %+v %v", v, err)
	}
	if _, err := s.TransferEarnings(ctx, "mk", 10_000); !errors.Is(err, ErrEarningsInsufficient) {
		t.Fatalf("transfer of pending money: %v", err)
	}
	if moved, err := s.MatureEarnings(ctx, 10); err != nil || len(moved) != 0 {
		t.Fatalf("nothing due: %v %v", moved, err)
	}
	// The first earning is due: the ticker matures it.
	if _, err := pool.Exec(ctx, `UPDATE earnings SET available_at = now() - interval '1 second'
		WHERE creator_uid = 'mk' AND markup_micros = 150000`); err != nil {
		t.Fatal(err)
	}
	if moved, err := s.MatureEarnings(ctx, 10); err != nil || len(moved) != 1 || moved[0] != "mk" {
		t.Fatalf("ticker: %v %v", moved, err)
	}
	// The second one is matured lazily by the read.
	if _, err := pool.Exec(ctx, `UPDATE earnings SET available_at = now() - interval '1 second' WHERE creator_uid = 'mk'`); err != nil {
		t.Fatal(err)
	}
	v, err = s.Earnings(ctx, "mk")
	if err != nil || v.PendingMicros != 0 || v.AvailableMicros != 200_000 {
		t.Fatalf("matured view %+v %v", v, err)
	}
	var short *EarningsShortError
	if _, err := s.TransferEarnings(ctx, "mk", 200_001); !errors.As(err, &short) || short.AvailableMicros != 200_000 {
		t.Fatalf("transfer above available: %v", err)
	}
	res, err := s.TransferEarnings(ctx, "mk", 120_000)
	if err != nil || res.AvailableMicros != 80_000 || res.BalanceMicros != 10*MicrosPerDollar+120_000-AgentFeeMicros {
		t.Fatalf("transfer: %+v %v", res, err)
	}
	h := history(t, s, "mk")
	if h[0].Type != TypeEarningTransfer || h[0].Type.Display() != TypeDeposit || h[0].Description != TransferFromEarnings ||
		h[0].AmountMicros != 120_000 || !h[0].Type.Credit() {
		t.Fatalf("history %+v", h[0])
	}
	mustInvariants(t, s)
}

// TestEarningsHistoryDayLinesAndExport: one income line per agent per UTC
// day that grows during the day and keeps its place (stable paging); the
// CSV lists each answer's earning.
func TestEarningsHistoryDayLinesAndExport(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "hk", 30*MicrosPerDollar)
	fund(t, s, "hc1", 5*MicrosPerDollar)
	fund(t, s, "hc2", 5*MicrosPerDollar)
	earn(t, s, "hc1", "hk", "ag-h1", "Alpha", "h1", 100_000, 10_000)
	earn(t, s, "hc2", "hk", "ag-h1", "Alpha", "h2", 100_000, 20_000)
	earn(t, s, "hc1", "hk", "ag-h2", "Beta", "h3", 100_000, 5_000)

	h := history(t, s, "hk")
	day := time.Now().UTC().Format("Jan 2")
	var lines []Transfer
	for _, tr := range h {
		if tr.Metadata[MetaKind] == KindEarningsDay {
			lines = append(lines, tr)
		}
	}
	if len(lines) != 2 || lines[0].Description != "Earnings · Beta · "+day || lines[0].AmountMicros != 5_000 ||
		lines[1].Description != "Earnings · Alpha · "+day || lines[1].AmountMicros != 30_000 ||
		lines[1].Type != TypeIncome || lines[1].Provider != ProviderPlatform {
		t.Fatalf("day lines %+v", lines)
	}
	// history of hk: deposit, 2 agent fees (expenses), 2 day lines.
	if len(h) != 5 {
		t.Fatalf("history %+v", h)
	}

	// Paging with a snapshot: the day line grows in place, a new line
	// (a new agent) after the snapshot does not shift later pages.
	p1, err := s.Transfers(ctx, "hk", PageQuery{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	earn(t, s, "hc2", "hk", "ag-h1", "Alpha", "h4", 100_000, 1_000)
	earn(t, s, "hc2", "hk", "ag-h3", "Gamma", "h5", 100_000, 1_000)
	seen := map[string]bool{}
	all := append([]Transfer{}, p1.Items...)
	for off := 2; ; off += 2 {
		snap := p1.Snapshot
		p, err := s.Transfers(ctx, "hk", PageQuery{Limit: 2, Offset: off, Snapshot: &snap})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, p.Items...)
		if !p.HasMore {
			break
		}
	}
	if len(all) != 5 {
		t.Fatalf("paged %d items: %+v", len(all), all)
	}
	for _, tr := range all {
		if seen[tr.ID] {
			t.Fatalf("repeated %s", tr.ID)
		}
		seen[tr.ID] = true
		if tr.Metadata[MetaKind] == KindEarningsDay && tr.Description == "Earnings · Alpha · "+day && tr.AmountMicros != 31_000 {
			t.Fatalf("the day line did not grow: %+v", tr)
		}
	}

	// CSV: one row per answer's earning (5), besides the deposit and fees.
	rows, err := s.ExportTransfers(ctx, "hk", ExportFilter{Type: "income"})
	if err != nil || len(rows) != 5 {
		t.Fatalf("income export %d %v", len(rows), err)
	}
	for _, r := range rows {
		if r.Type != TypeIncome || r.Provider != ProviderPlatform || r.AmountMicros <= 0 {
			t.Fatalf("export row %+v", r)
		}
	}
	rows, err = s.ExportTransfers(ctx, "hk", ExportFilter{Search: "earnings · gamma"})
	if err != nil || len(rows) != 1 || rows[0].AmountMicros != 1_000 {
		t.Fatalf("search export %+v %v", rows, err)
	}
	rows, err = s.ExportTransfers(ctx, "hk", ExportFilter{})
	if err != nil || len(rows) != 9 { // deposit, 3 agent fees, 5 earnings
		t.Fatalf("all export %d %v", len(rows), err)
	}
	// The consumer's export has only their expenses.
	rows, err = s.ExportTransfers(ctx, "hc2", ExportFilter{Type: "expense"})
	if err != nil || len(rows) != 3 {
		t.Fatalf("consumer export %d %v", len(rows), err)
	}
	// Series: per agent per day.
	today := time.Now().UTC().Truncate(24 * time.Hour)
	days, err := s.EarningsSeries(ctx, "hk", SeriesQuery{From: today, To: today})
	if err != nil || len(days) != 3 {
		t.Fatalf("series %+v %v", days, err)
	}
	days, err = s.EarningsSeries(ctx, "hk", SeriesQuery{From: today, To: today, AgentID: "ag-h1"})
	if err != nil || len(days) != 1 || days[0].EarnedMicros != 31_000 || days[0].Answers != 3 || days[0].Name != "Alpha" {
		t.Fatalf("series of one agent %+v %v", days, err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM earnings WHERE creator_uid = 'hk'`).Scan(&n); err != nil || n != 5 {
		t.Fatalf("earnings rows %d %v", n, err)
	}
	mustInvariants(t, s)
}

func TestValidateSeries(t *testing.T) {
	now := time.Date(2026, 11, 26, 15, 0, 0, 0, time.UTC)
	q, err := ValidateSeries(SeriesQuery{}, now)
	if err != nil || q.To.Format(time.DateOnly) != "2026-11-26" || q.From.Format(time.DateOnly) != "2026-10-28" {
		t.Fatalf("defaults %+v %v", q, err)
	}
	var re *RangeError
	if _, err := ValidateSeries(SeriesQuery{From: now, To: now.AddDate(0, 0, -1)}, now); !errors.As(err, &re) {
		t.Fatalf("reversed: %v", err)
	}
	from := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := ValidateSeries(SeriesQuery{From: from, To: from.AddDate(0, 0, 365)}, now); err != nil {
		t.Fatalf("366 days: %v", err)
	}
	if _, err := ValidateSeries(SeriesQuery{From: from, To: from.AddDate(0, 0, 366)}, now); !errors.As(err, &re) {
		t.Fatalf("367 days: %v", err)
	}
	if got := EarningsDayDescription("", time.Date(2026, 11, 6, 0, 0, 0, 0, time.UTC)); got != "Earnings · Agent · Nov 6" {
		t.Fatal(got)
	}
}
