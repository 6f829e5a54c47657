package eventstest

import (
	"context"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
)

func TestLagCountsWhatTheGroupHasNotCommitted(t *testing.T) {
	brokers := StartKafka(t)
	const topic, group = "agentic.eventstest-lag.v1", "eventstest-lag"
	ctx := context.Background()
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Topic: topic, AllowAutoTopicCreation: true, Balancer: &kafka.Hash{},
		BatchTimeout: 5 * time.Millisecond, RequiredAcks: kafka.RequireAll}
	defer w.Close()
	if err := w.WriteMessages(ctx, kafka.Message{Key: []byte("k"), Value: []byte("1")}, kafka.Message{Key: []byte("k"), Value: []byte("2")},
		kafka.Message{Key: []byte("k"), Value: []byte("3")}); err != nil {
		t.Fatal(err)
	}
	cl := &kafka.Client{Addr: kafka.TCP(brokers...), Timeout: 5 * time.Second}
	if n, err := lag(ctx, cl, group, topic); err != nil || n != 3 {
		t.Fatalf("lag before any commit = %d, %v; want 3", n, err)
	}

	r := kafka.NewReader(kafka.ReaderConfig{Brokers: brokers, GroupID: group, Topic: topic, StartOffset: kafka.FirstOffset,
		MaxWait: 50 * time.Millisecond})
	defer r.Close()
	rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for want := int64(2); want >= 0; want-- {
		m, err := r.FetchMessage(rctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.CommitMessages(rctx, m); err != nil {
			t.Fatal(err)
		}
		if n, err := lag(ctx, cl, group, topic); err != nil || n != want {
			t.Fatalf("lag after committing %q = %d, %v; want %d", m.Value, n, err, want)
		}
	}
	WaitConsumed(t, brokers, group, topic)
}
