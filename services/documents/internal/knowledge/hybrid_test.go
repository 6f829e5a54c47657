package knowledge_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentic-app/agentic/services/documents/internal/documents"
	"github.com/agentic-app/agentic/services/documents/internal/embeddings"
	"github.com/agentic-app/agentic/services/documents/internal/embeddings/embeddingstest"
	"github.com/agentic-app/agentic/services/documents/internal/knowledge"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
)

// fakeEmbedder answers queries with the simulator's vectors, or with a
// fixed vector for some texts, or fails.
type fakeEmbedder struct {
	model string
	fixed map[string][]float32
	err   error
	calls int
}

func (f *fakeEmbedder) Model() string { return f.model }

func (f *fakeEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	f.calls++
	if f.err != nil {
		return nil, f.err
	}
	if v, ok := f.fixed[text]; ok {
		return v, nil
	}
	return embeddingstest.Embed(text), nil
}

// embedAll stores the simulator's embedding of every chunk of the document
// that has none (what a sync does).
func embedAll(t *testing.T, pool *pgxpool.Pool, docID, model string) {
	t.Helper()
	ctx := context.Background()
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		todo, err := embeddings.Missing(ctx, tx, docID, model)
		if err != nil {
			return err
		}
		hashes, vecs := make([]string, len(todo)), make([][]float32, len(todo))
		for i, p := range todo {
			hashes[i], vecs[i] = p.Hash, embeddingstest.Embed(embeddings.Input(p.HeadingPath, p.Body))
		}
		return embeddings.Save(ctx, tx, docID, model, hashes, vecs)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestFuseIsReciprocalRankFusion(t *testing.T) {
	ps := func(ids ...string) []knowledge.Passage {
		out := make([]knowledge.Passage, len(ids))
		for i, id := range ids {
			out[i] = knowledge.Passage{ChunkID: id, Relevance: float64(len(id)) / 10}
		}
		return out
	}
	lex, vec := ps("a", "b", "c"), ps("c", "dd", "a")
	vec[1].Relevance = 0.7
	got := knowledge.Fuse(lex, vec, 10)
	want := []string{"a", "c", "b", "dd"} // a = c (1/61+1/63: a ranks better lexically), b = dd (1/62)
	if len(got) != len(want) {
		t.Fatalf("fused %+v", got)
	}
	for i, p := range got {
		if p.ChunkID != want[i] {
			t.Fatalf("order %v, want %v", got, want)
		}
	}
	if math.Abs(got[0].Score-(1.0/61+1.0/63)) > 1e-12 || got[3].Relevance != 0.7 || got[0].Relevance != 0.1 {
		t.Fatalf("scores/relevance %+v", got)
	}
	if n := len(knowledge.Fuse(lex, vec, 2)); n != 2 {
		t.Fatalf("limit: %d", n)
	}
	if n := len(knowledge.Fuse(nil, nil, 5)); n != 0 {
		t.Fatalf("empty: %d", n)
	}
}

func TestHybridSearch(t *testing.T) {
	pool := newPool(t)
	ctx := context.Background()
	const model = embeddingstest.Model
	syl := addDoc(t, pool, agent, "Syllabus", []string{"course"}, syllabus, small)
	fq := addDoc(t, pool, agent, "FAQ", nil, faq, small)
	otherDoc := addDoc(t, pool, other, "Other syllabus", nil, syllabus, small)
	for _, id := range []string{syl, fq, otherDoc} {
		embedAll(t, pool, id, model)
	}
	// The Office Hours chunk's stored vector, to ask for it by meaning alone.
	var office []float32
	if err := pool.QueryRow(ctx, `SELECT e.embedding FROM chunk_embeddings e JOIN document_chunks c
		ON c.document_id = e.document_id AND c.text_hash = e.text_hash
		WHERE c.document_id = $1 AND c.heading_path LIKE '%Office Hours%'`, syl).Scan(&office); err != nil {
		t.Fatal(err)
	}

	lexical := knowledge.NewIndex(pool)
	emb := &fakeEmbedder{model: model, fixed: map[string][]float32{"zzqx": office}}
	hybrid := knowledge.NewIndex(pool)
	hybrid.Embedder = emb

	// Only the vectors know "zzqx": the passage they point at comes first,
	// with its cosine similarity (1) as relevance.
	mctx, mode := knowledge.WithModeReport(ctx)
	ps, err := hybrid.Search(mctx, knowledge.Query{AgentID: agent, Text: "zzqx", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 || ps[0].DocumentID != syl || ps[0].HeadingPath == "" || math.Abs(ps[0].Relevance-1) > 1e-4 || !ps[0].Relevant {
		t.Fatalf("vector-only search: %+v", ps)
	}
	if mode.Mode != knowledge.ModeHybrid || mode.Model != model {
		t.Fatalf("mode %+v", mode)
	}
	for _, p := range ps {
		if p.DocumentID == otherDoc {
			t.Fatal("another agent's chunk was returned")
		}
	}
	// Lexical without an embedder: nothing.
	mctx, mode = knowledge.WithModeReport(ctx)
	if ps, err := lexical.Search(mctx, knowledge.Query{AgentID: agent, Text: "zzqx"}); err != nil || len(ps) != 0 || mode.Mode != knowledge.ModeLexical {
		t.Fatalf("lexical: %+v, %v, %+v", ps, err, mode)
	}

	// A query both sides find: the lexical best stays on top, relevance from
	// the lexical side.
	q := knowledge.Query{AgentID: agent, Text: "What is the grading policy?", Limit: 5}
	lex, err := lexical.Search(ctx, q)
	if err != nil || len(lex) == 0 {
		t.Fatal(lex, err)
	}
	hyb, err := hybrid.Search(ctx, q)
	if err != nil || len(hyb) == 0 {
		t.Fatal(hyb, err)
	}
	if hyb[0].ChunkID != lex[0].ChunkID || hyb[0].Relevance != lex[0].Relevance {
		t.Fatalf("hybrid top %+v, lexical top %+v", hyb[0], lex[0])
	}

	// Restricted to a document: the vectors respect it too.
	ps, err = hybrid.Search(ctx, knowledge.Query{AgentID: agent, Text: "zzqx", DocumentIDs: []string{fq}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.DocumentID != fq {
			t.Fatalf("outside the scope: %+v", p)
		}
	}

	// Embeddings of another model are not used.
	emb.model = "another-model"
	if ps, err := hybrid.Search(ctx, knowledge.Query{AgentID: agent, Text: "zzqx"}); err != nil || len(ps) != 0 {
		t.Fatalf("other model: %+v, %v", ps, err)
	}

	// The provider fails: the lexical result, said so.
	emb.model, emb.err = model, errors.New("provider down")
	mctx, mode = knowledge.WithModeReport(ctx)
	fb, err := hybrid.Search(mctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if mode.Mode != knowledge.ModeFallback || len(fb) != len(lex) {
		t.Fatalf("fallback %+v: %d passages, lexical %d", mode, len(fb), len(lex))
	}
	for i := range fb {
		if fb[i].ChunkID != lex[i].ChunkID || fb[i].Relevance != lex[i].Relevance {
			t.Fatalf("fallback order differs at %d: %+v vs %+v", i, fb[i], lex[i])
		}
	}
}

// BenchmarkVectorSearch: the exact (array) path over one agent's n chunks of
// 1536-dimension embeddings (text-embedding-3-small's size).
//
//	go test ./internal/knowledge -run '^$' -bench VectorSearch -benchtime 20x
func BenchmarkVectorSearch(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			pool, _ := dbtest.NewPool(b, "knowledge")
			ctx := context.Background()
			if err := database.Migrate(ctx, pool, documents.Migrations, "migrations"); err != nil {
				b.Fatal(err)
			}
			const dims, model = 1536, "bench-model"
			doc := addNumberedChunks(b, pool, agent, "Bench", n)
			if _, err := pool.Exec(ctx, `INSERT INTO chunk_embeddings (document_id, model, text_hash, embedding)
				SELECT $1, $2, text_hash, (SELECT array_agg(random()::real - 0.5) FROM generate_series(1, $3) WHERE c.seq > 0)
				FROM document_chunks c WHERE document_id = $1`, doc, model, dims); err != nil {
				b.Fatal(err)
			}
			q := make([]float32, dims)
			for i := range q {
				q[i] = float32(i%7) - 3
			}
			ix := knowledge.NewIndex(pool)
			ix.Embedder = &fakeEmbedder{model: model, fixed: map[string][]float32{"q": embeddings.Normalize(f64(q))}}
			b.ResetTimer()
			for range b.N {
				ps, err := ix.Search(ctx, knowledge.Query{AgentID: agent, Text: "q"})
				if err != nil || len(ps) == 0 {
					b.Fatal(ps, err)
				}
			}
		})
	}
}

// addNumberedChunks adds a document of agentID with n chunks "chunk
// number i" written directly (no chunker, no Drive), for tests and benchmarks
// that need many chunks fast; returns its id.
func addNumberedChunks(tb testing.TB, pool *pgxpool.Pool, agentID, name string, n int) string {
	tb.Helper()
	ctx := context.Background()
	doc := uuid.Must(uuid.NewV7()).String()
	fileID := "1" + strings.ReplaceAll(doc, "-", "")
	if _, err := pool.Exec(ctx, `INSERT INTO documents (id, agent_id, owner_uid, name, url, drive_file_id, labels)
		VALUES ($1, $2, 'owner', $3, $4, $5, '{}')`, doc, agentID, name,
		"https://docs.google.com/document/d/"+fileID+"/edit", fileID); err != nil {
		tb.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO document_chunks (document_id, agent_id, seq, start_offset, end_offset, heading_path, body, token_count)
		SELECT $1, $2, i, 0, 10, 'H', 'chunk number ' || i, 10 FROM generate_series(1, $3) AS i`, doc, agentID, n); err != nil {
		tb.Fatal(err)
	}
	return doc
}

func f64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// The pgvector path: the extension, the HNSW index and a search through it.
// Only where the server offers pgvector (managed PostgreSQL does).
func TestHybridSearchPgvector(t *testing.T) {
	pool := newPool(t)
	ctx := context.Background()
	ok, err := embeddings.VectorAvailable(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Skip("pgvector is not available on this PostgreSQL server (pg_available_extensions has no 'vector'): the HNSW path is untested here; the array path is TestHybridSearch")
	}
	const model = embeddingstest.Model
	syl := addDoc(t, pool, agent, "Syllabus", nil, syllabus, small)
	embedAll(t, pool, syl, model)
	if ok, err := embeddings.SetupVector(ctx, pool, model, embeddingstest.Dims); err != nil || !ok {
		t.Fatalf("setup: %v, %v", ok, err)
	}
	ix := knowledge.NewIndex(pool)
	ix.Embedder, ix.VectorDims = &fakeEmbedder{model: model}, embeddingstest.Dims
	ps, err := ix.Search(ctx, knowledge.Query{AgentID: agent, Text: "office hours instructor Tuesdays", Limit: 3})
	if err != nil || len(ps) == 0 || ps[0].DocumentID != syl {
		t.Fatalf("pgvector search: %+v, %v", ps, err)
	}
}

// The HNSW index is one graph over every agent's embeddings: a search that
// took the index's nearest neighbours and then kept the agent's would find
// nothing when other agents' chunks are nearer (pgvector's ef_search is 40
// by default). With pgvector ≥ 0.8 the scan goes on until it has the
// agent's (hnsw.iterative_scan).
func TestHybridSearchPgvectorFindsTheAgentsChunksAmongOthersNearer(t *testing.T) {
	pool := newPool(t)
	ctx := context.Background()
	if ok, err := embeddings.VectorAvailable(ctx, pool); err != nil || !ok {
		t.Skip("pgvector is not available on this PostgreSQL server: the HNSW path is untested here")
	}
	const model = embeddingstest.Model
	syl := addDoc(t, pool, agent, "Syllabus", nil, syllabus, small)
	embedAll(t, pool, syl, model)
	var office []float32
	if err := pool.QueryRow(ctx, `SELECT e.embedding FROM chunk_embeddings e JOIN document_chunks c
		ON c.document_id = e.document_id AND c.text_hash = e.text_hash
		WHERE c.document_id = $1 AND c.heading_path LIKE '%Office Hours%'`, syl).Scan(&office); err != nil {
		t.Fatal(err)
	}
	// The query leans towards the Office Hours chunk; 200 chunks of
	// another agent lie around the query itself, all nearer to it than any
	// of the agent's. (200, more than ef_search, fails without the
	// iterative scan; with 1,000 or more near-identical ones the HNSW graph
	// sometimes leaves the agent's few outlying chunks unreachable, about 1
	// run in 20: the index is approximate.)
	query := make([]float64, len(office))
	for i, x := range embeddingstest.Embed("lorem ipsum dolor sit amet consectetur") {
		query[i] = float64(office[i] + x)
	}
	q := embeddings.Normalize(query)
	doc := addNumberedChunks(t, pool, other, "Crowd", 200)
	if _, err := pool.Exec(ctx, `INSERT INTO chunk_embeddings (document_id, model, text_hash, embedding)
		SELECT $1, $2, text_hash, ARRAY(SELECT x + (random()::real - 0.5) * 0.1 FROM unnest($3::real[]) AS x WHERE c.seq > 0)
		FROM document_chunks c WHERE document_id = $1`, doc, model, q); err != nil {
		t.Fatal(err)
	}
	if ok, err := embeddings.SetupVector(ctx, pool, model, embeddingstest.Dims); err != nil || !ok {
		t.Fatalf("setup: %v, %v", ok, err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE chunk_embeddings; ANALYZE document_chunks`); err != nil {
		t.Fatal(err)
	}
	// The planner scans a small agent's chunks exactly (as here); it takes
	// the index for an agent with many. Made to take it here.
	cfg := pool.Config().Copy()
	cfg.ConnConfig.RuntimeParams["enable_seqscan"] = "off"
	cfg.ConnConfig.RuntimeParams["enable_bitmapscan"] = "off"
	cfg.ConnConfig.RuntimeParams["enable_sort"] = "off"
	indexed, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer indexed.Close()
	ix := knowledge.NewIndex(indexed)
	ix.Embedder = &fakeEmbedder{model: model, fixed: map[string][]float32{"zzqx": q}}
	ix.VectorDims = embeddingstest.Dims
	if ix.VectorIterative, err = embeddings.IterativeScan(ctx, pool); err != nil || !ix.VectorIterative {
		t.Skipf("pgvector older than 0.8 (no iterative index scans): %v", err)
	}
	ps, err := ix.Search(ctx, knowledge.Query{AgentID: agent, Text: "zzqx", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 || ps[0].DocumentID != syl || !strings.Contains(ps[0].HeadingPath, "Office Hours") {
		t.Fatalf("the agent's own nearest chunk was not found through the HNSW index: %+v", ps)
	}
	for _, p := range ps {
		if p.DocumentID == doc {
			t.Fatal("another agent's chunk was returned")
		}
	}
}
