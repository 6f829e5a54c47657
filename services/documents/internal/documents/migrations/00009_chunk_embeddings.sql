-- +goose Up

-- Semantic retrieval (issue 32 item 4): the embedding of each chunk's text,
-- by the embeddings model that made it, when an embeddings provider is
-- configured (EMBEDDINGS_BASE_URL). Without one this table stays empty and
-- searches are lexical only.
--
-- A chunk is identified by the md5 of its heading path and text (a generated
-- column, so the indexing code does not change): a re-indexed document
-- reuses the embedding of every chunk whose heading path and text did not
-- change, and only the others are sent to the provider.
ALTER TABLE document_chunks ADD COLUMN IF NOT EXISTS text_hash text
    GENERATED ALWAYS AS (md5(heading_path || E'\n' || body)) STORED;

-- Stored as plain arrays (unit length, so the dot product is the cosine),
-- which every PostgreSQL has; searches score an agent's chunks exactly.
-- Where the pgvector extension is available the service also creates it and
-- an HNSW index over these arrays cast to vector (embeddings.SetupVector).
-- Rows go with their document (ON DELETE CASCADE: also an agent's deletion).
CREATE TABLE IF NOT EXISTS chunk_embeddings (
    document_id uuid        NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    model       text        NOT NULL,
    text_hash   text        NOT NULL,
    embedding   real[]      NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (document_id, model, text_hash)
);

-- A search joins an agent's chunks to their embeddings by (document, hash).
CREATE INDEX IF NOT EXISTS document_chunks_doc_hash_idx ON document_chunks (document_id, text_hash);

-- +goose Down
DROP TABLE IF EXISTS chunk_embeddings;
DROP INDEX IF EXISTS document_chunks_doc_hash_idx;
ALTER TABLE document_chunks DROP COLUMN IF EXISTS text_hash;
