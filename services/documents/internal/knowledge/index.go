package knowledge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentic-app/agentic/services/platform/tokens"
)

// Search limits.
const (
	DefaultLimit = 8
	MaxLimit     = 50
	// MaxQueryRunes bounds the text that is turned into a query (longer
	// input, e.g. a whole message from the conversations service, is cut).
	MaxQueryRunes = 4000
	// maxAnyTerms: a search looks for at most this many lexemes (words and
	// related words).
	maxAnyTerms = 32
)

// Query is a search of one agent's knowledge.
type Query struct {
	AgentID string
	Text    string
	// Limit: at most this many passages (0 = DefaultLimit, capped at MaxLimit).
	Limit int
	// TokenBudget: at most this many tokens over all passages (0 = none).
	TokenBudget int
	// DocumentIDs / Labels restrict the search to those documents / to
	// documents carrying any of the labels (both: a document matching either).
	DocumentIDs []string
	Labels      []string
	// Earlier are the conversation's earlier user messages, oldest first: a
	// follow-up is searched with the words of the message it follows up
	// (at contextFactor of its own words' weight).
	Earlier []string
	// RelevantOnly leaves out the passages that are not Relevant (below the
	// index's MinRelevance): what an answer is made from.
	RelevantOnly bool
}

// Passage is one chunk returned by a search.
type Passage struct {
	ChunkID      string
	DocumentID   string
	DocumentName string
	Labels       []string
	URL          string
	Text         string
	HeadingPath  string
	Score        float64
	// Relevance is Score as a share (0–1) of what a passage holding every
	// word of the query would score; Relevant: at least the index's
	// MinRelevance (an answer uses only such passages).
	Relevance  float64
	Relevant   bool
	Start, End int // rune offsets in the document's text
	Tokens     int
}

// Index stores chunks and searches them.
type Index struct {
	pool *pgxpool.Pool
	// MinRelevance: a passage less relevant than this is not worth answering
	// from (RETRIEVAL_MIN_RELEVANCE; NewIndex sets DefaultMinRelevance).
	MinRelevance float64
	// Embedder, when set, makes searches hybrid (see Search); nil: lexical
	// only.
	Embedder QueryEmbedder
	// VectorDims, when set (pgvector and its HNSW index are in place for
	// Embedder's model, embeddings.SetupVector), ranks by the index rather
	// than exactly. Set before the index serves searches.
	VectorDims int
	// VectorIterative: the server's pgvector (0.8 or later) can go on
	// scanning the HNSW index until it has enough of the agent's chunks
	// (embeddings.IterativeScan). Without it a search sees only the index's
	// hnswEfSearch nearest chunks of all agents, then keeps the agent's.
	VectorIterative bool
}

// QueryEmbedder embeds a search's query (embeddings.Client): unit length,
// bounded in time; an error makes the search lexical (and is counted).
type QueryEmbedder interface {
	Model() string
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// NewIndex returns the index over pool (the documents database).
func NewIndex(pool *pgxpool.Pool) *Index {
	return &Index{pool: pool, MinRelevance: DefaultMinRelevance}
}

// ReplaceChunks replaces the chunks of a document inside tx. Committed with
// the rest of the sync's changes, it swaps the old version for the new one
// atomically: a search (one statement, one snapshot) sees either.
//
// The agent's lexeme counts change by the difference between the two
// versions, in one upsert that touches only the lexemes whose count changed,
// in lexeme order: concurrent re-indexes of one agent's documents lock the
// shared count rows in the same order (no deadlock), briefly (at the end of
// the work), and not at all for the words an edit did not touch.
func ReplaceChunks(ctx context.Context, tx pgx.Tx, agentID, documentID string, chunks []Chunk) error {
	var (
		oldLex    []string
		oldN      []int32
		oldChunks int
	)
	err := tx.QueryRow(ctx, `
		WITH gone AS (
			DELETE FROM document_chunks WHERE document_id = $1 RETURNING tsv
		), counts AS (
			SELECT l.lexeme, count(*)::int AS n FROM gone, unnest(gone.tsv) AS l GROUP BY l.lexeme
		)
		SELECT coalesce(array_agg(lexeme ORDER BY lexeme), '{}'), coalesce(array_agg(n ORDER BY lexeme), '{}'),
		       (SELECT count(*)::int FROM gone) FROM counts`,
		documentID).Scan(&oldLex, &oldN, &oldChunks)
	if err != nil {
		return fmt.Errorf("delete chunks: %w", err)
	}
	if len(chunks) > 0 {
		rows := make([][]any, len(chunks))
		for i, c := range chunks {
			rows[i] = []any{documentID, agentID, c.Seq, c.Start, c.End, c.Heading, c.HeadingPath, c.Text, c.Tokens}
		}
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"document_chunks"},
			[]string{"document_id", "agent_id", "seq", "start_offset", "end_offset", "heading", "heading_path", "body", "token_count"},
			pgx.CopyFromRows(rows))
		if err != nil {
			return fmt.Errorf("insert chunks: %w", err)
		}
	}
	_, err = tx.Exec(ctx, `
		WITH new AS (
			SELECT l.lexeme, count(*)::int AS n FROM document_chunks c, unnest(c.tsv) AS l
			WHERE c.document_id = $2 GROUP BY l.lexeme
		), old AS (
			SELECT * FROM unnest($3::text[], $4::int[]) AS o(lexeme, n)
		), delta AS (
			SELECT lexeme, coalesce(new.n, 0) - coalesce(old.n, 0) AS d FROM new FULL JOIN old USING (lexeme)
			UNION ALL
			-- '' (never a lexeme) counts the agent's chunks: the N of the IDF.
			SELECT '', (SELECT count(*)::int FROM document_chunks WHERE document_id = $2) - $5::int
		)
		INSERT INTO agent_lexemes (agent_id, lexeme, chunks)
		SELECT $1, lexeme, d FROM delta WHERE d <> 0 ORDER BY lexeme
		ON CONFLICT (agent_id, lexeme) DO UPDATE SET chunks = agent_lexemes.chunks + EXCLUDED.chunks`,
		agentID, documentID, oldLex, oldN, oldChunks)
	if err != nil {
		return fmt.Errorf("count lexemes: %w", err)
	}
	return nil
}

// RemoveChunks deletes a document's chunks inside tx (it leaves retrieval)
// and takes them out of the agent's lexeme counts (one upsert in lexeme
// order, as ReplaceChunks). Counts that reach 0 stay (a search reads them as
// absent): deleting them would cost a scan of the agent's vocabulary.
func RemoveChunks(ctx context.Context, tx pgx.Tx, agentID, documentID string) error {
	// An upsert of negative counts rather than UPDATE … FROM: ON CONFLICT
	// probes the primary key row by row, where a join may choose to scan every
	// agent's counts.
	_, err := tx.Exec(ctx, `
		WITH gone AS (
			DELETE FROM document_chunks WHERE document_id = $2 RETURNING tsv
		), delta AS (
			SELECT l.lexeme, -count(*)::int AS d FROM gone, unnest(gone.tsv) AS l GROUP BY l.lexeme
			UNION ALL
			SELECT '', -count(*)::int FROM gone
		)
		INSERT INTO agent_lexemes (agent_id, lexeme, chunks)
		SELECT $1, lexeme, d FROM delta WHERE d <> 0 ORDER BY lexeme
		ON CONFLICT (agent_id, lexeme) DO UPDATE SET chunks = agent_lexemes.chunks + EXCLUDED.chunks`, agentID, documentID)
	if err != nil {
		return fmt.Errorf("delete chunks: %w", err)
	}
	return nil
}

// validUUIDs keeps the ids that are UUIDs, lower-cased (others cannot exist).
func validUUIDs(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if u, err := uuid.Parse(strings.TrimSpace(id)); err == nil {
			out = append(out, u.String())
		}
	}
	return out
}

// ErrNoAgent is returned for an empty agent id.
var ErrNoAgent = errors.New("knowledge: agent_id is required")

// scope resolves the document filter of q to document ids: nil = every
// document of the agent; an empty non-nil slice = nothing can match.
func (ix *Index) scope(ctx context.Context, agentID string, docIDs, labels []string) ([]string, error) {
	if len(docIDs) == 0 && len(labels) == 0 {
		return nil, nil
	}
	ids := validUUIDs(docIDs)
	if labels == nil {
		labels = []string{}
	}
	rows, err := ix.pool.Query(ctx, `SELECT id::text FROM documents
		WHERE agent_id = $1 AND (id = ANY($2::uuid[]) OR labels && $3::text[])`, agentID, ids, labels)
	if err != nil {
		return nil, fmt.Errorf("resolve search scope: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// MaxCandidates bounds the chunks one stage ranks. Below it ranking is
// exact; a stage that matches more (a query made only of words most chunks
// have) ranks the first MaxCandidates matches it finds, which keeps its
// time bounded at any size.
const MaxCandidates = 1000

// Ranking constants: BM25's term-frequency saturation (k1) and length
// normalisation (b), and how much more an occurrence in the chunk's heading
// path counts than one in its text (measured on bench/retrieval's tuning
// half: as much).
const (
	bm25K1        = 1.2
	bm25B         = 0.5
	headingWeight = 1.0
)

// Search returns the agent's best passages for q.Text, best first.
//
// Candidates are the chunks that have any of the query's words (taken from
// the rarest on, as far as the chunks they match stay within MaxCandidates:
// rare words carry the meaning, and the work stays bounded at any size;
// words no chunk has are left out). Passages that have a quoted phrase as
// typed come first (if none does, the words are enough), and "-word"
// excludes. Candidates are ranked by BM25: each word counts by
// its IDF among the agent's chunks (agent_lexemes), saturating with
// repetition, normalised by the chunk's length; an occurrence in the
// chunk's heading path counts headingWeight times. Passage.Relevance is the
// score as a share of what a chunk holding every word would score.
func (ix *Index) Search(ctx context.Context, q Query) ([]Passage, error) {
	if strings.TrimSpace(q.AgentID) == "" {
		return nil, ErrNoAgent
	}
	agent, err := uuid.Parse(q.AgentID)
	if err != nil {
		return []Passage{}, nil // no such agent: nothing to find
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	text := cut(q.Text, MaxQueryRunes)
	if strings.TrimSpace(text) == "" {
		return []Passage{}, nil
	}
	docs, err := ix.scope(ctx, agent.String(), q.DocumentIDs, q.Labels)
	if err != nil {
		return nil, err
	}
	if docs != nil && len(docs) == 0 {
		return []Passage{}, nil
	}
	p, err := ix.plan(ctx, agent.String(), text, cut(followUpContext(text, q.Earlier), MaxQueryRunes))
	if err != nil {
		return nil, fmt.Errorf("parse query: %w", err)
	}
	if ix.Embedder != nil {
		return ix.hybrid(ctx, q, agent.String(), text, p, docs, limit)
	}
	reportMode(ctx, Mode{Mode: ModeLexical})
	out, err := ix.lexical(ctx, agent.String(), p, docs, limit)
	if err != nil {
		return nil, err
	}
	return Budget(ix.relevant(out, q.RelevantOnly), q.TokenBudget), nil
}

// lexical is the full-text ranking of plan p: a quoted phrase first must
// match as typed; if nothing has it, the words are enough (the exclusions
// still hold).
func (ix *Index) lexical(ctx context.Context, agentID string, p plan, docs []string, limit int) ([]Passage, error) {
	useful := p.useful()
	if len(useful) == 0 {
		return []Passage{}, nil
	}
	terms, best := p.weights()
	stages := []string{p.relax(anyOf(useful))}
	if p.phrase {
		stages = append([]string{p.and}, stages...)
	}
	for _, match := range stages {
		out, err := ix.rank(ctx, agentID, match, terms, best, docs, limit)
		if err != nil || len(out) > 0 {
			return out, err
		}
	}
	return []Passage{}, nil
}

// relevant marks the passages at least MinRelevance as Relevant and, with
// only, leaves out the others.
func (ix *Index) relevant(ps []Passage, only bool) []Passage {
	kept := ps[:0]
	for _, p := range ps {
		p.Relevant = p.Relevance >= ix.MinRelevance
		if p.Relevant || !only {
			kept = append(kept, p)
		}
	}
	return kept
}

// Retrieval modes (Mode.Mode; the X-Retrieval-Mode header of Test retrieval).
const (
	ModeLexical  = "lexical"  // no embeddings provider is configured
	ModeHybrid   = "hybrid"   // lexical and vector ranks fused
	ModeFallback = "fallback" // a provider is configured, the query could not be embedded: lexical
)

// Mode is how a search ran.
type Mode struct {
	Mode  string
	Model string // the embeddings model, when one is configured
}

type modeKey struct{}

// WithModeReport returns a context in which Search records how it ran, and
// the record (read it after Search returns).
func WithModeReport(ctx context.Context) (context.Context, *Mode) {
	m := &Mode{}
	return context.WithValue(ctx, modeKey{}, m), m
}

// ModeReport returns how the search in ctx (WithModeReport) ran.
func ModeReport(ctx context.Context) (Mode, bool) {
	if r, ok := ctx.Value(modeKey{}).(*Mode); ok {
		return *r, true
	}
	return Mode{}, false
}

func reportMode(ctx context.Context, m Mode) {
	if r, ok := ctx.Value(modeKey{}).(*Mode); ok {
		*r = m
	}
}

// rrfK is reciprocal rank fusion's constant: a passage scores Σ 1/(rrfK+rank)
// over the rankings it is in (rank from 1).
const rrfK = 60

// MaxVectorCandidates bounds the chunks of one agent a search scores
// exactly by their embedding (the array path; about 0.8 s at 1536
// dimensions). Beyond it, pgvector's HNSW index is the way.
const MaxVectorCandidates = 10000

// hybrid is Search with an embedder: the query is embedded (one request,
// bounded; on failure the search is lexical, as without an embedder), the
// agent's chunks are ranked by cosine similarity to it, and that ranking is
// fused with the lexical one (the same stages as lexical search, deeper) by
// reciprocal rank fusion. A passage keeps its lexical Relevance; one found
// only by its embedding gets its cosine similarity, clamped to [0, 1], as
// Relevance (a real model's related texts score roughly 0.3–0.8, unrelated
// ones below 0.2; the default RETRIEVAL_MIN_RELEVANCE is 0.15). Score is the fused
// score. Quoted phrases and exclusions apply to the lexical side only.
func (ix *Index) hybrid(ctx context.Context, q Query, agentID, text string, p plan, docs []string, limit int) ([]Passage, error) {
	depth := min(max(2*limit, 20), 2*MaxLimit)
	lex, err := ix.lexical(ctx, agentID, p, docs, depth)
	if err != nil {
		return nil, err
	}
	model := ix.Embedder.Model()
	var vec []Passage
	qv, err := ix.Embedder.EmbedQuery(ctx, text)
	if err == nil {
		vec, err = ix.vectorRank(ctx, agentID, model, qv, docs, depth, p.chunks)
		if err != nil && ctx.Err() != nil {
			return nil, err
		}
		// Every chunk has some similarity to any query: one that is not
		// relevant enough is noise, not a find (a question about nothing in
		// the documents finds nothing, as with full text).
		vec = ix.relevant(vec, true)
	}
	if err != nil {
		reportMode(ctx, Mode{Mode: ModeFallback, Model: model})
	} else {
		reportMode(ctx, Mode{Mode: ModeHybrid, Model: model})
	}
	return Budget(ix.relevant(Fuse(lex, vec, limit), q.RelevantOnly), q.TokenBudget), nil
}

// Fuse merges a lexical and a vector ranking (best first) by reciprocal rank
// fusion: each passage scores Σ 1/(60+rank) over the lists it is in; ties
// go to the better lexical rank, then the chunk id. Score becomes the fused
// score; Relevance is the lexical one, or, for a passage only the vectors
// found, its vector Relevance. At most limit passages.
func Fuse(lex, vec []Passage, limit int) []Passage {
	type entry struct {
		p       Passage
		score   float64
		lexRank int
	}
	byID := map[string]*entry{}
	var order []*entry
	for i, p := range lex {
		e := &entry{p: p, score: 1.0 / float64(rrfK+i+1), lexRank: i + 1}
		byID[p.ChunkID] = e
		order = append(order, e)
	}
	for i, p := range vec {
		if e, ok := byID[p.ChunkID]; ok {
			e.score += 1.0 / float64(rrfK+i+1)
			continue
		}
		e := &entry{p: p, score: 1.0 / float64(rrfK+i+1), lexRank: math.MaxInt}
		byID[p.ChunkID] = e
		order = append(order, e)
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if a.lexRank != b.lexRank {
			return a.lexRank < b.lexRank
		}
		return a.p.ChunkID < b.p.ChunkID
	})
	out := make([]Passage, 0, min(limit, len(order)))
	for _, e := range order[:min(limit, len(order))] {
		e.p.Score = e.score
		out = append(out, e.p)
	}
	return out
}

// vectorRank ranks the agent's chunks that have an embedding of model by
// cosine similarity to qv (unit length; so are the stored ones): exactly,
// in Go, over at most MaxVectorCandidates of them (reading the arrays and
// scoring here takes about 60% of the time of scoring them in SQL: a search
// ~80 ms per 1000 chunks of 1536 dimensions, BenchmarkVectorSearch), or through the
// HNSW index when VectorDims is set. Score and Relevance are the similarity
// (Relevance clamped to [0, 1]).
func (ix *Index) vectorRank(ctx context.Context, agentID, model string, qv []float32, docs []string, limit, chunks int) ([]Passage, error) {
	if ix.VectorDims > 0 && len(qv) == ix.VectorDims {
		return ix.vectorRankHNSW(ctx, agentID, model, qv, docs, limit, chunks > hnswMinChunks)
	}
	filter, args := "", []any{agentID, model, MaxVectorCandidates}
	if docs != nil {
		filter, args = "AND c.document_id = ANY($4::uuid[])", append(args, docs)
	}
	rows, err := ix.pool.Query(ctx, `
		SELECT c.id, e.embedding FROM document_chunks c
		JOIN chunk_embeddings e ON e.document_id = c.document_id AND e.model = $2 AND e.text_hash = c.text_hash
		WHERE c.agent_id = $1 `+filter+`
		LIMIT $3`, args...)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	type scored struct {
		id  int64
		sim float64
	}
	var all []scored
	var (
		id int64
		v  []float32
	)
	for rows.Next() {
		if err := rows.Scan(&id, &v); err != nil {
			rows.Close()
			return nil, fmt.Errorf("vector search: %w", err)
		}
		if len(v) != len(qv) {
			continue // another dimension (the model changed its output size)
		}
		var d float32
		for i := range v {
			d += v[i] * qv[i]
		}
		all = append(all, scored{id, float64(d)})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].sim != all[j].sim {
			return all[i].sim > all[j].sim
		}
		return all[i].id < all[j].id
	})
	all = all[:min(limit, len(all))]
	ids, sims := make([]int64, len(all)), make([]float64, len(all))
	for i, s := range all {
		ids[i], sims[i] = s.id, s.sim
	}
	// A chunk re-indexed since the first read is simply left out.
	return ix.passagesByID(ctx, ids, sims)
}

// passagesByID reads the passages of chunk ids, in that order, with Score
// sims[i] and Relevance sims[i] clamped to [0, 1].
func (ix *Index) passagesByID(ctx context.Context, ids []int64, sims []float64) ([]Passage, error) {
	if len(ids) == 0 {
		return []Passage{}, nil
	}
	rows, err := ix.pool.Query(ctx, `
		SELECT c.id::text, c.document_id::text, d.name, d.labels, d.url, c.body, c.heading_path, b.sim,
		       greatest(least(b.sim, 1), 0), c.start_offset, c.end_offset, c.token_count
		FROM unnest($1::bigint[], $2::float8[]) WITH ORDINALITY AS b(id, sim, ord)
		JOIN document_chunks c ON c.id = b.id
		JOIN documents d ON d.id = c.document_id
		ORDER BY b.ord`, ids, sims)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	return collectPassages(rows)
}

// vectorRankHNSW ranks by pgvector's HNSW index (cosine distance) over the
// embeddings cast to vector(VectorDims), filtered to the agent's chunks
// (embeddings.SetupVector). The index is one graph over every agent's
// embeddings: it yields the nearest of all, and the filter keeps the
// agent's. So the scan is iterative where pgvector can (VectorIterative:
// it goes on until limit of the agent's are found, at most
// hnsw.max_scan_tuples, 20,000 by default), in relaxed order (re-sorted
// here), with ef_search at least limit. The model is also spelled as a
// literal so that a generic plan still matches the partial index's
// predicate. An agent of at most hnswMinChunks chunks is scored exactly
// (the planner's choice: fast at that size, and exact); for a larger one
// (large) the index is made the plan: the planner underestimates how many
// of the agent's chunks have embeddings (a join on two correlated columns:
// 24 rows for 5,000) and would score them all exactly, 50 ms at 5,000
// chunks and linear beyond. Only runs where pgvector is installed.
func (ix *Index) vectorRankHNSW(ctx context.Context, agentID, model string, qv []float32, docs []string, limit int, large bool) ([]Passage, error) {
	v := fmt.Sprintf("vector(%d)", ix.VectorDims)
	filter, args := "", []any{agentID, model, qv, limit}
	if docs != nil {
		filter, args = "AND c.document_id = ANY($5::uuid[])", append(args, docs)
	}
	type scored struct {
		id  int64
		sim float64
	}
	var found []scored
	err := pgx.BeginFunc(ctx, ix.pool, func(tx pgx.Tx) error {
		settings := `SELECT set_config('hnsw.ef_search', $1, true)`
		if ix.VectorIterative {
			settings += `, set_config('hnsw.iterative_scan', 'relaxed_order', true)`
		}
		if large {
			// And no JIT: the plan's cost (the index scan's estimate, and
			// the disabled sort's penalty) is far above jit_above_cost,
			// and compiling takes longer (~20 ms) than the search itself.
			settings += `, set_config('enable_sort', 'off', true), set_config('jit', 'off', true)`
		}
		if _, err := tx.Exec(ctx, settings, strconv.Itoa(max(hnswEfSearch, limit))); err != nil {
			return err
		}
		// The two plans are two statements: a prepared statement's cached
		// generic plan keeps the settings it was planned under, so the
		// exact plan of a small agent would otherwise serve a large one.
		plan := "exact"
		if large {
			plan = "index"
		}
		rows, err := tx.Query(ctx, `
			SELECT /* `+plan+` */ c.id, 1 - (e.embedding::`+v+` <=> $3::real[]::`+v+`)
			FROM chunk_embeddings e
			JOIN document_chunks c ON c.document_id = e.document_id AND c.text_hash = e.text_hash
			WHERE e.model = $2 AND e.model = `+quoteLiteral(model)+` AND c.agent_id = $1 `+filter+`
			ORDER BY e.embedding::`+v+` <=> $3::real[]::`+v+`
			LIMIT $4`, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var s scored
			if err := rows.Scan(&s.id, &s.sim); err != nil {
				rows.Close()
				return err
			}
			found = append(found, s)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].sim > found[j].sim })
	ids, sims := make([]int64, len(found)), make([]float64, len(found))
	for i, s := range found {
		ids[i], sims[i] = s.id, s.sim
	}
	return ix.passagesByID(ctx, ids, sims)
}

// hnswMinChunks: an agent with more chunks is searched through the HNSW
// index, one with fewer exactly (bench/knowledge -vectors).
const hnswMinChunks = 2000

// hnswEfSearch is pgvector's default hnsw.ef_search: the candidates an HNSW
// scan keeps (raised to the search's limit when that is larger).
const hnswEfSearch = 40

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// shortlist bounds the candidates a search scores exactly (BM25 over all
// their lexemes): the rest are left out by coverage.
const shortlist = 100

// coverage is the SQL expression of a chunk's (cand.tsv's) coverage of the
// terms: per query word, the greatest weight among its lexemes that the
// chunk has, summed. The lexemes are quoted literals and the weights
// numbers formatted here, so the text is safe to inline.
func coverage(terms []weighted) string {
	byWord := map[int][]string{}
	var order []int
	for _, t := range terms {
		if _, ok := byWord[t.word]; !ok {
			order = append(order, t.word)
		}
		byWord[t.word] = append(byWord[t.word],
			fmt.Sprintf("CASE WHEN tsv @@ %s::tsquery THEN %s ELSE 0 END", quoteLexeme(t.lexeme), strconv.FormatFloat(t.weight, 'g', 6, 64)))
	}
	if len(order) == 0 {
		return "0"
	}
	parts := make([]string, len(order))
	for i, w := range order {
		if len(byWord[w]) == 1 {
			parts[i] = byWord[w][0]
		} else {
			parts[i] = "greatest(" + strings.Join(byWord[w], ", ") + ")"
		}
	}
	return strings.Join(parts, " + ")
}

// cut shortens s to at most n runes.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) > n {
		return string([]rune(s)[:n])
	}
	return s
}

// rank scores the chunks of the agent that match (one bitmap of the
// (agent_id, tsv) GIN index), at most MaxCandidates of them, by BM25 over
// the weighted terms — a query word and its related words count once, by
// the best of them in the chunk — and the best get their text and document
// in the same statement (one snapshot).
func (ix *Index) rank(ctx context.Context, agentID, tsq string, terms []weighted, best float64, docs []string, limit int) ([]Passage, error) {
	lexemes := make([]string, len(terms))
	weights := make([]float64, len(terms))
	groups := make([]int32, len(terms))
	for i, t := range terms {
		lexemes[i], weights[i], groups[i] = t.lexeme, t.weight, int32(t.word)
	}
	// Two texts rather than "$n IS NULL OR ...": a prepared statement's
	// generic plan would have to serve both cases.
	filter, args := "", []any{agentID, tsq, limit, MaxCandidates, lexemes, weights, bm25K1, bm25B, headingWeight,
		max(best, 1e-9), groups}
	if docs != nil {
		filter, args = "AND c.document_id = ANY($12::uuid[])", append(args, docs)
	}
	// Exact BM25 reads all of a chunk's lexemes: it is kept for the
	// candidates that cover most of the query's weight (coverage: per word,
	// the best weight among its lexemes the chunk has — one binary search
	// of the sorted tsvector each, in C), at most shortlist of them.
	rows, err := ix.pool.Query(ctx, `
		WITH cand AS MATERIALIZED (
			SELECT c.id, c.tsv || ''::tsvector AS tsv, c.token_count FROM document_chunks c
			WHERE c.agent_id = $1 AND c.tsv @@ $2::tsquery `+filter+`
			LIMIT $4
		), short AS MATERIALIZED (
			SELECT id, tsv, token_count FROM cand
			ORDER BY `+coverage(terms)+` DESC, id
			LIMIT `+strconv.Itoa(max(shortlist, limit))+`
		), q AS (
			SELECT * FROM unnest($5::text[], $6::float8[], $11::int[]) AS q(lexeme, w, grp)
		), tf AS (
			SELECT short.id, short.token_count::float8 / avg(short.token_count) OVER () AS len, q.w, q.grp,
			       (SELECT sum(CASE WHEN x = 'A' THEN $9::float8 ELSE 1 END) FROM unnest(u.weights) AS x) AS f
			FROM short
			CROSS JOIN LATERAL unnest(short.tsv) AS u
			JOIN q ON q.lexeme = u.lexeme
		), per_word AS (
			SELECT id, max(w * f * ($7::float8 + 1) / (f + $7::float8 * (1 - $8::float8 + $8::float8 * len))) AS s
			FROM tf GROUP BY id, grp
		), best AS (
			SELECT id, sum(s) AS score FROM per_word GROUP BY id ORDER BY score DESC, id LIMIT $3
		)
		SELECT c.id::text, c.document_id::text, d.name, d.labels, d.url, c.body, c.heading_path, b.score,
		       least(b.score / $10::float8, 1), c.start_offset, c.end_offset, c.token_count
		FROM best b
		JOIN document_chunks c ON c.id = b.id
		JOIN documents d ON d.id = c.document_id
		ORDER BY b.score DESC, c.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return collectPassages(rows)
}

func collectPassages(rows pgx.Rows) ([]Passage, error) {
	out := []Passage{}
	for rows.Next() {
		var p Passage
		if err := rows.Scan(&p.ChunkID, &p.DocumentID, &p.DocumentName, &p.Labels, &p.URL, &p.Text, &p.HeadingPath, &p.Score,
			&p.Relevance, &p.Start, &p.End, &p.Tokens); err != nil {
			rows.Close()
			return nil, err
		}
		if p.Labels == nil {
			p.Labels = []string{}
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// GetPassages returns the whole indexed text of the agent's documents ids,
// in the order of ids then of the text, one passage per chunk without the
// overlap (each passage starts where the previous one ended), cut at
// tokenBudget (0 = none). Unknown and unreadable documents are skipped.
func (ix *Index) GetPassages(ctx context.Context, agentID string, ids []string, tokenBudget int) ([]Passage, error) {
	if strings.TrimSpace(agentID) == "" {
		return nil, ErrNoAgent
	}
	agent, err := uuid.Parse(agentID)
	if err != nil {
		return []Passage{}, nil
	}
	ids = validUUIDs(ids)
	if len(ids) == 0 {
		return []Passage{}, nil
	}
	rows, err := ix.pool.Query(ctx, `
		SELECT c.id::text, c.document_id::text, d.name, d.labels, d.url, c.body, c.heading_path, 0::float8, 0::float8,
		       c.start_offset, c.end_offset, c.token_count
		FROM unnest($2::uuid[]) WITH ORDINALITY AS want(id, ord)
		JOIN documents d ON d.id = want.id AND d.agent_id = $1
		JOIN document_chunks c ON c.document_id = d.id
		ORDER BY want.ord, c.seq`, agent.String(), ids)
	if err != nil {
		return nil, fmt.Errorf("get passages: %w", err)
	}
	all, err := collectPassages(rows)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := make([]Passage, 0, len(all))
	prevDoc, prevEnd := "", 0
	for _, p := range all {
		if p.DocumentID != prevDoc && seen[p.DocumentID] {
			continue // the same id asked for twice
		}
		if p.DocumentID != prevDoc {
			seen[p.DocumentID] = true
			prevDoc, prevEnd = p.DocumentID, 0
		}
		if p.Start < prevEnd { // drop the overlap with the previous chunk
			r := []rune(p.Text)
			cut := min(prevEnd-p.Start, len(r))
			p.Text = strings.TrimLeft(string(r[cut:]), " \t\n")
			p.Start = p.End - utf8.RuneCountInString(p.Text)
			p.Tokens = tokens.Count(p.Text)
		}
		prevEnd = max(prevEnd, p.End)
		if p.Text == "" {
			continue
		}
		out = append(out, p)
	}
	return Budget(out, tokenBudget), nil
}

// Budget cuts passages (in order) so that their tokens add up to at most
// budget (0 = no budget). A first passage larger than the whole budget is
// shortened to fit rather than dropped, so a small budget still gets the
// best passage's beginning.
func Budget(ps []Passage, budget int) []Passage {
	if budget <= 0 {
		return ps
	}
	used := 0
	for i, p := range ps {
		if used+p.Tokens <= budget {
			used += p.Tokens
			continue
		}
		if i == 0 {
			t := strings.ToValidUTF8(tokens.Truncate(p.Text, budget), "")
			for t != "" && tokens.Count(t) > budget { // decoding may merge differently
				r := []rune(t)
				t = string(r[:len(r)-1])
			}
			if t == "" {
				return []Passage{}
			}
			p.Text = t
			p.End = p.Start + utf8.RuneCountInString(t)
			p.Tokens = tokens.Count(t)
			return []Passage{p}
		}
		return ps[:i]
	}
	return ps
}
