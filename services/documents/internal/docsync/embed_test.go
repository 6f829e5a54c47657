package docsync

import (
	"context"
	"strings"
	"testing"

	"github.com/agentic-app/agentic/services/documents/internal/drivesim"
	"github.com/agentic-app/agentic/services/documents/internal/embeddings"
	"github.com/agentic-app/agentic/services/documents/internal/embeddings/embeddingstest"
	"github.com/agentic-app/agentic/services/documents/internal/knowledge"
)

func (e *env) embeddingRows(t *testing.T, docID string) (rows, chunks int) {
	t.Helper()
	err := e.pool.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM chunk_embeddings WHERE document_id = $1),
		(SELECT count(DISTINCT text_hash) FROM document_chunks WHERE document_id = $1)`, docID).Scan(&rows, &chunks)
	if err != nil {
		t.Fatal(err)
	}
	return rows, chunks
}

func TestSyncEmbedsOnlyChangedChunks(t *testing.T) {
	prov := embeddingstest.New(t, "")
	emb, err := embeddings.New(embeddings.Config{BaseURL: prov.URL, Model: embeddingstest.Model, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Config{Embedder: emb, Chunk: knowledge.ChunkConfig{MinTokens: 20, MaxTokens: 60, OverlapTokens: -1}})
	e.run(t)
	f := e.file(t, drivesim.File{Title: "CS101 Syllabus", Text: syllabusText, SharedWith: []string{emailA}})
	d := e.link(t, "Syllabus", f.ID)
	d = e.waitSynced(t, d.ID, d)
	rows, chunks := e.embeddingRows(t, d.ID)
	if chunks < 2 || rows != chunks || prov.Inputs() != chunks {
		t.Fatalf("first sync: %d embeddings of %d chunks, %d inputs sent", rows, chunks, prov.Inputs())
	}

	// Unchanged: nothing is sent.
	before := prov.Inputs()
	e.syncNow(t, d.ID)
	if prov.Inputs() != before {
		t.Fatalf("unchanged sync sent %d inputs", prov.Inputs()-before)
	}

	// One section edited: only its chunk(s) are sent again; the stale
	// embeddings are gone.
	edited := strings.Replace(syllabusText, "Tuesdays from 2 to 4 pm in room 101", "Wednesdays from 10 to 11 am in the library", 1)
	if edited == syllabusText {
		t.Fatal("the edit did not apply")
	}
	if _, err := e.sim.UpdateText(f.ID, edited); err != nil {
		t.Fatal(err)
	}
	e.syncNow(t, d.ID)
	rows, chunks = e.embeddingRows(t, d.ID)
	sent := prov.Inputs() - before
	if sent < 1 || sent >= chunks || rows != chunks {
		t.Fatalf("after an edit: %d inputs sent for %d chunks, %d embeddings", sent, chunks, rows)
	}

	// The provider fails: the new text is indexed anyway (lexical), and the
	// next sync embeds what is missing.
	prov.Fail(-1, 503, "")
	edited2 := strings.Replace(edited, "Wednesdays from 10 to 11 am", "Fridays from 9 to 10 am", 1)
	if _, err := e.sim.UpdateText(f.ID, edited2); err != nil {
		t.Fatal(err)
	}
	e.syncNow(t, d.ID)
	if ps := e.search(t, "office hours Fridays"); len(ps) == 0 || !strings.Contains(ps[0].Text, "Fridays") {
		t.Fatalf("text not indexed while the provider failed: %+v", ps)
	}
	rows, chunks = e.embeddingRows(t, d.ID)
	if rows != chunks-1 {
		t.Fatalf("while failing: %d embeddings of %d chunks", rows, chunks)
	}
	prov.Fail(0, 0, "")
	before = prov.Inputs()
	e.syncNow(t, d.ID)
	rows, chunks = e.embeddingRows(t, d.ID)
	if rows != chunks || prov.Inputs()-before != 1 {
		t.Fatalf("backfill: %d embeddings of %d chunks, %d inputs", rows, chunks, prov.Inputs()-before)
	}
}
