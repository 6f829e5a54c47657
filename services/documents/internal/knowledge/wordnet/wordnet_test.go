package wordnet_test

import (
	"context"
	"testing"

	"github.com/agentic-app/agentic/services/documents/internal/documents"
	"github.com/agentic-app/agentic/services/documents/internal/knowledge/wordnet"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
)

func TestLoadStemsTheRelationsOncePerVersion(t *testing.T) {
	pool, _ := dbtest.NewPool(t, "wordnet")
	ctx := context.Background()
	if err := database.Migrate(ctx, pool, documents.Migrations, "migrations"); err != nil {
		t.Fatal(err)
	}
	loaded, err := wordnet.Load(ctx, pool)
	if err != nil || !loaded {
		t.Fatalf("first load: %v %v", loaded, err)
	}
	// Stemmed like the chunks' text: "textbooks" and "textbook" are one lexeme.
	var relation string
	if err := pool.QueryRow(ctx, `SELECT relation FROM term_relations WHERE lexeme = 'book' AND related = 'textbook'`).Scan(&relation); err != nil || relation != "hyponym" {
		t.Fatalf("book → textbook: %q %v", relation, err)
	}
	if err := pool.QueryRow(ctx, `SELECT relation FROM term_relations WHERE lexeme = 'heavi' AND related = 'weight'`).Scan(&relation); err != nil || relation != "attribute" {
		t.Fatalf("heavy → weight: %q %v", relation, err)
	}
	// A phrasal lemma, its words stemmed by phrase_lexeme, and a phrasal
	// verb's irregular form (verb.exc: "took" of "take").
	for _, pair := range [][3]string{{"chip in", "contribut", "synonym"}, {"took out", "remov", "synonym"}} {
		if err := pool.QueryRow(ctx, `SELECT relation FROM term_relations WHERE lexeme = phrase_lexeme($1) AND related = $2`,
			pair[0], pair[1]).Scan(&relation); err != nil || relation != pair[2] {
			t.Fatalf("%s → %s: %q %v", pair[0], pair[1], relation, err)
		}
	}
	// Frequencies, summed per lexeme: "feel" and "feeling" are one.
	var come, feel, boss int
	if err := pool.QueryRow(ctx, `SELECT
			(SELECT count FROM term_frequencies WHERE lexeme = 'come'),
			(SELECT count FROM term_frequencies WHERE lexeme = 'feel'),
			(SELECT count FROM term_frequencies WHERE lexeme = 'boss')`).Scan(&come, &feel, &boss); err != nil {
		t.Fatal(err)
	}
	if come < 500 || boss < 1 || boss > 100 || feel < 600 {
		t.Fatalf("frequencies: come %d, feel %d, boss %d", come, feel, boss)
	}
	var self, n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE lexeme = related), count(*) FROM term_relations`).Scan(&self, &n); err != nil || self != 0 || n < 100_000 {
		t.Fatalf("%d relations, %d of a lexeme to itself (%v)", n, self, err)
	}
	// The same version again: nothing to do.
	if loaded, err := wordnet.Load(ctx, pool); err != nil || loaded {
		t.Fatalf("second load: %v %v", loaded, err)
	}
	var version string
	if err := pool.QueryRow(ctx, `SELECT version FROM term_relations_source`).Scan(&version); err != nil || version != wordnet.Version() {
		t.Fatalf("source version %q %v", version, err)
	}
	// Another version (an upgrade) replaces them.
	if _, err := pool.Exec(ctx, `UPDATE term_relations_source SET version = 'older'`); err != nil {
		t.Fatal(err)
	}
	if loaded, err := wordnet.Load(ctx, pool); err != nil || !loaded {
		t.Fatalf("load over an older version: %v %v", loaded, err)
	}
	var again int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM term_relations`).Scan(&again); err != nil || again != n {
		t.Fatalf("after the reload %d relations, want %d (%v)", again, n, err)
	}
}
