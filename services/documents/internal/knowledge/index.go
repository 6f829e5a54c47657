package knowledge

import (
	"context"
	"errors"
	"fmt"
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
	// maxPairTerms: the "at least two terms" stage pairs the first this many
	// lexemes (n·(n−1)/2 pairs).
	maxPairTerms = 8
	// maxAnyTerms: the "any term" stage uses the first this many lexemes.
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
func ReplaceChunks(ctx context.Context, tx pgx.Tx, agentID, documentID string, chunks []Chunk) error {
	if err := RemoveChunks(ctx, tx, documentID); err != nil {
		return err
	}
	if len(chunks) == 0 {
		return nil
	}
	rows := make([][]any, len(chunks))
	for i, c := range chunks {
		rows[i] = []any{documentID, agentID, c.Seq, c.Start, c.End, c.Heading, c.Text, c.Tokens}
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"document_chunks"},
		[]string{"document_id", "agent_id", "seq", "start_offset", "end_offset", "heading", "body", "token_count"},
		pgx.CopyFromRows(rows))
	if err != nil {
		return fmt.Errorf("insert chunks: %w", err)
	}
	return nil
}

// RemoveChunks deletes a document's chunks inside tx (it leaves retrieval).
func RemoveChunks(ctx context.Context, tx pgx.Tx, documentID string) error {
	if _, err := tx.Exec(ctx, `DELETE FROM document_chunks WHERE document_id = $1`, documentID); err != nil {
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

// plan is what a query text turns into: the websearch_to_tsquery (AND
// semantics, phrases, negation) and, for the relaxed stages, the distinct
// lexemes of its positive words in query order and those of its excluded
// ("-word") words.
type plan struct {
	and      string // tsquery text; "" when the query has no searchable words
	lexemes  []string
	excluded []string
}

func (ix *Index) plan(ctx context.Context, text string) (plan, error) {
	var p plan
	var positive, negative []string
	for _, w := range strings.Fields(text) {
		if n, ok := strings.CutPrefix(w, "-"); ok {
			negative = append(negative, n)
		} else {
			positive = append(positive, w)
		}
	}
	err := ix.pool.QueryRow(ctx, `
		SELECT CASE WHEN numnode(q) = 0 THEN '' ELSE q::text END,
		       ARRAY(SELECT lexeme FROM unnest(to_tsvector('english', $2)) ORDER BY positions[1], lexeme),
		       ARRAY(SELECT lexeme FROM unnest(to_tsvector('english', $3)) ORDER BY positions[1], lexeme)
		FROM websearch_to_tsquery('english', $1) AS q`, text, strings.Join(positive, " "), strings.Join(negative, " ")).
		Scan(&p.and, &p.lexemes, &p.excluded)
	return p, err
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

// atLeastTwo is the tsquery "any two of the lexemes" (for 3 or more).
func atLeastTwo(lex []string) string {
	lex = lex[:min(len(lex), maxPairTerms)]
	var pairs []string
	for i := range lex {
		for j := i + 1; j < len(lex); j++ {
			pairs = append(pairs, "("+quoteLexeme(lex[i])+" & "+quoteLexeme(lex[j])+")")
		}
	}
	return strings.Join(pairs, " | ")
}

// anyOf is the tsquery "any of the lexemes".
func anyOf(lex []string) string {
	lex = lex[:min(len(lex), maxAnyTerms)]
	q := make([]string, len(lex))
	for i, l := range lex {
		q[i] = quoteLexeme(l)
	}
	return strings.Join(q, " | ")
}

// Search returns the agent's best passages for q.Text, best first.
//
// Stages, the first with any hit wins: (1) websearch_to_tsquery — every
// word must match (AND; quoted phrases and -exclusions as typed); (2) for
// three or more words, at least two of them must match; (3) any word. A
// question such as "What is the grading policy for late work?" rarely has
// all its words in one passage, and plain OR ranks a passage that repeats
// one common word above one that has several of them, so the middle stage
// keeps precision while still finding the passage. Within a stage passages
// are ranked by ts_rank_cd (cover density: query words close together rank
// higher; the section heading weighs more than the body).
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
	p, err := ix.plan(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("parse query: %w", err)
	}
	stages := []string{}
	if p.and != "" {
		stages = append(stages, p.and)
	}
	if len(p.lexemes) >= 3 {
		stages = append(stages, p.relax(atLeastTwo(p.lexemes)))
	}
	if len(p.lexemes) >= 2 || (len(p.lexemes) == 1 && p.and == "") {
		stages = append(stages, p.relax(anyOf(p.lexemes)))
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

// rank runs one stage. The inner query ranks only the matching chunks of
// the agent (GIN on tsv, then the agent filter) and keeps the best; the
// outer one fetches their text and document in the same snapshot.
func (ix *Index) rank(ctx context.Context, agentID, tsq string, docs []string, limit int) ([]Passage, error) {
	// Two texts rather than "$3 IS NULL OR ...": a prepared statement's
	// generic plan would have to serve both cases.
	filter, args := "", []any{agentID, tsq, limit}
	if docs != nil {
		filter, args = "AND c.document_id = ANY($4::uuid[])", append(args, docs)
	}
	rows, err := ix.pool.Query(ctx, `
		WITH best AS (
			SELECT c.id, ts_rank_cd(c.tsv, $2::tsquery) AS score
			FROM document_chunks c
			WHERE c.agent_id = $1 AND c.tsv @@ $2::tsquery `+filter+`
			ORDER BY score DESC, c.id
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
