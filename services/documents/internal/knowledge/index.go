package knowledge

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	// maxPairTerms: the "at least two terms" stage pairs the rarest this
	// many words (n·(n−1)/2 pairs).
	maxPairTerms = 8
	// maxAnyTerms: the "any term" stage uses at most this many words.
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
}

// Passage is one chunk returned by a search.
type Passage struct {
	ChunkID      string
	DocumentID   string
	DocumentName string
	Labels       []string
	URL          string
	Text         string
	Score        float64
	Start, End   int // rune offsets in the document's text
	Tokens       int
}

// Index stores chunks and searches them.
type Index struct {
	pool *pgxpool.Pool
}

// NewIndex returns the index over pool (the documents database).
func NewIndex(pool *pgxpool.Pool) *Index { return &Index{pool: pool} }

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
		oldLex []string
		oldN   []int32
	)
	err := tx.QueryRow(ctx, `
		WITH gone AS (
			DELETE FROM document_chunks WHERE document_id = $1 RETURNING tsv
		), counts AS (
			SELECT l.lexeme, count(*)::int AS n FROM gone, unnest(gone.tsv) AS l GROUP BY l.lexeme
		)
		SELECT coalesce(array_agg(lexeme ORDER BY lexeme), '{}'), coalesce(array_agg(n ORDER BY lexeme), '{}') FROM counts`,
		documentID).Scan(&oldLex, &oldN)
	if err != nil {
		return fmt.Errorf("delete chunks: %w", err)
	}
	if len(chunks) > 0 {
		rows := make([][]any, len(chunks))
		for i, c := range chunks {
			rows[i] = []any{documentID, agentID, c.Seq, c.Start, c.End, c.Heading, c.Text, c.Tokens}
		}
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"document_chunks"},
			[]string{"document_id", "agent_id", "seq", "start_offset", "end_offset", "heading", "body", "token_count"},
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
		)
		INSERT INTO agent_lexemes (agent_id, lexeme, chunks)
		SELECT $1, lexeme, d FROM delta WHERE d <> 0 ORDER BY lexeme
		ON CONFLICT (agent_id, lexeme) DO UPDATE SET chunks = agent_lexemes.chunks + EXCLUDED.chunks`,
		agentID, documentID, oldLex, oldN)
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
		)
		INSERT INTO agent_lexemes (agent_id, lexeme, chunks)
		SELECT $1, l.lexeme, -count(*) FROM gone, unnest(gone.tsv) AS l
		GROUP BY l.lexeme ORDER BY l.lexeme
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

// term is a positive word of a query: its rarest lexeme that occurs in
// the agent's chunks, and that lexeme's document frequency (how many of the
// agent's chunks contain it, from agent_lexemes). A word is one term even
// when it gives several lexemes ("point-slope" → point-slop, point, slope):
// pairing a word with its own parts would match every chunk that has the
// word and say nothing more.
type term struct {
	lexeme string
	df     int
}

// plan is what a query text turns into: the websearch_to_tsquery (AND
// semantics, phrases, negation), the terms of its positive words in query
// order, and the lexemes of its excluded ("-word") words.
type plan struct {
	and      string // tsquery text; "" when the query has no searchable words
	terms    []term // words some chunk has
	missing  bool   // some searchable word occurs in no chunk (a typo)
	excluded []string
}

func (ix *Index) plan(ctx context.Context, agentID, text string) (plan, error) {
	var p plan
	var positive, negative []string
	for _, w := range strings.Fields(text) {
		if n, ok := strings.CutPrefix(w, "-"); ok {
			negative = append(negative, n)
		} else {
			positive = append(positive, w)
		}
	}
	var (
		words   []int32
		lexemes []string
		dfs     []int32
	)
	err := ix.pool.QueryRow(ctx, `
		WITH t AS (
			SELECT w.i::int AS i, v.lexeme, greatest(coalesce(a.chunks, 0), 0) AS df
			FROM unnest($2::text[]) WITH ORDINALITY AS w(word, i)
			CROSS JOIN LATERAL unnest(to_tsvector('english', w.word)) AS v
			LEFT JOIN agent_lexemes a ON a.agent_id = $4 AND a.lexeme = v.lexeme
		)
		SELECT CASE WHEN numnode(q) = 0 THEN '' ELSE q::text END,
		       ARRAY(SELECT i FROM t ORDER BY i, lexeme),
		       ARRAY(SELECT lexeme FROM t ORDER BY i, lexeme),
		       ARRAY(SELECT df FROM t ORDER BY i, lexeme),
		       ARRAY(SELECT lexeme FROM unnest(to_tsvector('english', $3)))
		FROM websearch_to_tsquery('english', $1) AS q`,
		text, positive, strings.Join(negative, " "), agentID).Scan(&p.and, &words, &lexemes, &dfs, &p.excluded)
	if err != nil {
		return p, err
	}
	// One term per word: its rarest lexeme that some chunk has; the same
	// lexeme twice counts once.
	seen := map[string]bool{}
	for i := 0; i < len(words); {
		j, best := i, -1
		for ; j < len(words) && words[j] == words[i]; j++ {
			if dfs[j] > 0 && (best < 0 || dfs[j] < dfs[best]) {
				best = j
			}
		}
		switch {
		case best < 0:
			p.missing = true
		case !seen[lexemes[best]]:
			seen[lexemes[best]] = true
			p.terms = append(p.terms, term{lexemes[best], int(dfs[best])})
		}
		i = j
	}
	return p, nil
}

// relax keeps the excluded words out of a relaxed stage's query.
func (p plan) relax(q string) string {
	if len(p.excluded) == 0 {
		return q
	}
	q = "(" + q + ")"
	for _, l := range p.excluded[:min(len(p.excluded), maxAnyTerms)] {
		q += " & !" + quoteLexeme(l)
	}
	return q
}

// quoteLexeme writes a lexeme as a tsquery operand, taken literally.
func quoteLexeme(l string) string {
	l = strings.ReplaceAll(l, `\`, `\\`)
	return "'" + strings.ReplaceAll(l, "'", "''") + "'"
}

// MaxCandidates bounds the chunks one stage ranks. Below it ranking is
// exact; a stage that matches more (a query made only of words most chunks
// have) ranks the first MaxCandidates matches it finds, which keeps its
// time bounded at any size.
const MaxCandidates = 3000

// useful returns the terms rarest first: rare words say most about what is
// asked.
func (p plan) useful() []term {
	out := slices.Clone(p.terms)
	slices.SortStableFunc(out, func(a, b term) int { return a.df - b.df })
	return out
}

// atLeastTwo is the tsquery "two of the useful terms", pairs taken from the
// rarest on while the chunks they can match add up to MaxCandidates (at
// least one pair).
func atLeastTwo(ts []term) string {
	ts = ts[:min(len(ts), maxPairTerms)]
	type pair struct {
		a, b string
		df   int // at most this many chunks have both
	}
	var pairs []pair
	for i := range ts {
		for j := i + 1; j < len(ts); j++ {
			pairs = append(pairs, pair{ts[i].lexeme, ts[j].lexeme, min(ts[i].df, ts[j].df)})
		}
	}
	slices.SortStableFunc(pairs, func(x, y pair) int { return x.df - y.df })
	var q []string
	total := 0
	for _, pr := range pairs {
		if len(q) > 0 && total+pr.df > MaxCandidates {
			break
		}
		total += pr.df
		q = append(q, "("+quoteLexeme(pr.a)+" & "+quoteLexeme(pr.b)+")")
	}
	return strings.Join(q, " | ")
}

// anyOf is the tsquery "any of the useful terms", from the rarest on while
// their chunks add up to MaxCandidates (at least one term).
func anyOf(ts []term) string {
	var q []string
	total := 0
	for _, t := range ts[:min(len(ts), maxAnyTerms)] {
		if len(q) > 0 && total+t.df > MaxCandidates {
			break
		}
		total += t.df
		q = append(q, quoteLexeme(t.lexeme))
	}
	return strings.Join(q, " | ")
}

// Search returns the agent's best passages for q.Text, best first.
//
// Stages, the first with any hit wins: (1) websearch_to_tsquery — every
// word must match (AND; quoted phrases and -exclusions as typed); (2) at
// least two of the words must match; (3) any word. A question such as "What
// is the grading policy for late work?" rarely has all its words in one
// passage, and plain OR ranks a passage that repeats one common word above
// one that has several of them, so the middle stage keeps precision while
// still finding the passage. The relaxed stages use the words' frequencies
// in the agent's chunks (agent_lexemes): words no chunk has are left out,
// and words are taken from the rarest on, as far as the chunks they match
// stay within MaxCandidates — rare words carry the meaning (as IDF does), and
// the work of ranking stays bounded. Within a stage passages are ranked by
// ts_rank_cd (cover density: query words close together rank higher; the
// section heading weighs more than the body).
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
	text := q.Text
	if utf8.RuneCountInString(text) > MaxQueryRunes {
		text = string([]rune(text)[:MaxQueryRunes])
	}
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
	p, err := ix.plan(ctx, agent.String(), text)
	if err != nil {
		return nil, fmt.Errorf("parse query: %w", err)
	}
	useful := p.useful()
	var stages []string
	// A word no chunk has makes an AND query fail: skip it then (unless the
	// query says "or").
	missing := p.missing
	if p.and != "" && (!missing || strings.Contains(p.and, "|")) {
		stages = append(stages, p.and)
	}
	if len(useful) >= 3 || (len(useful) == 2 && missing) {
		stages = append(stages, p.relax(atLeastTwo(useful)))
	}
	if len(useful) >= 2 || (len(useful) == 1 && (missing || p.and == "")) {
		stages = append(stages, p.relax(anyOf(useful)))
	}
	for _, tsq := range stages {
		out, err := ix.rank(ctx, agent.String(), tsq, docs, limit)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 {
			return Budget(out, q.TokenBudget), nil
		}
	}
	return []Passage{}, nil
}

// rank runs one stage: the matching chunks of the agent (one bitmap of the
// (agent_id, tsv) GIN index), at most MaxCandidates of them, ranked; the
// best get their text and document in the same statement (one snapshot).
func (ix *Index) rank(ctx context.Context, agentID, tsq string, docs []string, limit int) ([]Passage, error) {
	// Two texts rather than "$4 IS NULL OR ...": a prepared statement's
	// generic plan would have to serve both cases.
	filter, args := "", []any{agentID, tsq, limit, MaxCandidates}
	if docs != nil {
		filter, args = "AND c.document_id = ANY($5::uuid[])", append(args, docs)
	}
	rows, err := ix.pool.Query(ctx, `
		WITH cand AS MATERIALIZED (
			SELECT c.id, c.tsv FROM document_chunks c
			WHERE c.agent_id = $1 AND c.tsv @@ $2::tsquery `+filter+`
			LIMIT $4
		), best AS (
			SELECT id, ts_rank_cd(tsv, $2::tsquery) AS score FROM cand
			ORDER BY score DESC, id
			LIMIT $3
		)
		SELECT c.id::text, c.document_id::text, d.name, d.labels, d.url, c.body, b.score,
		       c.start_offset, c.end_offset, c.token_count
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
		if err := rows.Scan(&p.ChunkID, &p.DocumentID, &p.DocumentName, &p.Labels, &p.URL, &p.Text, &p.Score,
			&p.Start, &p.End, &p.Tokens); err != nil {
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
		SELECT c.id::text, c.document_id::text, d.name, d.labels, d.url, c.body, 0::float8,
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
