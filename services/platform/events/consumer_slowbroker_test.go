package events_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/logtest"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

// A broker that answers an empty fetch late — by the time it takes a busy
// machine to schedule it — is not an error. kafka-go's reader gives the
// broker its MaxWait minus a margin and then times the read out; with the
// old default of 500 ms that margin was 125 ms, and CI's log had about a
// hundred "i/o timeout" WARN lines per run, each followed by a reconnect.
// Here every fetch reaches the broker 300 ms late; the consumer must still
// apply what is produced, with no i/o timeout.
func TestConsumerWaitsOutALateBrokerWithoutTimingOut(t *testing.T) {
	pool := setupConsumerDatabase(t)
	cluster, err := kfake.NewCluster(kfake.Ports(0), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(1))
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	const lateBy = 300 * time.Millisecond
	cluster.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		cluster.KeepControl()
		time.Sleep(lateBy)
		return nil, nil, false // then handled as usual, its wait starting now
	})
	brokers := cluster.ListenAddrs()
	const topic = "agentic.consumer-slow-broker.v1"
	produce(t, brokers, topic, "e1")

	var logs logtest.Buffer
	c, err := events.NewConsumer(events.ConsumerConfig{
		Pool: pool, Brokers: brokers, GroupID: "test-slow-broker", Topics: []string{topic},
		Handler: func(ctx context.Context, tx pgx.Tx, ev events.Received) error { return recordEffect(ctx, tx, ev) },
		Logger:  slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		// MaxWait left at its default: that is what is under test.
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = c.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	testwait.Until(t, "e1 applied", func() bool { return count(t, pool, `SELECT count(*) FROM effects`) == 1 }, waitOpts...)
	time.Sleep(4 * time.Second) // several empty fetches, each answered late
	produce(t, brokers, topic, "e2")
	testwait.Until(t, "e2 applied", func() bool { return count(t, pool, `SELECT count(*) FROM effects`) == 2 }, waitOpts...)

	if n := strings.Count(logs.String(), "i/o timeout"); n > 0 {
		t.Fatalf("%d fetches timed out against a broker %s late:\n%s", n, lateBy, logs.String())
	}
}
