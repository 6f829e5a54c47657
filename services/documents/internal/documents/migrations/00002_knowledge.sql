-- +goose Up

-- What the last sync found out about each document (the server's check of
-- sharingStatus replaces what the client sent).
ALTER TABLE documents
    ADD COLUMN IF NOT EXISTS sync_state        text        NOT NULL DEFAULT 'queued'
        CHECK (sync_state IN ('queued', 'syncing', 'synced')),
    ADD COLUMN IF NOT EXISTS sync_error        text,
    -- The document's title in Google Docs (may differ from name).
    ADD COLUMN IF NOT EXISTS drive_title       text,
    -- Last time Drive answered and the agent could read the document.
    ADD COLUMN IF NOT EXISTS synced_at         timestamptz,
    -- Drive's modifiedTime and version as of the indexed text: a scheduled
    -- sync exports the text again only when one of them changed.
    ADD COLUMN IF NOT EXISTS modified_time     timestamptz,
    ADD COLUMN IF NOT EXISTS drive_version     bigint,
    -- Tokens of the indexed text (NULL while no text is indexed).
    ADD COLUMN IF NOT EXISTS token_count       integer,
    -- sha256 of the indexed text; NULL when nothing is in retrieval.
    ADD COLUMN IF NOT EXISTS content_hash      text,
    -- Consecutive 403/404 answers: the text leaves retrieval at 2.
    ADD COLUMN IF NOT EXISTS not_shared_checks integer     NOT NULL DEFAULT 0,
    -- When the scheduler queues the next periodic sync.
    ADD COLUMN IF NOT EXISTS next_check_at     timestamptz NOT NULL DEFAULT now();

CREATE INDEX IF NOT EXISTS documents_next_check_idx ON documents (next_check_at);

-- The durable sync queue: at most one job per document (the primary key is
-- the de-duplication). A worker leases a job (locked_until, lease_token) in a
-- short transaction and completes it only while it still holds the lease, so
-- a job whose worker died is taken again once the lease expires.
CREATE TABLE IF NOT EXISTS sync_jobs (
    document_id  uuid        PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
    -- linked, manual, schedule, confirm, retry
    reason       text        NOT NULL,
    run_at       timestamptz NOT NULL DEFAULT now(),
    attempts     integer     NOT NULL DEFAULT 0,
    locked_until timestamptz,
    lease_token  uuid,
    -- A sync was asked for while this job was running: run it again after.
    rerun        boolean     NOT NULL DEFAULT false,
    created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS sync_jobs_run_at_idx ON sync_jobs (run_at);

-- The indexed text: chunks of ~300–500 tokens with rune offsets into the
-- exported text. The section heading weighs more than the body.
CREATE TABLE IF NOT EXISTS document_chunks (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    document_id  uuid        NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    agent_id     uuid        NOT NULL,
    seq          integer     NOT NULL,
    start_offset integer     NOT NULL,
    end_offset   integer     NOT NULL,
    heading      text        NOT NULL DEFAULT '',
    body         text        NOT NULL,
    token_count  integer     NOT NULL,
    tsv          tsvector    GENERATED ALWAYS AS (
        setweight(to_tsvector('english'::regconfig, heading), 'A') ||
        setweight(to_tsvector('english'::regconfig, body), 'D')) STORED,
    UNIQUE (document_id, seq)
);

CREATE INDEX IF NOT EXISTS document_chunks_tsv_idx ON document_chunks USING gin (tsv);
CREATE INDEX IF NOT EXISTS document_chunks_agent_idx ON document_chunks (agent_id);

-- +goose Down
DROP TABLE IF EXISTS document_chunks;
DROP TABLE IF EXISTS sync_jobs;
DROP INDEX IF EXISTS documents_next_check_idx;
ALTER TABLE documents
    DROP COLUMN IF EXISTS sync_state,
    DROP COLUMN IF EXISTS sync_error,
    DROP COLUMN IF EXISTS drive_title,
    DROP COLUMN IF EXISTS synced_at,
    DROP COLUMN IF EXISTS modified_time,
    DROP COLUMN IF EXISTS drive_version,
    DROP COLUMN IF EXISTS token_count,
    DROP COLUMN IF EXISTS content_hash,
    DROP COLUMN IF EXISTS not_shared_checks,
    DROP COLUMN IF EXISTS next_check_at;
