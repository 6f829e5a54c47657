// Package wordnet holds the word relations the knowledge search expands
// queries with (relations.tsv.gz, generated from WordNet 3.0 by ./gen) and
// loads them into the term_relations table.
package wordnet

//go:generate go run ./gen -o relations.tsv.gz -frequencies frequencies.tsv.gz

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed relations.tsv.gz
var relations []byte

//go:embed frequencies.tsv.gz
var frequencies []byte

// Version identifies the embedded relations and frequencies (a prefix of
// their sha256).
func Version() string {
	h := sha256.New()
	h.Write(relations)
	h.Write(frequencies)
	return hex.EncodeToString(h.Sum(nil)[:6])
}

// Relations are the kinds of relation, best first: a pair related in
// several ways keeps the first (gen writes the same order).
var Relations = []string{"synonym", "attribute", "derivation", "similar", "hypernym", "hyponym"}

// loadLock is the advisory lock that lets one replica load at a time.
const loadLock = 0x77_6f_72_64_6e_65_74 // "wordnet"

// Load fills term_relations from the embedded relations unless this version
// is already there: the words are stemmed by PostgreSQL's english
// configuration (as the chunks' text is; a phrasal lemma word by word, by
// phrase_lexeme), pairs that stem to one lexeme are
// dropped, and a pair related in several ways keeps its best relation. It
// reports whether it loaded (false: already current). term_frequencies
// is filled with them: each lexeme's count, summed over the words that stem
// to it.
func Load(ctx context.Context, pool *pgxpool.Pool) (bool, error) {
	version := Version()
	loaded := false
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(loadLock)); err != nil {
			return err
		}
		var current bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM term_relations_source WHERE version = $1)`, version).Scan(&current); err != nil {
			return err
		}
		if current {
			return nil
		}
		rows, err := parse(relations, 3)
		if err != nil {
			return err
		}
		counts, err := parse(frequencies, 2)
		if err != nil {
			return err
		}
		for _, c := range counts {
			if c[1], err = strconv.Atoi(c[1].(string)); err != nil {
				return fmt.Errorf("wordnet: frequency of %q: %w", c[0], err)
			}
		}
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE wordnet_raw (word text, related text, relation text) ON COMMIT DROP`); err != nil {
			return err
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"wordnet_raw"}, []string{"word", "related", "relation"}, pgx.CopyFromRows(rows)); err != nil {
			return fmt.Errorf("copy relations: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE wordnet_counts (word text, count integer) ON COMMIT DROP`); err != nil {
			return err
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"wordnet_counts"}, []string{"word", "count"}, pgx.CopyFromRows(counts)); err != nil {
			return fmt.Errorf("copy frequencies: %w", err)
		}
		_, err = tx.Exec(ctx, `
			TRUNCATE term_relations, term_frequencies;
			CREATE TEMP TABLE wordnet_stems ON COMMIT DROP AS
				SELECT w.word, CASE WHEN strpos(w.word, ' ') > 0 THEN phrase_lexeme(w.word)
				                    ELSE (SELECT lexeme FROM unnest(to_tsvector('english', w.word)) LIMIT 1) END AS lexeme
				FROM (SELECT word FROM wordnet_raw UNION SELECT related FROM wordnet_raw UNION SELECT word FROM wordnet_counts) AS w;
			CREATE INDEX ON wordnet_stems (word);
			ANALYZE wordnet_stems;
			DELETE FROM term_relations_source;`)
		if err != nil {
			return fmt.Errorf("stem words: %w", err)
		}
		_, err = tx.Exec(ctx, `
			INSERT INTO term_relations (lexeme, related, relation)
			SELECT DISTINCT ON (a.lexeme, b.lexeme) a.lexeme, b.lexeme, r.relation
			FROM wordnet_raw r
			JOIN wordnet_stems a ON a.word = r.word
			JOIN wordnet_stems b ON b.word = r.related
			WHERE a.lexeme IS NOT NULL AND b.lexeme IS NOT NULL AND a.lexeme <> b.lexeme
			ORDER BY a.lexeme, b.lexeme, array_position($1::text[], r.relation)`, Relations)
		if err == nil {
			_, err = tx.Exec(ctx, `
				INSERT INTO term_frequencies (lexeme, count)
				SELECT s.lexeme, sum(c.count) FROM wordnet_counts c JOIN wordnet_stems s ON s.word = c.word
				WHERE s.lexeme IS NOT NULL GROUP BY s.lexeme`)
		}
		if err == nil {
			_, err = tx.Exec(ctx, `ANALYZE term_relations; ANALYZE term_frequencies`)
		}
		if err != nil {
			return fmt.Errorf("stem relations: %w", err)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM term_relations`).Scan(&n); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO term_relations_source (version, relations) VALUES ($1, $2)`, version, n); err != nil {
			return err
		}
		loaded = true
		return nil
	})
	return loaded, err
}

// parse reads gzipped lines of tab-separated fields
// ("word<TAB>related<TAB>relation", "word<TAB>count").
func parse(gz []byte, fields int) ([][]any, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	var rows [][]any
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != fields {
			return nil, fmt.Errorf("wordnet: bad line %q", sc.Text())
		}
		row := make([]any, fields)
		for i := range f {
			row[i] = f[i]
		}
		rows = append(rows, row)
	}
	return rows, sc.Err()
}
