package knowledge

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/agentic-app/agentic/services/documents/internal/knowledge/wordnet"
)

// Query expansion: how many related words a query word brings at most, and
// how much each kind of relation counts against the word itself (1).
// Measured on bench/retrieval's tuning half (docs/documents.md).
const maxExpansions = 8

var relationFactor = map[string]float64{
	"spelling":   0.8,
	"synonym":    0.6,
	"attribute":  0.5,
	"derivation": 0.5,
	"similar":    0.4,
	"hypernym":   0.4,
	"hyponym":    0.3,
}

// maxRelationsRead bounds the relations a search reads per word (the most
// any lexeme has is a few hundred; the agent's chunks have few of them).
const maxRelationsRead = 400

// relationOrder: a lexeme related to a word in several ways counts by the
// first.
var relationOrder = append([]string{"spelling"}, wordnet.Relations...)

// Misspellings: a word no chunk has brings at most maxSpellings of the
// agent's lexemes that start with the same two letters and are similar to
// it (pg_trgm's similarity threshold, 0.3), if it has at least
// minSpellingRunes runes (shorter words match too much by chance).
const (
	maxSpellings     = 2
	minSpellingRunes = 4
)

// term is a lexeme a search looks for: a query word's own (its rarest
// lexeme that occurs in the agent's chunks: "point-slope" → point-slop,
// point, slope is one word, and pairing a word with its own parts would say
// nothing more) or a word related to it (WordNet, term_relations), with the
// lexeme's document frequency among the agent's chunks (agent_lexemes).
type term struct {
	lexeme   string
	df       int
	word     int     // which searchable word of the query it stands for
	factor   float64 // the word's: 1 or contextFactor, times its specificity; a related word: relationFactor of that
	relation string  // "" for the word itself
	phrase   bool    // related to a phrase the word begins ("chip in"), not to the word alone
}

// plan is what a query text turns into: the websearch_to_tsquery (AND
// semantics, phrases, negation), the terms of its positive words and their
// related words, and the lexemes of its excluded ("-word") words.
type plan struct {
	and      string    // tsquery text; "" when the query has no searchable words
	phrase   bool      // the query has a quoted phrase: passages must match it
	chunks   int       // how many chunks the agent has (for the terms' IDF)
	words    int       // searchable words, those no chunk has included
	factors  []float64 // each searchable word's factor (1 or contextFactor, times its specificity)
	terms    []term    // lexemes some chunk has
	excluded []string
}

// plan reads text (the question) and context (the message it follows up,
// "" for none): the context's words are searched too, at contextFactor.
func (ix *Index) plan(ctx context.Context, agentID, text, context string) (plan, error) {
	var p plan
	var positive, negative []string
	for _, w := range strings.Fields(text) {
		if n, ok := strings.CutPrefix(w, "-"); ok {
			negative = append(negative, n)
		} else {
			positive = append(positive, w)
		}
	}
	own := int32(len(positive)) // query words 1..own are the question's
	phrases, phraseWords := phrasesOf(positive)
	for _, w := range strings.Fields(context) {
		if !strings.HasPrefix(w, "-") {
			positive = append(positive, w)
		}
	}
	factorOf := func(queryWord int32) float64 {
		if queryWord > own {
			return contextFactor
		}
		return 1
	}
	var (
		words, xWords []int32
		lexemes, xLex []string
		dfs, xDFs     []int32
		freqs         []int32
		xRelations    []string
	)
	err := ix.pool.QueryRow(ctx, `
		WITH t AS (
			SELECT w.i::int AS i, v.lexeme, greatest(coalesce(a.chunks, 0), 0) AS df, coalesce(f.count, 0) AS freq
			FROM unnest($2::text[]) WITH ORDINALITY AS w(word, i)
			CROSS JOIN LATERAL unnest(to_tsvector('english', w.word)) AS v
			LEFT JOIN agent_lexemes a ON a.agent_id = $4 AND a.lexeme = v.lexeme
			LEFT JOIN term_frequencies f ON f.lexeme = v.lexeme
		), related AS (
			-- Index probes only: the word's relations, then one primary-key
			-- probe per related word. (LATERAL … LIMIT keeps the planner from
			-- hashing all of term_relations or of a large agent's lexemes,
			-- which it chose with other agents' data about: 100 ms.)
			SELECT t.i, r.related AS lexeme, r.relation, a.chunks AS df
			FROM t
			CROSS JOIN LATERAL (
				SELECT related, relation FROM term_relations WHERE lexeme = t.lexeme ORDER BY related LIMIT $8
			) r
			CROSS JOIN LATERAL (
				SELECT chunks FROM agent_lexemes a WHERE a.agent_id = $4 AND a.lexeme = r.related AND a.chunks > 0 LIMIT 1
			) a
			UNION ALL
			-- A word no chunk has (a typo?): the agent's most similar lexemes.
			SELECT t.i, m.lexeme, 'spelling', m.chunks
			FROM t CROSS JOIN LATERAL (
				SELECT a.lexeme, a.chunks FROM agent_lexemes a
				WHERE a.agent_id = $4 AND left(a.lexeme, 2) = left(t.lexeme, 2) AND a.chunks > 0 AND a.lexeme % t.lexeme
				ORDER BY a.lexeme <-> t.lexeme, a.lexeme
				LIMIT $5
			) m
			WHERE t.df = 0 AND length(t.lexeme) >= $6
			UNION ALL
			-- A phrase of the question's consecutive words that WordNet has
			-- ("chip in" → contribute): its related words stand for its first.
			SELECT ph.i, r.related, 'phrase ' || r.relation, a.chunks
			FROM unnest($9::text[], $10::int[]) AS ph(phrase, i)
			CROSS JOIN LATERAL (
				SELECT related, relation FROM term_relations WHERE lexeme = phrase_lexeme(ph.phrase) ORDER BY related LIMIT $8
			) r
			CROSS JOIN LATERAL (
				SELECT chunks FROM agent_lexemes a WHERE a.agent_id = $4 AND a.lexeme = r.related AND a.chunks > 0 LIMIT 1
			) a
		), x AS (
			SELECT DISTINCT ON (i, lexeme) i, lexeme, relation, df FROM related
			ORDER BY i, lexeme, starts_with(relation, 'phrase ') DESC, array_position($7::text[], relation)
		)
		SELECT CASE WHEN numnode(q) = 0 THEN '' ELSE q::text END,
		       coalesce((SELECT chunks FROM agent_lexemes WHERE agent_id = $4 AND lexeme = ''), 0),
		       ARRAY(SELECT i FROM t ORDER BY i, lexeme),
		       ARRAY(SELECT lexeme FROM t ORDER BY i, lexeme),
		       ARRAY(SELECT df FROM t ORDER BY i, lexeme),
		       ARRAY(SELECT freq FROM t ORDER BY i, lexeme),
		       ARRAY(SELECT i FROM x ORDER BY i, lexeme),
		       ARRAY(SELECT lexeme FROM x ORDER BY i, lexeme),
		       ARRAY(SELECT relation FROM x ORDER BY i, lexeme),
		       ARRAY(SELECT df FROM x ORDER BY i, lexeme),
		       ARRAY(SELECT lexeme FROM unnest(to_tsvector('english', $3)))
		FROM websearch_to_tsquery('english', $1) AS q`,
		text, positive, strings.Join(negative, " "), agentID, maxSpellings, minSpellingRunes, relationOrder,
		maxRelationsRead, phrases, phraseWords).Scan(&p.and, &p.chunks, &words, &lexemes, &dfs, &freqs,
		&xWords, &xLex, &xRelations, &xDFs, &p.excluded)
	if err != nil {
		return p, err
	}
	// A hyphenated word ("CW-400") is a phrase of its parts in the tsquery:
	// only a quoted phrase asks for an exact match.
	p.phrase = strings.Contains(text, `"`) && strings.Contains(p.and, "<->")
	// One term per word: its rarest lexeme that some chunk has; the same
	// lexeme twice counts once.
	seen := map[string]bool{}
	word := map[int32]int{} // query word → searchable word index
	wordFactor := []float64{}
	for i := 0; i < len(words); {
		j, best := i, -1
		for ; j < len(words) && words[j] == words[i]; j++ {
			if dfs[j] > 0 && (best < 0 || dfs[j] < dfs[best]) {
				best = j
			}
		}
		if best < 0 || !seen[lexemes[best]] {
			word[words[i]] = p.words
			freq := freqs[i]
			if best >= 0 {
				freq = freqs[best]
			}
			factor := factorOf(words[i]) * specificity(int(freq)) // term_frequencies
			wordFactor = append(wordFactor, factor)
			if best >= 0 {
				seen[lexemes[best]] = true
				p.terms = append(p.terms, term{lexeme: lexemes[best], df: int(dfs[best]), word: p.words, factor: factor})
			}
			p.words++
		}
		i = j
	}
	// Related words: the best relations first, at most maxExpansions per
	// word, none that is a word of the query itself or another word's.
	var related []term
	for k := range xLex {
		w, ok := word[xWords[k]]
		if !ok || seen[xLex[k]] {
			continue
		}
		relation, phrase := strings.CutPrefix(xRelations[k], "phrase ")
		related = append(related, term{lexeme: xLex[k], df: int(xDFs[k]), word: w,
			factor: relationFactor[relation] * wordFactor[w], relation: relation, phrase: phrase})
	}
	// A phrase's related words come before its first word's own: "chip in"
	// means contribute whatever "chip" alone may.
	slices.SortStableFunc(related, func(a, b term) int {
		if a.word != b.word {
			return a.word - b.word
		}
		if a.phrase != b.phrase {
			if a.phrase {
				return -1
			}
			return 1
		}
		if a.factor != b.factor {
			return -cmpFloat(a.factor, b.factor)
		}
		return a.df - b.df
	})
	p.factors = wordFactor
	perWord := map[int]int{}
	for _, t := range related {
		if perWord[t.word] >= maxExpansions || seen[t.lexeme] {
			continue
		}
		perWord[t.word]++
		seen[t.lexeme] = true
		p.terms = append(p.terms, t)
	}
	return p, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// weighted is a term with its weight: BM25's IDF (from the agent's chunk
// count and the term's document frequency) times its factor.
type weighted struct {
	lexeme string
	weight float64
	word   int
}

// idf is BM25's inverse document frequency of a lexeme df of the agent's
// chunks have.
func (p plan) idf(df int) float64 {
	n := float64(max(p.chunks, 1))
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// weights gives each term its weight, and returns what a chunk that has
// every searchable word itself (in its heading path, at an average length)
// would score: the measure of Passage.Relevance. A word no chunk has counts
// there at the highest IDF, even when related words stand in for it (they
// earn part of its weight): a question about something the documents never
// mention is not relevant to them.
func (p plan) weights() ([]weighted, float64) {
	out := make([]weighted, len(p.terms))
	own := make([]float64, p.words)
	for i := range own {
		own[i] = p.idf(0) * p.factors[i]
	}
	for i, t := range p.terms {
		w := p.idf(t.df) * t.factor
		out[i] = weighted{lexeme: t.lexeme, weight: w, word: t.word}
		if t.relation == "" {
			own[t.word] = w
		}
	}
	best := 0.0
	for _, w := range own {
		best += w * (bm25K1 + 1) * headingWeight / (headingWeight + bm25K1)
	}
	return out, best
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

// useful returns the terms rarest first: rare words say most about what is
// asked.
func (p plan) useful() []term {
	out := slices.Clone(p.terms)
	slices.SortStableFunc(out, func(a, b term) int { return a.df - b.df })
	return out
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

// maxPhraseWords is the longest phrase of a question's words looked up in
// term_relations (WordNet's phrasal lemmas have two or three words).
const maxPhraseWords = 3

// phrasesOf returns the phrases of two and three consecutive words of the
// question's words (letters only, lower case: "chip in", "write up" of
// "write-up"), each with the 1-based index of the word it begins in.
func phrasesOf(words []string) ([]string, []int32) {
	type token struct {
		text string
		word int32
	}
	var tokens []token
	for i, w := range words {
		for _, part := range strings.FieldsFunc(strings.ToLower(w), func(r rune) bool { return r < 'a' || r > 'z' }) {
			tokens = append(tokens, token{part, int32(i + 1)})
		}
	}
	var phrases []string
	var starts []int32
	for i := range tokens {
		text := tokens[i].text
		for n := 2; n <= maxPhraseWords && i+n <= len(tokens); n++ {
			text += " " + tokens[i+n-1].text
			phrases = append(phrases, text)
			starts = append(starts, tokens[i].word)
		}
	}
	return phrases, starts
}

// Common words: a query word's weight (and its related words') is its IDF
// among the agent's chunks times its specificity in English, 1 −
// commonWordSlope·log10(1 + its count in WordNet's sense-tagged corpus)
// but at least commonWordFloor: "come" (814) 0.5, "tell" (560) 0.5,
// "boss" (13) 0.77, "unwell" (0) 1. An agent's few documents cannot tell a
// vague word from a telling one (in 96 chunks "tell" is as rare as
// "unwell"); English can. Measured on bench/retrieval's tuning half.
const (
	commonWordSlope = 0.2
	commonWordFloor = 0.5
)

// specificity is how much a word counts for how common it is in English.
func specificity(count int) float64 {
	return max(commonWordFloor, 1-commonWordSlope*math.Log10(1+float64(count)))
}
