// Package retrievalbench is the retrieval quality benchmark run by
// bench/retrieval (go run ./bench/retrieval): the evaluation set's documents
// are chunked and indexed for one agent exactly as a sync does, every
// question is searched as the conversations service would search it, and
// the figures are printed per split (tuning / held-out) and per kind:
// recall@1, recall@5, MRR, the share of no-answer questions declined, and
// search latency. It lives in the documents module because it drives the
// service's internal packages; it is not part of the service binary nor of
// the tests.
package retrievalbench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentic-app/agentic/services/documents/internal/drivesim"
	"github.com/agentic-app/agentic/services/documents/internal/embeddings"
	"github.com/agentic-app/agentic/services/documents/internal/knowledge"
	"github.com/agentic-app/agentic/services/documents/internal/knowledge/wordnet"
	"github.com/agentic-app/agentic/services/documents/knowledgebench"
)

// Config of a run.
type Config struct {
	// ServerURL is a PostgreSQL URL; a throwaway database is created on it.
	ServerURL string
	// DataDir holds docs/*.txt and questions-*.json.
	DataDir string
	// Limit of each search (the conversations service's default is 8).
	Limit int
	// NoExpansion leaves term_relations empty: searches use the query's own
	// words only (to measure what WordNet's related words add).
	NoExpansion bool
	// Embeddings, when BaseURL and Model are set, makes the search hybrid
	// (EMBEDDINGS_BASE_URL, EMBEDDINGS_MODEL, EMBEDDINGS_API_KEY): every
	// chunk is embedded after indexing, as a sync does.
	Embeddings embeddings.Config
	// Keep leaves the database in place.
	Keep bool
	// Verbose prints every question of the tuning half that missed (rank >
	// 5, or a wrong decline) with what came first instead. The held-out
	// half's misses are never printed: nothing is tuned on them.
	Verbose bool
	// Explain names tuning questions (by id) whose every passage is
	// printed: rank, relevance, heading path and the first words, and
	// whether it holds the answer. Held-out questions are refused.
	Explain []string
	Out     io.Writer
	// Cite, when set, answers every question that was not declined from its
	// search's passages through the chat path (bench/retrieval wires it to
	// services/conversations/citebench) and returns the names of the
	// documents the answer cites, in order. Each split then gets a citation
	// accuracy line.
	Cite func(question Question, passages []Passage) (citedDocumentNames []string, err error)
}

// Passage is a search result (knowledge.Passage), named here so that
// Config.Cite can be written outside the documents module.
type Passage = knowledge.Passage

// EmbeddingsConfig configures the embeddings provider of a hybrid run (the
// bench module cannot name the service's internal package).
type EmbeddingsConfig = embeddings.Config

// Turn is one earlier exchange of a follow-up question.
type Turn struct {
	User      string `json:"user"`
	Assistant string `json:"assistant"`
}

// Question is one question of the evaluation set.
type Question struct {
	ID       string  `json:"id"`
	Split    string  `json:"split"`   // tuning | heldout
	Kind     string  `json:"kind"`    // literal | paraphrase | number | followup | noanswer
	Wording  string  `json:"wording"` // document | own ("" for noanswer)
	History  []Turn  `json:"history"`
	Question string  `json:"question"`
	Document *string `json:"document"` // the document's slug; nil: no document answers
	Answer   *string `json:"answer"`   // an exact substring of the document holding the answer
}

const agentID = "01900000-0000-7000-8000-0000000c0001"

// Set is the loaded evaluation set.
type Set struct {
	Docs      map[string]string // slug → text
	Questions []Question
}

// Load reads the evaluation set from dir and checks it: every answer is a
// substring of its document.
func Load(dir string) (Set, error) {
	s := Set{Docs: map[string]string{}}
	files, err := filepath.Glob(filepath.Join(dir, "docs", "*.txt"))
	if err != nil {
		return s, err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return s, err
		}
		s.Docs[strings.TrimSuffix(filepath.Base(f), ".txt")] = string(b)
	}
	qfiles, err := filepath.Glob(filepath.Join(dir, "questions-*.json"))
	if err != nil {
		return s, err
	}
	slices.Sort(qfiles)
	for _, f := range qfiles {
		b, err := os.ReadFile(f)
		if err != nil {
			return s, err
		}
		var qs []Question
		if err := json.Unmarshal(b, &qs); err != nil {
			return s, fmt.Errorf("%s: %w", f, err)
		}
		s.Questions = append(s.Questions, qs...)
	}
	for _, q := range s.Questions {
		if q.Kind == "noanswer" {
			continue
		}
		if q.Document == nil || q.Answer == nil {
			return s, fmt.Errorf("question %s: document and answer are required", q.ID)
		}
		if !strings.Contains(s.Docs[*q.Document], *q.Answer) {
			return s, fmt.Errorf("question %s: answer is not in %s", q.ID, *q.Document)
		}
	}
	if len(s.Docs) == 0 || len(s.Questions) == 0 {
		return s, fmt.Errorf("no evaluation set in %s", dir)
	}
	return s, nil
}

// SearchQuery is how the conversations service searches for a question:
// the question with the conversation's earlier user messages (a follow-up
// is searched with the words of what it follows up).
func SearchQuery(q Question, limit int) knowledge.Query {
	var earlier []string
	for _, t := range q.History {
		earlier = append(earlier, t.User)
	}
	return knowledge.Query{AgentID: agentID, Text: q.Question, Earlier: earlier, Limit: limit}
}

// outcome is what one search gave for one question.
type outcome struct {
	q        Question
	rank     int // 1-based rank of the first passage holding the answer; 0: none in the results
	declined bool
	top      float64 // the best passage's relevance (0 when none)
	took     time.Duration
	first    string   // the best passage's document and heading path
	cited    []string // documents the answer cites (Config.Cite; nil when declined)
}

// Run loads the set, indexes it, searches every question and prints the
// figures to cfg.Out.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	if cfg.Limit <= 0 {
		cfg.Limit = knowledge.DefaultLimit
	}
	set, err := Load(cfg.DataDir)
	if err != nil {
		return err
	}
	pool, drop, err := knowledgebench.Scratch(ctx, cfg.ServerURL, "agentic_retrieval_bench_")
	if err != nil {
		return err
	}
	defer func() {
		pool.Close()
		if !cfg.Keep {
			drop()
		}
	}()
	if !cfg.NoExpansion {
		if _, err := wordnet.Load(ctx, pool); err != nil {
			return err
		}
	}
	docIDs, chunks, err := index(ctx, pool, set)
	if err != nil {
		return err
	}
	ix := knowledge.NewIndex(pool)
	mode := "lexical only"
	if cfg.Embeddings.BaseURL != "" {
		client, err := embeddings.New(cfg.Embeddings)
		if err != nil {
			return err
		}
		if err := embedAll(ctx, pool, client, docIDs); err != nil {
			return err
		}
		ix.Embedder = client
		mode = "hybrid with " + client.Model()
		if client.Simulated() {
			mode += " (simulated embeddings: not semantic)"
		}
	}
	// Warm the caches and the prepared statements: latency is measured on a
	// running service, not a cold one.
	for _, q := range set.Questions[:min(10, len(set.Questions))] {
		if _, err := ix.Search(ctx, SearchQuery(q, cfg.Limit)); err != nil {
			return err
		}
	}
	for _, id := range cfg.Explain {
		i := slices.IndexFunc(set.Questions, func(q Question) bool { return q.ID == id })
		if i < 0 || set.Questions[i].Split != "tuning" {
			return fmt.Errorf("explain %q: not a question of the tuning half", id)
		}
	}
	var results []outcome
	for _, q := range set.Questions {
		start := time.Now()
		ps, err := ix.Search(ctx, SearchQuery(q, cfg.Limit))
		if err != nil {
			return fmt.Errorf("search %s: %w", q.ID, err)
		}
		o := outcome{q: q, took: time.Since(start), declined: !knowledge.Relevant(ps)}
		if len(ps) > 0 {
			o.top = ps[0].Relevance
			o.first = fmt.Sprintf("%s › %s", ps[0].DocumentName, ps[0].HeadingPath)
		}
		if q.Answer != nil {
			o.rank = rankOf(set.Docs[*q.Document], *q.Answer, docIDs[*q.Document], ps)
		}
		if slices.Contains(cfg.Explain, q.ID) {
			explain(cfg.Out, set, docIDs, q, ps)
		}
		if cfg.Cite != nil && !o.declined {
			if o.cited, err = cfg.Cite(q, ps); err != nil {
				return fmt.Errorf("cite %s: %w", q.ID, err)
			}
		}
		results = append(results, o)
	}
	fmt.Fprintf(cfg.Out, "evaluation set: %d documents (%d chunks), %d questions; search limit %d; related words: %v; %s\n",
		len(set.Docs), chunks, len(set.Questions), cfg.Limit, !cfg.NoExpansion, mode)
	for _, split := range []string{"tuning", "heldout"} {
		var in []outcome
		for _, o := range results {
			if o.q.Split == split {
				in = append(in, o)
			}
		}
		report(cfg.Out, split, in)
		if cfg.Cite != nil {
			reportCitations(cfg.Out, in)
		}
	}
	var lat []time.Duration
	for _, o := range results {
		lat = append(lat, o.took)
	}
	fmt.Fprintf(cfg.Out, "\nsearch latency over %d questions: p50 %s, p99 %s, max %s\n", len(lat), knowledgebench.Pct(lat, 50), knowledgebench.Pct(lat, 99), knowledgebench.Pct(lat, 100))
	if cfg.Verbose {
		sweep(cfg.Out, results)
		fmt.Fprintln(cfg.Out, "\nmisses of the tuning half (answer not in the top 5, or a wrong decline):")
		for _, o := range results {
			if o.q.Split != "tuning" {
				continue
			}
			switch {
			case o.q.Answer == nil && !o.declined:
				fmt.Fprintf(cfg.Out, "  %-22s answered %q with %s (relevance %.2f)\n", o.q.ID, o.q.Question, o.first, o.top)
			case o.q.Answer != nil && o.declined:
				fmt.Fprintf(cfg.Out, "  %-22s declined %q (rank %d); first: %s\n", o.q.ID, o.q.Question, o.rank, o.first)
			case o.q.Answer != nil && (o.rank == 0 || o.rank > 5):
				fmt.Fprintf(cfg.Out, "  %-22s rank %d for %q; first: %s (relevance %.2f)\n", o.q.ID, o.rank, o.q.Question, o.first, o.top)
			}
		}
	}
	if cfg.Keep {
		fmt.Fprintf(cfg.Out, "\ndatabase kept: %s (agent %s)\n", pool.Config().ConnConfig.Database, agentID)
	}
	return nil
}

// explain prints a question's passages, best first.
func explain(out io.Writer, set Set, docIDs map[string]string, q Question, ps []knowledge.Passage) {
	fmt.Fprintf(out, "%s %q:\n", q.ID, q.Question)
	for i, p := range ps {
		mark := " "
		if q.Answer != nil && rankOf(set.Docs[*q.Document], *q.Answer, docIDs[*q.Document], ps[i:i+1]) == 1 {
			mark = "*"
		}
		text := strings.Join(strings.Fields(p.Text), " ")
		fmt.Fprintf(out, "  %s%d %.2f %s › %s: %.90s\n", mark, i+1, p.Relevance, p.DocumentName, p.HeadingPath, text)
	}
}

// sweep prints, for relevance thresholds, what share of the tuning half's
// no-answer questions would be declined and of its answerable ones wrongly
// declined: where knowledge.DefaultMinRelevance was chosen.
func sweep(out io.Writer, results []outcome) {
	fmt.Fprintf(out, "\nrelevance threshold on the tuning half (current %.2f):\n", knowledge.DefaultMinRelevance)
	fmt.Fprintf(out, "  %9s %18s %22s\n", "threshold", "no-answer declined", "answerable declined")
	for th := 0.05; th < 0.61; th += 0.05 {
		var none, noneDeclined, ans, ansDeclined int
		for _, o := range results {
			if o.q.Split != "tuning" {
				continue
			}
			declined := o.top < th
			if o.q.Answer == nil {
				none++
				if declined {
					noneDeclined++
				}
			} else {
				ans++
				if declined {
					ansDeclined++
				}
			}
		}
		fmt.Fprintf(out, "  %9.2f %12d of %3d %16d of %3d\n", th, noneDeclined, none, ansDeclined, ans)
	}
}

// rankOf is the 1-based rank of the first passage of the answer's document
// that holds at least half of the answer's text (a chunk boundary may cut
// it; the overlap usually keeps it whole in one of the two), 0 if none.
func rankOf(doc, answer, docID string, ps []knowledge.Passage) int {
	b := strings.Index(doc, answer)
	start := utf8.RuneCountInString(doc[:b])
	end := start + utf8.RuneCountInString(answer)
	for i, p := range ps {
		if p.DocumentID != docID {
			continue
		}
		overlap := min(end, p.End) - max(start, p.Start)
		if 2*overlap >= end-start {
			return i + 1
		}
	}
	return 0
}

// report prints one split's figures by kind and in all.
func report(out io.Writer, split string, in []outcome) {
	fmt.Fprintf(out, "\n%s (%d questions)\n", split, len(in))
	fmt.Fprintf(out, "  %-24s %5s %9s %9s %7s %9s\n", "", "n", "recall@1", "recall@5", "MRR", "declined")
	groups := map[string][]outcome{}
	var order []string
	add := func(name string, o outcome) {
		if _, ok := groups[name]; !ok {
			order = append(order, name)
		}
		groups[name] = append(groups[name], o)
	}
	for _, o := range in {
		add("kind "+o.q.Kind, o)
		if o.q.Answer != nil {
			add("wording "+o.q.Wording, o)
			add("all answerable", o)
		}
	}
	sort.Strings(order)
	for _, name := range order {
		g := groups[name]
		if name == "kind noanswer" {
			declined := 0
			for _, o := range g {
				if o.declined {
					declined++
				}
			}
			fmt.Fprintf(out, "  %-24s %5d %9s %9s %7s %9.2f\n", name, len(g), "", "", "", float64(declined)/float64(len(g)))
			continue
		}
		var r1, r5, mrr float64
		declined := 0
		for _, o := range g {
			if o.declined {
				declined++ // a wrong decline: the answer was there
				continue
			}
			if o.rank == 1 {
				r1++
			}
			if o.rank >= 1 && o.rank <= 5 {
				r5++
			}
			if o.rank > 0 {
				mrr += 1 / float64(o.rank)
			}
		}
		n := float64(len(g))
		fmt.Fprintf(out, "  %-24s %5d %9.2f %9.2f %7.3f %9.2f\n", name, len(g), r1/n, r5/n, mrr/n, float64(declined)/n)
	}
}

// reportCitations prints one split's citation accuracy through the chat
// path: the share of answerable questions whose answer cites the question's
// document first (a decline counts as a miss; also given over the questions
// not declined), and the share of no-answer questions whose answer cites
// nothing (a decline cites nothing).
func reportCitations(out io.Writer, in []outcome) {
	var ans, ansAnswered, ansRight, none, noneClean int
	for _, o := range in {
		if o.q.Answer == nil {
			none++
			if len(o.cited) == 0 {
				noneClean++
			}
			continue
		}
		ans++
		if !o.declined {
			ansAnswered++
		}
		if len(o.cited) > 0 && o.cited[0] == *o.q.Document {
			ansRight++
		}
	}
	share := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	fmt.Fprintf(out, "  citation accuracy: answerable, first cited document right %.2f (%d of %d; %.2f of the %d not declined); no-answer, nothing cited %.2f (%d of %d)\n",
		share(ansRight, ans), ansRight, ans, share(ansRight, ansAnswered), ansAnswered, share(noneClean, none), noneClean, none)
}

// index loads every document of the set for the agent, chunked as a sync
// chunks it. It returns the documents' ids by slug and the number of chunks.
func index(ctx context.Context, pool *pgxpool.Pool, set Set) (map[string]string, int, error) {
	ids := map[string]string{}
	total := 0
	slugs := make([]string, 0, len(set.Docs))
	for s := range set.Docs {
		slugs = append(slugs, s)
	}
	slices.Sort(slugs)
	for _, slug := range slugs {
		text := set.Docs[slug]
		id := uuid.Must(uuid.NewV7()).String()
		fileID := "1eval" + strings.ReplaceAll(id, "-", "")
		title, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
		chunks := knowledge.Split(text, knowledge.ChunkConfig{Title: strings.TrimSpace(title)})
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO documents (id, agent_id, owner_uid, name, url, drive_file_id, labels,
				sharing_status, sync_state, content_hash, token_count)
				VALUES ($1, $2, 'bench', $3, $4, $5, '{}', 'shared', 'synced', 'bench', $6)`,
				id, agentID, slug, drivesim.DocsURL(fileID), fileID, knowledge.CountTokens(text)); err != nil {
				return err
			}
			return knowledge.ReplaceChunks(ctx, tx, agentID, id, chunks)
		})
		if err != nil {
			return nil, 0, err
		}
		ids[slug] = id
		total += len(chunks)
	}
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE document_chunks`); err != nil {
		return nil, 0, err
	}
	return ids, total, nil
}

// embedAll embeds every indexed chunk of the documents, as a sync does.
func embedAll(ctx context.Context, pool *pgxpool.Pool, client *embeddings.Client, docIDs map[string]string) error {
	for _, id := range docIDs {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			todo, err := embeddings.Missing(ctx, tx, id, client.Model())
			if err != nil || len(todo) == 0 {
				return err
			}
			texts, hashes := make([]string, len(todo)), make([]string, len(todo))
			for i, p := range todo {
				texts[i], hashes[i] = embeddings.Input(p.HeadingPath, p.Body), p.Hash
			}
			vecs, err := client.Embed(ctx, texts)
			if err != nil {
				return err
			}
			return embeddings.Save(ctx, tx, id, client.Model(), hashes, vecs)
		})
		if err != nil {
			return fmt.Errorf("embed: %w", err)
		}
	}
	return nil
}
