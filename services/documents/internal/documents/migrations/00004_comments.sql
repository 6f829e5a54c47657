-- +goose Up

-- Google Docs comments that mention an agent (package comments). One watch
-- per document shared with its agent: the comments poll is a lease-based
-- queue like sync_jobs (FOR UPDATE SKIP LOCKED, locked_until, lease_token).
CREATE TABLE IF NOT EXISTS comment_watches (
    document_id  uuid        PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
    -- The newest comment modifiedTime seen once every mention up to it was
    -- settled: the next comments.list's startModifiedTime.
    watermark    timestamptz,
    run_at       timestamptz NOT NULL DEFAULT now(),
    locked_until timestamptz,
    lease_token  uuid,
    polled_at    timestamptz,
    last_error   text
);

CREATE INDEX IF NOT EXISTS comment_watches_run_at_idx ON comment_watches (run_at);

-- One row per comment or reply that mentions the agent, recorded before it is
-- answered: the unique key makes each one answered at most once, also across
-- restarts and replicas. reply_id '' is the comment itself.
--   pending  → answered (the answer text is stored) → replied (posted in Drive)
--   ignored  (the author may not use the agent, or nothing was asked)
--   failed   (the comment disappeared before the reply could be posted)
CREATE TABLE IF NOT EXISTS comment_mentions (
    id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_id        uuid        NOT NULL,
    document_id     uuid        REFERENCES documents (id) ON DELETE SET NULL,
    drive_file_id   text        NOT NULL,
    comment_id      text        NOT NULL,
    reply_id        text        NOT NULL DEFAULT '',
    author_email    text        NOT NULL DEFAULT '',
    author_uid      text,
    question        text        NOT NULL,
    state           text        NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'answered', 'replied', 'ignored', 'failed')),
    -- Why it was ignored, declined or failed (not_allowed, empty, no_access,
    -- insufficient_funds, model_unavailable, rejected, unavailable, comment_gone).
    reason          text,
    answer          text,
    conversation_id text,
    drive_reply_id  text,
    attempts        integer     NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (agent_id, drive_file_id, comment_id, reply_id)
);

CREATE INDEX IF NOT EXISTS comment_mentions_open_idx ON comment_mentions (agent_id, drive_file_id)
    WHERE state IN ('pending', 'answered');

-- +goose Down
DROP TABLE IF EXISTS comment_mentions;
DROP TABLE IF EXISTS comment_watches;
