// Package eventstest runs an in-process Kafka (franz-go kfake) for tests and
// reads back what was published.
package eventstest

import (
	"context"
	"fmt"
	"net"
	"strconv"
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

// Broker is a kfake cluster that can be stopped and started again on the
// same port, to test behaviour during a broker outage. Topics and messages do
// not survive a restart.
type Broker struct {
	t    testing.TB
	port int
	c    *kfake.Cluster
}

// StartBroker starts a stoppable single-broker cluster (like StartKafka);
// it is closed in t.Cleanup.
func StartBroker(t testing.TB) *Broker {
	t.Helper()
	b := &Broker{t: t}
	b.Start()
	t.Cleanup(b.Stop)
	return b
}

// Addrs returns the seed brokers (stable across restarts).
func (b *Broker) Addrs() []string { return []string{fmt.Sprintf("127.0.0.1:%d", b.port)} }

// Stop closes the cluster: connections drop and the port refuses new ones.
func (b *Broker) Stop() {
	if b.c != nil {
		b.c.Close()
		b.c = nil
	}
}

// Start (re)starts the cluster on the same port.
func (b *Broker) Start() {
	b.t.Helper()
	if b.c != nil {
		return
	}
	var err error
	for attempt := 0; attempt < 50; attempt++ { // the port may linger briefly after Stop
		b.c, err = kfake.NewCluster(kfake.Ports(b.port), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3))
		if err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		b.t.Fatalf("eventstest: start kfake on port %d: %v", b.port, err)
	}
	if b.port == 0 {
		_, p, _ := net.SplitHostPort(b.c.ListenAddrs()[0])
		b.port, _ = strconv.Atoi(p)
	}
}
