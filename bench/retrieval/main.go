// Command retrieval-bench measures retrieval quality on the evaluation set
// in bench/retrieval/data (see services/documents/retrievalbench): recall@1,
// recall@5 and MRR by kind of question, the share of no-answer questions
// declined, search latency, and citation accuracy through the chat path
// (the conversations service's prompt answered by its LLM simulator, see
// services/conversations/citebench), for the tuning half and the held-out
// half.
// Not part of `make test`.
//
//	go run ./bench/retrieval          # figures
//	go run ./bench/retrieval -v       # and the tuning half's misses, with what came first
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentic-app/agentic/services/conversations/citebench"
	"github.com/agentic-app/agentic/services/documents/retrievalbench"
)

func main() {
	_, self, _, _ := runtime.Caller(0)
	data := flag.String("data", filepath.Join(filepath.Dir(self), "data"), "evaluation set: docs/*.txt and questions-*.json")
	limit := flag.Int("limit", 8, "passages per search")
	keep := flag.Bool("keep", false, "keep the scratch database")
	noExpansion := flag.Bool("no-expansion", false, "search the query's own words only (no WordNet related words)")
	embURL := flag.String("embeddings-url", os.Getenv("EMBEDDINGS_BASE_URL"), "OpenAI-compatible embeddings API base URL (hybrid search; \"\" = lexical only)")
	embModel := flag.String("embeddings-model", os.Getenv("EMBEDDINGS_MODEL"), "embeddings model")
	verbose := flag.Bool("v", false, "print every miss")
	explain := flag.String("explain", "", "comma-separated ids of tuning questions whose passages are printed")
	server := flag.String("db", envOr("TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL server URL (a throwaway database is created on it)")
	flag.Parse()
	cfg := retrievalbench.Config{ServerURL: *server, DataDir: *data, Limit: *limit, NoExpansion: *noExpansion, Keep: *keep, Verbose: *verbose, Out: os.Stdout,
		Explain:    strings.FieldsFunc(*explain, func(r rune) bool { return r == ',' }),
		Embeddings: retrievalbench.EmbeddingsConfig{BaseURL: *embURL, Model: *embModel, APIKey: os.Getenv("EMBEDDINGS_API_KEY")},
		Cite:       cite}
	if err := retrievalbench.Run(context.Background(), cfg); err != nil {
		fmt.Fprintln(os.Stderr, "retrieval-bench:", err)
		os.Exit(1)
	}
}

// cite answers the question from the search's passages as the chat path
// does and returns the documents the answer cites (document names are the
// evaluation set's slugs).
func cite(q retrievalbench.Question, ps []retrievalbench.Passage) ([]string, error) {
	passages := make([]citebench.Passage, 0, len(ps))
	for _, p := range ps {
		passages = append(passages, citebench.Passage{DocumentID: p.DocumentID, DocumentName: p.DocumentName,
			URL: p.URL, Text: p.Text, Labels: p.Labels})
	}
	earlier := make([]citebench.Turn, 0, len(q.History))
	for _, t := range q.History {
		earlier = append(earlier, citebench.Turn{User: t.User, Assistant: t.Assistant})
	}
	cited, _, err := citebench.CitedDocuments("Retrieval bench", passages, earlier, q.Question)
	return cited, err
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
