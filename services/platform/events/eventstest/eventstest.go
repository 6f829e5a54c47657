// Package eventstest runs an in-process Kafka (franz-go kfake) for tests and
// reads back what was published.
package eventstest

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// StartKafka starts a single-broker kfake cluster on a random local port with
// topic auto-creation and returns its seed brokers. It is closed in t.Cleanup.
func StartKafka(t testing.TB) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.Ports(0), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3))
	if err != nil {
		t.Fatalf("eventstest: start kfake: %v", err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

// Record is a consumed message.
type Record struct {
	Key     string
	Value   []byte
	Headers map[string]string
	Topic   string
}

// Consume reads topic from the beginning until at least n records arrived or
// wait elapsed, and then keeps reading for linger to catch unexpected extra
// records. It returns everything it saw.
func Consume(t testing.TB, brokers []string, topic string, n int, wait, linger time.Duration) []Record {
	t.Helper()
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.AllowAutoTopicCreation(),
		kgo.MetadataMinAge(50*time.Millisecond),
	)
	if err != nil {
		t.Fatalf("eventstest: client: %v", err)
	}
	defer cl.Close()

	var out []Record
	deadline := time.Now().Add(wait)
	lingerUntil := time.Time{}
	for {
		now := time.Now()
		if len(out) >= n && lingerUntil.IsZero() {
			lingerUntil = now.Add(linger)
		}
		end := deadline
		if !lingerUntil.IsZero() {
			end = lingerUntil
		}
		if !now.Before(end) {
			return out
		}
		ctx, cancel := context.WithDeadline(context.Background(), end)
		fetches := cl.PollFetches(ctx)
		cancel()
		fetches.EachRecord(func(r *kgo.Record) {
			h := map[string]string{}
			for _, kv := range r.Headers {
				h[kv.Key] = string(kv.Value)
			}
			out = append(out, Record{Key: string(r.Key), Value: r.Value, Headers: h, Topic: r.Topic})
		})
	}
}
