// Command analytics-bench measures the event freshness of the analytics read
// models: it produces events at a steady rate into an in-process kfake broker,
// runs the analytics projection under the platform consumer (group
// "analytics") against a throwaway PostgreSQL database, and prints p50/p99 of
// (read-model update time − ce_time). Not part of `make test`.
//
//	go run ./bench/analytics -rate 200 -duration 15s
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/analytics/readmodel"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/events"
)

func main() {
	rate := flag.Int("rate", 200, "events per second produced")
	duration := flag.Duration("duration", 10*time.Second, "how long to produce")
	users := flag.Int("users", 50, "distinct owners")
	server := flag.String("db", envOr("TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL server URL (a throwaway database is created on it)")
	flag.Parse()
	if err := run(*rate, *duration, *users, *server); err != nil {
		fmt.Fprintln(os.Stderr, "analytics-bench:", err)
		os.Exit(1)
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func run(rate int, duration time.Duration, users int, serverURL string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

	// Broker.
	cluster, err := kfake.NewCluster(kfake.Ports(0), kfake.SeedTopics(3, readmodel.Topics...))
	if err != nil {
		return err
	}
	defer cluster.Close()
	brokers := cluster.ListenAddrs()

	// Throwaway database.
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	u, err := url.Parse(serverURL)
	if err != nil {
		return err
	}
	u.Path = "/agentic_analytics_bench_" + hex.EncodeToString(b)
	dbURL := u.String()
	if err := database.EnsureDatabase(ctx, dbURL); err != nil {
		return err
	}
	defer func() { _ = database.DropDatabase(context.Background(), dbURL) }()
	pool, err := database.Connect(ctx, dbURL, logger)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := database.Migrate(ctx, pool, readmodel.Migrations, readmodel.MigrationsDir, database.WithLogger(logger)); err != nil {
		return err
	}
	if err := events.MigrateConsumer(ctx, pool, logger); err != nil {
		return err
	}

	// Consumer: the service's projection, timing each applied event.
	var (
		mu      sync.Mutex
		lags    []time.Duration
		applied atomic.Int64
	)
	projector := readmodel.NewProjector(readmodel.ProjectorConfig{})
	consumer, err := events.NewConsumer(events.ConsumerConfig{
		Pool: pool, Brokers: brokers, GroupID: readmodel.ConsumerGroup, Topics: readmodel.Topics,
		MaxWait: 100 * time.Millisecond, Logger: logger,
		Handler: func(ctx context.Context, tx pgx.Tx, ev events.Received) error {
			if err := projector.Handle(ctx, tx, ev); err != nil {
				return err
			}
			lag := time.Since(ev.Time)
			mu.Lock()
			lags = append(lags, lag)
			mu.Unlock()
			applied.Add(1)
			return nil
		},
	})
	if err != nil {
		return err
	}
	consumerDone := make(chan error, 1)
	go func() { consumerDone <- consumer.Run(ctx) }()

	// Producer: steady rate, a mix of every event the projection applies.
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ProducerLinger(0))
	if err != nil {
		return err
	}
	defer cl.Close()

	total := int(float64(rate) * duration.Seconds())
	fmt.Printf("producing %d events at %d/s for %s into kfake; consumer group %q on a throwaway database\n", total, rate, duration, readmodel.ConsumerGroup)
	interval := time.Second / time.Duration(rate)
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	var produceErr atomic.Value
	start := time.Now()
	for i := range total {
		<-ticker.C
		topic, key, typ, msg := nextEvent(i, users)
		rec := record(topic, key, typ, fmt.Sprintf("bench-%d", i), msg)
		cl.Produce(ctx, rec, func(_ *kgo.Record, err error) {
			if err != nil {
				produceErr.Store(err)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		return err
	}
	if v := produceErr.Load(); v != nil {
		return v.(error)
	}
	produced := time.Since(start)

	deadline := time.Now().Add(2*time.Minute + duration)
	for applied.Load() < int64(total) {
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d events applied", applied.Load(), total)
		}
		time.Sleep(50 * time.Millisecond)
	}
	drained := time.Since(start)
	cancel()
	<-consumerDone

	mu.Lock()
	defer mu.Unlock()
	slices.Sort(lags)
	q := func(p float64) time.Duration { return lags[min(len(lags)-1, int(p*float64(len(lags))))] }
	fmt.Printf("applied %d events; produced in %s, all applied after %s (%.0f events/s)\n",
		len(lags), produced.Round(time.Millisecond), drained.Round(time.Millisecond), float64(len(lags))/drained.Seconds())
	fmt.Printf("freshness (read-model update − ce_time): p50 %s  p90 %s  p99 %s  max %s\n",
		q(0.50).Round(100*time.Microsecond), q(0.90).Round(100*time.Microsecond),
		q(0.99).Round(100*time.Microsecond), lags[len(lags)-1].Round(100*time.Microsecond))
	return nil
}

// nextEvent cycles through agent.created, document.added, agent.updated,
// income.credited and interaction.recorded for a rotating set of owners.
func nextEvent(i, users int) (topic, key, typ string, msg any) {
	owner := fmt.Sprintf("user-%d", i%users)
	agent := fmt.Sprintf("agent-%d", (i/5)%(users*4))
	now := timestamppb.Now()
	switch i % 5 {
	case 0:
		return readmodel.TopicCatalog, agent, readmodel.TypeAgentCreated, &eventsv1.AgentCreated{
			AgentId: agent, OwnerUid: owner, Name: "Agent " + agent, IconColor: "#4076D6", Status: "active", OccurredAt: now}
	case 1:
		return readmodel.TopicDocuments, agent, readmodel.TypeDocumentAdded, &eventsv1.DocumentAdded{
			DocumentId: fmt.Sprintf("doc-%d", i), AgentId: agent, OwnerUid: owner, Name: "Syllabus", FileType: "Google Docs", OccurredAt: now}
	case 2:
		return readmodel.TopicCatalog, agent, readmodel.TypeAgentUpdated, &eventsv1.AgentUpdated{
			AgentId: agent, OwnerUid: owner, Name: "Agent " + agent, ChangedFields: []string{"instructions"}, OccurredAt: now}
	case 3:
		return readmodel.TopicWallet, owner, readmodel.TypeIncomeCredited, &eventsv1.WalletIncomeCredited{
			Uid: owner, AmountMicros: 1_250_000, TransferId: fmt.Sprintf("t-%d", i), OccurredAt: now}
	default:
		return readmodel.TopicUsage, agent, readmodel.TypeInteractionRecorded,
			fmt.Appendf(nil, `{"agentId":%q,"ownerUid":%q,"documentReferences":["Syllabus"],"occurredAt":%q}`,
				agent, owner, now.AsTime().Format(time.RFC3339Nano))
	}
}

func record(topic, key, typ, id string, msg any) *kgo.Record {
	var value []byte
	switch m := msg.(type) {
	case []byte:
		value = m
	case proto.Message:
		value, _ = protojson.Marshal(m)
	}
	return &kgo.Record{Topic: topic, Key: []byte(key), Value: value, Headers: []kgo.RecordHeader{
		{Key: "ce_specversion", Value: []byte("1.0")}, {Key: "ce_id", Value: []byte(id)},
		{Key: "ce_type", Value: []byte(typ)}, {Key: "ce_source", Value: []byte("/bench")},
		{Key: "ce_subject", Value: []byte(key)}, {Key: "ce_time", Value: []byte(time.Now().UTC().Format(time.RFC3339Nano))},
		{Key: "content-type", Value: []byte("application/json")},
	}}
}
