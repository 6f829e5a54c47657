package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/mail/internal/notify"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
	"github.com/agentic-app/agentic/services/platform/events/topics"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

type walletEvent struct {
	id, typ, key string
	payload      proto.Message
}

// produceWallet publishes events on agentic.wallet.v1 as the wallet's outbox
// relay does (CloudEvents binary mode, protobuf JSON, key = uid).
func produceWallet(t *testing.T, brokers []string, evs ...walletEvent) {
	t.Helper()
	bus := make([]busEvent, len(evs))
	for i, ev := range evs {
		bus[i] = busEvent{id: ev.id, typ: ev.typ, key: ev.key, payload: ev.payload}
	}
	produce(t, brokers, topics.Wallet, "/agentic/wallet", bus...)
}

// busEvent is one event to publish: payload as protobuf JSON, or raw bytes
// when raw is set.
type busEvent struct {
	id, typ, key string
	payload      proto.Message
	raw          []byte
}

// produce publishes events on topic as the producers' outbox relays do
// (CloudEvents binary mode).
func produce(t *testing.T, brokers []string, topic, source string, evs ...busEvent) {
	t.Helper()
	w := &kafka.Writer{
		Addr: kafka.TCP(brokers...), Topic: topic, Balancer: &kafka.Hash{},
		AllowAutoTopicCreation: true, BatchTimeout: 5 * time.Millisecond, RequiredAcks: kafka.RequireAll,
	}
	defer w.Close()
	msgs := make([]kafka.Message, len(evs))
	for i, ev := range evs {
		b := ev.raw
		if b == nil {
			var err error
			if b, err = protojson.Marshal(ev.payload); err != nil {
				t.Fatal(err)
			}
		}
		msgs[i] = kafka.Message{Key: []byte(ev.key), Value: b, Headers: []kafka.Header{
			{Key: "ce_specversion", Value: []byte("1.0")},
			{Key: "ce_id", Value: []byte(ev.id)},
			{Key: "ce_type", Value: []byte(ev.typ)},
			{Key: "ce_source", Value: []byte(source)},
			{Key: "ce_subject", Value: []byte(ev.key)},
			{Key: "ce_time", Value: []byte(time.Now().UTC().Format(time.RFC3339Nano))},
			{Key: "content-type", Value: []byte("application/json")},
		}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	for attempt := 0; attempt < 20; attempt++ { // the first write may race topic creation
		if err = w.WriteMessages(ctx, msgs...); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("produce: %v", err)
}

func TestBillingNotifications(t *testing.T) {
	r := start(t, func(c *Config) {
		c.AppBaseURL = "https://app.example.test"
		c.NotifyFrom = notify.DefaultFrom
		c.ConsumerMaxWait = 100 * time.Millisecond
	})
	now := timestamppb.Now()
	low := walletEvent{"ev-low", topics.WalletBalanceLow, "alice",
		&eventsv1.WalletBalanceLow{Uid: "alice", AvailableMicros: 1_200_000, ThresholdMicros: 5_000_000, OccurredAt: now}}
	produceWallet(t, r.brokers,
		low,
		walletEvent{"ev-80", topics.WalletSpendWarning, "erin", &eventsv1.WalletSpendWarning{Uid: "erin", Threshold: "limit_80",
			Month: "2026-01", MonthUsageMicros: 20_100_000, MonthlyLimitMicros: 25_000_000, OccurredAt: now}},
		walletEvent{"ev-100", topics.WalletSpendWarning, "alice", &eventsv1.WalletSpendWarning{Uid: "alice", Threshold: "limit_100",
			Month: "2026-01", MonthUsageMicros: 25_000_000, MonthlyLimitMicros: 25_000_000, OccurredAt: now}},
		walletEvent{"ev-declined", topics.WalletRechargeFailed, "gina", &eventsv1.WalletRechargeFailed{Uid: "gina", RechargeId: "r1",
			AmountMicros: 20_000_000, FailureMessage: "Your card was declined.", ConsecutiveFailures: 1, OccurredAt: now}},
		walletEvent{"ev-off", topics.WalletRechargeFailed, "mallory", &eventsv1.WalletRechargeFailed{Uid: "mallory", RechargeId: "r3",
			AmountMicros: 20_000_000, FailureMessage: "Your card has insufficient funds.", ConsecutiveFailures: 3,
			AutoRechargeDisabled: true, OccurredAt: now}},
		// Nobody to tell, nothing to tell, and a redelivery.
		walletEvent{"ev-ghost", topics.WalletBalanceLow, "ghost", &eventsv1.WalletBalanceLow{Uid: "ghost", AvailableMicros: 1, ThresholdMicros: 5_000_000}},
		walletEvent{"ev-deposit", "agentic.wallet.deposit.credited.v1", "alice", &eventsv1.WalletDepositCredited{Uid: "alice", AmountMicros: 10_000_000}},
		low,
	)

	pool, err := pgxpool.New(context.Background(), r.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	processed := func() int {
		var n int
		_ = pool.QueryRow(context.Background(),
			`SELECT count(*) FROM processed_events WHERE consumer_group = $1`, notify.ConsumerGroup).Scan(&n)
		return n
	}
	testwait.Until(t, "7 distinct wallet events processed", func() bool { return processed() == 7 }, waitOpts...)
	r.sink.Wait(5, 20*time.Second)
	r.settle(t) // nothing more may arrive
	msgs := r.sink.Messages()
	if len(msgs) != 5 {
		t.Fatalf("relay got %d messages, want 5", len(msgs))
	}

	type want struct{ to, subject, text string }
	wants := map[string]want{
		owner + "|Your Agentic balance is low": {owner, "Your Agentic balance is low",
			"Your Agentic balance is low: $1.20 left (your threshold is $5.00)."},
		subscriber + "|You have used 80% of your monthly spending limit": {subscriber, "",
			"You have used 80% of your $25.00 monthly spending limit ($20.10 spent this month)."},
		owner + "|You have reached your monthly spending limit": {owner, "",
			"You have used 100% of your $25.00 monthly spending limit"},
		"gina@example.org|Auto-recharge failed: your card was declined": {"gina@example.org", "",
			"The $20.00 top-up was not paid (Your card was declined)."},
		stranger + "|Auto-recharge is off": {stranger, "",
			"Auto-recharge is off after three declined payments: Your card has insufficient funds."},
	}
	for _, m := range msgs {
		if m.From != "billing@agents.agentic.local" || len(m.To) != 1 {
			t.Errorf("envelope %s → %v", m.From, m.To)
			continue
		}
		p := parse(t, m.Data)
		w, ok := wants[m.To[0]+"|"+p.subject]
		if !ok {
			t.Errorf("unexpected e-mail to %s: %q", m.To[0], p.subject)
			continue
		}
		delete(wants, m.To[0]+"|"+p.subject)
		if p.to != w.to || p.from != "billing@agents.agentic.local" {
			t.Errorf("%q: From %s To %s", p.subject, p.from, p.to)
		}
		if !strings.Contains(p.text, w.text) || !strings.Contains(p.text, "https://app.example.test/dashboard/wallet") {
			t.Errorf("%q: text\n%s", p.subject, p.text)
		}
		if !strings.Contains(p.html, `href="https://app.example.test/dashboard/wallet"`) ||
			!strings.Contains(p.html, strings.ReplaceAll(w.text[:20], "'", "&#39;")) {
			t.Errorf("%q: html\n%s", p.subject, p.html)
		}
		if v := p.header.Get("Auto-Submitted"); v != "auto-generated" {
			t.Errorf("%q: Auto-Submitted %q", p.subject, v)
		}
	}
	if len(wants) != 0 {
		t.Errorf("missing e-mails: %v", wants)
	}

	var sent, queued int
	if err := pool.QueryRow(context.Background(),
		`SELECT count(*) FILTER (WHERE state = 'sent'), count(*) FROM notifications`).Scan(&sent, &queued); err != nil {
		t.Fatal(err)
	}
	if queued != 5 {
		t.Errorf("notifications: %d sent of %d queued, want 5", sent, queued)
	}
	testwait.Until(t, "all notifications recorded sent", func() bool {
		_ = pool.QueryRow(context.Background(), `SELECT count(*) FROM notifications WHERE state = 'sent'`).Scan(&sent)
		return sent == 5
	}, waitOpts...)

	// A redelivery much later (e.g. after a rebalance) is still nothing.
	produceWallet(t, r.brokers, low)
	eventstest.WaitConsumed(t, r.brokers, notify.ConsumerGroup, topics.Wallet, waitOpts...)
	r.settle(t)
	if n := len(r.sink.Messages()); n != 5 {
		t.Errorf("after a redelivery the relay has %d messages, want 5", n)
	}
}

// TestSubscriberCapNotification: the conversations service's
// SubscriberCapReached gives the agent's owner exactly one e-mail, also when
// the event is delivered twice (and once more after it was sent); the usage
// topic's other events (InteractionRecorded, one per answer) give nothing and
// are never an error.
func TestSubscriberCapNotification(t *testing.T) {
	r := start(t, func(c *Config) {
		c.AppBaseURL = "https://app.example.test"
		c.ConsumerMaxWait = 100 * time.Millisecond
	})
	const usageType = "agentic.usage.interaction.recorded.v1"
	capReached := busEvent{id: "ev-cap", typ: topics.UsageSubscriberCapReached, key: agentID,
		payload: &eventsv1.SubscriberCapReached{AgentId: agentID, OwnerUid: "alice", AgentName: "Math Tutor",
			SubscriberUid: "erin", CapMicros: 5_000_000, SpentMicros: 4_990_000, Period: "2026-01", OccurredAt: timestamppb.Now()}}
	produce(t, r.brokers, topics.Usage, "/agentic/conversations",
		busEvent{id: "ev-int-1", typ: usageType, key: agentID, payload: &eventsv1.InteractionRecorded{
			InteractionId: "m1", AgentId: agentID, OwnerUid: "alice", AgentName: "Math Tutor", UserUid: "erin",
			PayerUid: "alice", TotalMicros: 1_000_000}},
		capReached,
		// Not a SubscriberCapReached: ignored, whatever its payload (an
		// error would roll back its processed_events row and retry it).
		busEvent{id: "ev-int-2", typ: usageType, key: agentID, raw: []byte("not json")},
		capReached,
	)

	pool, err := pgxpool.New(context.Background(), r.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	count := func(q string, args ...any) int {
		var n int
		if err := pool.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	testwait.Until(t, "3 distinct usage events processed", func() bool {
		return count(`SELECT count(*) FROM processed_events WHERE consumer_group = $1`, notify.UsageConsumerGroup) == 3
	}, waitOpts...)
	r.sink.Wait(1, 20*time.Second)
	r.settle(t) // nothing more may arrive
	msgs := r.sink.Messages()
	if len(msgs) != 1 {
		t.Fatalf("relay got %d messages, want 1", len(msgs))
	}
	m := msgs[0]
	if m.From != "billing@agents.agentic.local" || len(m.To) != 1 || m.To[0] != owner {
		t.Fatalf("envelope %s → %v, want → %s", m.From, m.To, owner)
	}
	p := parse(t, m.Data)
	if want := "Erin reached their monthly cap on Math Tutor"; p.subject != want {
		t.Errorf("subject %q, want %q", p.subject, want)
	}
	if p.to != owner {
		t.Errorf("To %s", p.to)
	}
	for _, want := range []string{
		"Erin (erin@example.net) reached the monthly cap you set for them on Math Tutor: their answers cost you $4.99 in January 2026, and their cap is $5.00.",
		"They will be told the agent is unavailable until next month or until you raise their cap.",
		"https://app.example.test/dashboard/agentic-users",
	} {
		if !strings.Contains(p.text, want) {
			t.Errorf("text lacks %q:\n%s", want, p.text)
		}
	}
	if !strings.Contains(p.html, `href="https://app.example.test/dashboard/agentic-users"`) {
		t.Errorf("html:\n%s", p.html)
	}
	if n := count(`SELECT count(*) FROM notifications WHERE event_id = 'ev-cap' AND kind = $1 AND uid = 'alice'
		AND event_type = $2`, notify.KindSubscriberCap, topics.UsageSubscriberCapReached); n != 1 {
		t.Errorf("%d subscriber_cap notifications for alice, want 1", n)
	}
	if n := count(`SELECT count(*) FROM notifications`); n != 1 {
		t.Errorf("%d notifications, want 1", n)
	}
	if n := count(`SELECT count(*) FROM parked_events`); n != 0 {
		t.Errorf("%d events parked, want 0", n)
	}
	testwait.Until(t, "the notification recorded sent", func() bool {
		return count(`SELECT count(*) FROM notifications WHERE state = 'sent'`) == 1
	}, waitOpts...)

	// A redelivery after it was sent is still nothing.
	produce(t, r.brokers, topics.Usage, "/agentic/conversations", capReached)
	eventstest.WaitConsumed(t, r.brokers, notify.UsageConsumerGroup, topics.Usage, waitOpts...)
	r.settle(t)
	if n := len(r.sink.Messages()); n != 1 {
		t.Errorf("after a redelivery the relay has %d messages, want 1", n)
	}
}
