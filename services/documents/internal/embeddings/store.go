package embeddings

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Querier is a pool or a transaction.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// Stored returns which of hashes have an embedding of model for the
// document.
func Stored(ctx context.Context, q Querier, documentID, model string, hashes []string) (map[string]bool, error) {
	rows, err := q.Query(ctx, `SELECT text_hash FROM chunk_embeddings
		WHERE document_id = $1 AND model = $2 AND text_hash = ANY($3::text[])`, documentID, model, hashes)
	if err != nil {
		return nil, fmt.Errorf("stored embeddings: %w", err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("stored embeddings: %w", err)
	}
	out := make(map[string]bool, len(got))
	for _, h := range got {
		out[h] = true
	}
	return out, nil
}

// Pending is a chunk text without an embedding.
type Pending struct {
	Hash, HeadingPath, Body string
}

// Missing returns the document's indexed chunk texts (one per distinct
// hash) that have no embedding of model: what a document indexed before a
// provider was configured, or while it failed, still needs.
func Missing(ctx context.Context, q Querier, documentID, model string) ([]Pending, error) {
	rows, err := q.Query(ctx, `
		SELECT DISTINCT ON (c.text_hash) c.text_hash, c.heading_path, c.body FROM document_chunks c
		WHERE c.document_id = $1 AND NOT EXISTS (
			SELECT 1 FROM chunk_embeddings e WHERE e.document_id = c.document_id AND e.model = $2 AND e.text_hash = c.text_hash)
		ORDER BY c.text_hash`, documentID, model)
	if err != nil {
		return nil, fmt.Errorf("missing embeddings: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Pending, error) {
		var p Pending
		err := r.Scan(&p.Hash, &p.HeadingPath, &p.Body)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("missing embeddings: %w", err)
	}
	return out, nil
}

// Save stores the embeddings (hashes[i] ↔ vecs[i]) of model for the
// document, those of the hashes its chunks have (the text may have changed
// again meanwhile), keeping existing rows; then it deletes the document's
// embeddings that no chunk uses any more or that another model made. Run
// inside the transaction that indexed the chunks, after them.
func Save(ctx context.Context, q Querier, documentID, model string, hashes []string, vecs [][]float32) error {
	if len(hashes) != len(vecs) {
		return fmt.Errorf("save embeddings: %d hashes, %d vectors", len(hashes), len(vecs))
	}
	if len(hashes) > 0 {
		b := &pgx.Batch{}
		for i, h := range hashes {
			b.Queue(`INSERT INTO chunk_embeddings (document_id, model, text_hash, embedding)
				SELECT $1, $2, $3, $4::real[]
				WHERE EXISTS (SELECT 1 FROM document_chunks c WHERE c.document_id = $1 AND c.text_hash = $3)
				ON CONFLICT DO NOTHING`, documentID, model, h, vecs[i])
		}
		if err := q.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("save embeddings: %w", err)
		}
	}
	return Prune(ctx, q, documentID, model)
}

// Prune deletes the document's embeddings that no chunk of it uses any more
// or that another model made.
func Prune(ctx context.Context, q Querier, documentID, model string) error {
	_, err := q.Exec(ctx, `DELETE FROM chunk_embeddings e WHERE e.document_id = $1 AND (e.model <> $2 OR NOT EXISTS (
		SELECT 1 FROM document_chunks c WHERE c.document_id = $1 AND c.text_hash = e.text_hash))`, documentID, model)
	if err != nil {
		return fmt.Errorf("prune embeddings: %w", err)
	}
	return nil
}

// VectorAvailable reports whether the server offers the pgvector extension
// (managed PostgreSQL offerings ship it; it may still need creating).
func VectorAvailable(ctx context.Context, pool *pgxpool.Pool) (bool, error) {
	var ok bool
	err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')`).Scan(&ok)
	return ok, err
}

// SetupVector creates the pgvector extension and an HNSW index (cosine) over
// model's embeddings of dims dimensions, cast to vector(dims) — an
// expression index on the same real[] column, so nothing is stored twice and
// the array path keeps working. Returns false (and does nothing) when the
// server does not offer pgvector. Creating an extension may need a role
// allowed to (pgvector is trusted from PostgreSQL 13 on managed offerings).
func SetupVector(ctx context.Context, pool *pgxpool.Pool, model string, dims int) (bool, error) {
	ok, err := VectorAvailable(ctx, pool)
	if err != nil || !ok {
		return false, err
	}
	if dims <= 0 || dims > 16000 {
		return false, fmt.Errorf("embeddings: %d dimensions", dims)
	}
	if _, err := pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector`); err != nil {
		return false, fmt.Errorf("create extension vector: %w", err)
	}
	// One index per model and dimension (HNSW needs a fixed dimension; the
	// partial predicate keeps other models' rows out). Up to 2000 dimensions
	// (pgvector's HNSW limit for vector).
	if dims > 2000 {
		return false, nil
	}
	_, err = pool.Exec(ctx, fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON chunk_embeddings
		USING hnsw ((embedding::vector(%d)) vector_cosine_ops) WHERE model = %s`,
		pgx.Identifier{VectorIndexName(model, dims)}.Sanitize(), dims, quote(model)))
	if err != nil {
		return false, fmt.Errorf("create hnsw index: %w", err)
	}
	return true, nil
}

// IterativeScan reports whether the installed pgvector (0.8.0 or later) has
// iterative index scans (hnsw.iterative_scan): a filtered HNSW search that
// goes on until it has enough rows that pass the filter.
func IterativeScan(ctx context.Context, pool *pgxpool.Pool) (bool, error) {
	var version string
	err := pool.QueryRow(ctx, `SELECT coalesce((SELECT extversion FROM pg_extension WHERE extname = 'vector'), '')`).Scan(&version)
	if err != nil {
		return false, err
	}
	return versionAtLeast(version, 0, 8), nil
}

// versionAtLeast reports whether a "major.minor[.patch]" version is at
// least major.minor ("" and unreadable versions are not).
func versionAtLeast(version string, major, minor int) bool {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// VectorIndexName is the HNSW index of model's embeddings.
func VectorIndexName(model string, dims int) string {
	return fmt.Sprintf("chunk_embeddings_hnsw_%s_%d", TextHash("", model)[:12], dims)
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
