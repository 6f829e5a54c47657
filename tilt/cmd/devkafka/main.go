// Command devkafka runs the in-process Kafka-protocol cluster from franz-go's
// kfake as a small dev broker, so that every service speaks the real Kafka
// protocol (kafka-go) locally and in end-to-end runs without a JVM.
//
// It is a development tool only: Kubernetes deployments use a real Kafka
// cluster given by KAFKA_BROKERS.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
)

// topics are created up front (one per producing service, see ARCHITECTURE.md)
// so that consumers can join their groups before the first event is written.
var topics = []string{
	"agentic.identity.v1",
	"agentic.catalog.v1",
	"agentic.documents.v1",
	"agentic.wallet.v1",
	"agentic.usage.v1",
}

func main() {
	port := flag.Int("port", 9092, "port to listen on (127.0.0.1 only)")
	partitions := flag.Int("partitions", 3, "partitions per seeded topic")
	dataDir := flag.String("data-dir", "", "directory for persisted state (empty: in memory)")
	flag.Parse()

	logger := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	opts := []kfake.Opt{
		kfake.Ports(*port),
		kfake.AllowAutoTopicCreation(),
		kfake.DefaultNumPartitions(*partitions),
		kfake.SeedTopics(int32(*partitions), topics...),
	}
	if *dataDir != "" {
		opts = append(opts, kfake.DataDir(*dataDir))
	}
	cluster, err := kfake.NewCluster(opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "devkafka:", err)
		os.Exit(1)
	}
	logger.Info("dev kafka broker ready", "addrs", cluster.ListenAddrs(), "topics", topics)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	cluster.Close()
	logger.Info("dev kafka broker stopped")
}
