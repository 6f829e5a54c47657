// Command knowledge-bench measures the documents service's knowledge search
// and sync (see services/documents/knowledgebench): Search p50/p99 for one
// agent at 1k, 10k and 100k chunks among 1,000 other agents' noise, and the
// time to sync 200 changed documents against the in-process Drive simulator.
// Not part of `make test`.
//
//	go run ./bench/knowledge                 # full run (several minutes)
//	go run ./bench/knowledge -quick          # small sizes, seconds
//	go run ./bench/knowledge -keep           # keep the database for EXPLAIN ANALYZE
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/agentic-app/agentic/services/documents/knowledgebench"
)

func main() {
	sizes := flag.String("sizes", "1000,10000,100000", "chunk counts of the measured agent, increasing")
	noiseAgents := flag.Int("noise-agents", 1000, "other agents")
	noisePer := flag.Int("noise-chunks", 100, "chunks per other agent")
	queries := flag.Int("queries", 300, "searches measured per size")
	limit := flag.Int("limit", 8, "passages per search")
	syncDocs := flag.Int("sync-docs", 200, "documents synced, changed and re-synced (0 = skip)")
	concurrency := flag.Int("sync-concurrency", 4, "DOCUMENT_SYNC_CONCURRENCY of the sync part")
	quick := flag.Bool("quick", false, "small run: sizes 1000,5000, 100 other agents × 20 chunks, 100 queries, 20 documents")
	keep := flag.Bool("keep", false, "keep the scratch database")
	noExpansion := flag.Bool("no-expansion", false, "search the queries' own words only (no WordNet related words)")
	verbose := flag.Bool("v", false, "print the slowest queries of each size")
	vectors := flag.Bool("vectors", false, "hybrid search through pgvector's HNSW index (needs pgvector; the simulator's 256-dimension embeddings)")
	server := flag.String("db", envOr("TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL server URL (a throwaway database is created on it)")
	flag.Parse()
	cfg := knowledgebench.Config{
		ServerURL: *server, NoiseAgents: *noiseAgents, NoisePerAgent: *noisePer, Queries: *queries, Limit: *limit,
		SyncDocs: *syncDocs, SyncConcurrency: *concurrency, Keep: *keep, NoExpansion: *noExpansion, Vectors: *vectors, Verbose: *verbose, Out: os.Stdout,
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			fmt.Fprintln(os.Stderr, "knowledge-bench: bad -sizes")
			os.Exit(2)
		}
		cfg.Sizes = append(cfg.Sizes, n)
	}
	if *quick {
		cfg.Sizes, cfg.NoiseAgents, cfg.NoisePerAgent, cfg.Queries, cfg.SyncDocs = []int{1000, 5000}, 100, 20, 100, 20
	}
	if err := knowledgebench.Run(context.Background(), cfg); err != nil {
		fmt.Fprintln(os.Stderr, "knowledge-bench:", err)
		os.Exit(1)
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
