package events_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/segmentio/kafka-go"

	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

func setupConsumer(t *testing.T) (*pgxpool.Pool, []string) {
	t.Helper()
	return setupConsumerDatabase(t), eventstest.StartKafka(t)
}

// setupConsumerDatabase is a fresh database with the consumer's tables and
// an effects table the tests' handlers write to.
func setupConsumerDatabase(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool, _ := dbtest.NewPool(t, "consumer")
	ctx := context.Background()
	if err := events.MigrateConsumer(ctx, pool, nil); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if err := events.MigrateConsumer(ctx, pool, nil); err != nil { // idempotent
		t.Fatalf("migrate again: %v", err)
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE effects (event_id text NOT NULL, body text NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	return pool
}

// produce writes CloudEvents-style messages (all with key "k", so one
// partition and a fixed order). ids[i] == "" sends no ce_id.
func produce(t *testing.T, brokers []string, topic string, ids ...string) {
	t.Helper()
	w := &kafka.Writer{
		Addr: kafka.TCP(brokers...), Topic: topic, Balancer: &kafka.Hash{},
		AllowAutoTopicCreation: true, BatchTimeout: 5 * time.Millisecond, RequiredAcks: kafka.RequireAll,
	}
	defer w.Close()
	msgs := make([]kafka.Message, len(ids))
	for i, id := range ids {
		h := []kafka.Header{
			{Key: "ce_specversion", Value: []byte("1.0")},
			{Key: "ce_type", Value: []byte("agentic.test.thing.happened.v1")},
			{Key: "ce_source", Value: []byte("/agentic/test")},
			{Key: "ce_subject", Value: []byte("subj")},
			{Key: "ce_time", Value: []byte("2030-01-02T03:04:05.5Z")},
			{Key: "traceparent", Value: []byte("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")},
		}
		if id != "" {
			h = append(h, kafka.Header{Key: "ce_id", Value: []byte(id)})
		}
		msgs[i] = kafka.Message{Key: []byte("k"), Value: []byte(fmt.Sprintf(`{"id":%q}`, id)), Headers: h}
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

type runningConsumer struct {
	c    *events.Consumer
	stop func()
}

func startConsumer(t *testing.T, pool *pgxpool.Pool, brokers []string, topic, group string, reg prometheus.Registerer, h events.Handler) runningConsumer {
	t.Helper()
	c, err := events.NewConsumer(events.ConsumerConfig{
		Pool: pool, Brokers: brokers, GroupID: group, Topics: []string{topic}, Handler: h,
		MaxAttempts: 3, RetryBackoff: 10 * time.Millisecond, MaxRetryBackoff: 50 * time.Millisecond,
		MaxWait: 100 * time.Millisecond, ReplayInterval: 50 * time.Millisecond, Registerer: reg,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = c.Run(ctx); close(done) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Error("consumer did not stop")
			}
		})
	}
	t.Cleanup(stop)
	return runningConsumer{c: c, stop: stop}
}

func recordEffect(ctx context.Context, tx pgx.Tx, ev events.Received) error {
	_, err := tx.Exec(ctx, `INSERT INTO effects (event_id, body) VALUES ($1, $2)`, ev.ID, string(ev.Payload))
	return err
}

func count(t *testing.T, pool *pgxpool.Pool, q string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

var waitOpts = []testwait.Option{testwait.Timeout(30 * time.Second)}

// committed returns the group's committed offset of every partition of topic
// (-1 when none).
func committed(t *testing.T, brokers []string, group, topic string) map[int]int64 {
	t.Helper()
	cl := &kafka.Client{Addr: kafka.TCP(brokers...), Timeout: 5 * time.Second}
	resp, err := cl.OffsetFetch(context.Background(), &kafka.OffsetFetchRequest{
		GroupID: group, Topics: map[string][]int{topic: {0, 1, 2}},
	})
	if err != nil {
		t.Fatalf("offset fetch: %v", err)
	}
	out := map[int]int64{}
	for _, p := range resp.Topics[topic] {
		out[p.Partition] = p.CommittedOffset
	}
	return out
}

func maxCommitted(m map[int]int64) int64 {
	best := int64(-1)
	for _, v := range m {
		best = max(best, v)
	}
	return best
}

func TestConsumerAppliesEachEventOnceAndSkipsRedeliveries(t *testing.T) {
	pool, brokers := setupConsumer(t)
	const topic, group = "agentic.consumer-dedupe.v1", "test-dedupe"
	// e2 is delivered twice (a producer retry / relay re-send); the last
	// message has no ce_id and is deduplicated by its position.
	produce(t, brokers, topic, "e1", "e2", "e2", "e3", "")

	var seen []events.Received
	var mu sync.Mutex
	reg := prometheus.NewRegistry()
	rc := startConsumer(t, pool, brokers, topic, group, reg, func(ctx context.Context, tx pgx.Tx, ev events.Received) error {
		mu.Lock()
		seen = append(seen, ev)
		mu.Unlock()
		return recordEffect(ctx, tx, ev)
	})
	testwait.Until(t, "4 effects", func() bool { return count(t, pool, `SELECT count(*) FROM effects`) == 4 }, waitOpts...)
	testwait.Until(t, "offsets committed", func() bool { return maxCommitted(committed(t, brokers, group, topic)) == 5 }, waitOpts...)
	rc.stop()

	if n := count(t, pool, `SELECT count(*) FROM effects WHERE event_id = 'e2'`); n != 1 {
		t.Fatalf("e2 applied %d times", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM processed_events WHERE consumer_group = $1`, group); n != 4 {
		t.Fatalf("processed_events rows = %d", n)
	}
	mu.Lock()
	first := seen[0]
	last := seen[len(seen)-1]
	mu.Unlock()
	if first.ID != "e1" || first.Type != "agentic.test.thing.happened.v1" || first.Source != "/agentic/test" ||
		first.Subject != "subj" || first.Key != "k" || first.Topic != topic || string(first.Payload) != `{"id":"e1"}` ||
		!first.Time.Equal(time.Date(2030, 1, 2, 3, 4, 5, 5e8, time.UTC)) || first.Headers["traceparent"] == "" {
		t.Fatalf("decoded event = %+v", first)
	}
	if want := fmt.Sprintf("kafka:%s/%d/%d", topic, last.Partition, last.Offset); last.ID != want {
		t.Fatalf("id of a message without ce_id = %q, want %q", last.ID, want)
	}
	if got := testutil.ToFloat64(metric(t, reg, "events_consumed_total")); got != 4 {
		t.Errorf("events_consumed_total = %v", got)
	}
	if got := testutil.ToFloat64(metric(t, reg, "events_duplicates_total")); got != 1 {
		t.Errorf("events_duplicates_total = %v", got)
	}

	// A restarted consumer of the same group resumes after the committed
	// offset: only the new event is applied.
	produce(t, brokers, topic, "e4")
	startConsumer(t, pool, brokers, topic, group, nil, recordEffect)
	testwait.Until(t, "e4", func() bool { return count(t, pool, `SELECT count(*) FROM effects WHERE event_id = 'e4'`) == 1 }, waitOpts...)
	if n := count(t, pool, `SELECT count(*) FROM effects`); n != 5 {
		t.Fatalf("effects after restart = %d, want 5 (no re-application)", n)
	}
}

func metric(t *testing.T, reg *prometheus.Registry, name string) prometheus.Collector {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			c := prometheus.NewCounter(prometheus.CounterOpts{Name: "x"})
			var sum float64
			for _, m := range mf.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
			c.Add(sum)
			return c
		}
	}
	t.Fatalf("%s not registered", name)
	return nil
}

func TestConsumerParksPoisonAndMovesOn(t *testing.T) {
	pool, brokers := setupConsumer(t)
	const topic, group = "agentic.consumer-poison.v1", "test-poison"
	produce(t, brokers, topic, "ok1", "poison", "flaky", "ok2")

	var flaky atomic.Int32
	var poisonCalls atomic.Int32
	reg := prometheus.NewRegistry()
	rc := startConsumer(t, pool, brokers, topic, group, reg, func(ctx context.Context, tx pgx.Tx, ev events.Received) error {
		if err := recordEffect(ctx, tx, ev); err != nil {
			return err
		}
		switch ev.ID {
		case "poison":
			poisonCalls.Add(1)
			return errors.New("cannot decode payload")
		case "flaky":
			if flaky.Add(1) < 3 { // fails twice, then works (MaxAttempts is 3)
				return errors.New("transient")
			}
		}
		return nil
	})
	testwait.Until(t, "ok2 applied", func() bool { return count(t, pool, `SELECT count(*) FROM effects WHERE event_id = 'ok2'`) == 1 }, waitOpts...)
	testwait.Until(t, "offsets committed", func() bool { return maxCommitted(committed(t, brokers, group, topic)) == 4 }, waitOpts...)
	rc.stop()

	var errText, key, typ string
	var attempts int
	if err := pool.QueryRow(context.Background(),
		`SELECT error, attempts, key, type FROM parked_events WHERE consumer_group = $1 AND event_id = 'poison'`, group).
		Scan(&errText, &attempts, &key, &typ); err != nil {
		t.Fatalf("parked row: %v", err)
	}
	if errText != "cannot decode payload" || attempts != 3 || key != "k" || typ != "agentic.test.thing.happened.v1" {
		t.Fatalf("parked = %q %d %q %q", errText, attempts, key, typ)
	}
	if poisonCalls.Load() != 3 {
		t.Fatalf("poison tried %d times, want 3", poisonCalls.Load())
	}
	// The poison message's effects were rolled back each time; the flaky one
	// applied exactly once.
	if n := count(t, pool, `SELECT count(*) FROM effects WHERE event_id = 'poison'`); n != 0 {
		t.Fatalf("poison effects = %d", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM effects WHERE event_id = 'flaky'`); n != 1 {
		t.Fatalf("flaky effects = %d", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM processed_events WHERE event_id = 'poison'`); n != 0 {
		t.Fatalf("poison recorded as processed")
	}
	if got := testutil.ToFloat64(metric(t, reg, "events_parked_total")); got != 1 {
		t.Errorf("events_parked_total = %v", got)
	}
	if got := testutil.ToFloat64(metric(t, reg, "events_handler_failures_total")); got != 5 {
		t.Errorf("events_handler_failures_total = %v, want 5", got)
	}
	out, err := testutil.GatherAndCount(reg, "events_consumer_lag")
	if err != nil || out != 1 {
		t.Errorf("events_consumer_lag series = %d (%v)", out, err)
	}
}

func TestConsumerCommitsOffsetOnlyAfterTransactionCommits(t *testing.T) {
	pool, brokers := setupConsumer(t)
	const topic, group = "agentic.consumer-commit.v1", "test-commit"
	produce(t, brokers, topic, "a1", "a2")

	// First consumer: applies a1, then "crashes" while handling a2 (its
	// context is cancelled mid-transaction).
	entered := make(chan struct{})
	rc := startConsumer(t, pool, brokers, topic, group, nil, func(ctx context.Context, tx pgx.Tx, ev events.Received) error {
		if err := recordEffect(ctx, tx, ev); err != nil {
			return err
		}
		if ev.ID == "a2" {
			close(entered)
			<-ctx.Done() // blocked inside the transaction until the crash
			return ctx.Err()
		}
		return nil
	})
	select {
	case <-entered:
	case <-time.After(30 * time.Second):
		t.Fatal("a2 never reached the handler")
	}
	// a1 is committed (offset 1); a2's transaction is open: its offset is not.
	testwait.Until(t, "a1 committed", func() bool { return maxCommitted(committed(t, brokers, group, topic)) == 1 }, waitOpts...)
	if n := count(t, pool, `SELECT count(*) FROM processed_events WHERE event_id = 'a2'`); n != 0 {
		t.Fatal("a2 visible as processed before its transaction committed")
	}
	rc.stop()
	if got := maxCommitted(committed(t, brokers, group, topic)); got != 1 {
		t.Fatalf("committed offset after crash = %d, want 1", got)
	}
	if n := count(t, pool, `SELECT count(*) FROM effects WHERE event_id = 'a2'`); n != 0 {
		t.Fatal("a2's effect survived the rollback")
	}

	// Restart: a2 is re-delivered and applied exactly once; a1 is not re-applied.
	startConsumer(t, pool, brokers, topic, group, nil, recordEffect)
	testwait.Until(t, "a2 applied", func() bool { return count(t, pool, `SELECT count(*) FROM effects WHERE event_id = 'a2'`) == 1 }, waitOpts...)
	testwait.Until(t, "a2 committed", func() bool { return maxCommitted(committed(t, brokers, group, topic)) == 2 }, waitOpts...)
	if n := count(t, pool, `SELECT count(*) FROM effects`); n != 2 {
		t.Fatalf("effects = %d, want 2", n)
	}
}

func TestDecodeWithoutHeaders(t *testing.T) {
	ev := events.Decode(kafka.Message{Topic: "t", Partition: 2, Offset: 7, Key: []byte("k"), Value: []byte("{}")})
	if ev.ID != "kafka:t/2/7" || ev.Type != "" || !ev.Time.IsZero() || ev.Key != "k" {
		t.Fatalf("%+v", ev)
	}
	if !strings.HasPrefix(ev.ID, "kafka:") {
		t.Fatal(ev.ID)
	}
}
