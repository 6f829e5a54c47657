-- +goose Up
-- The marketplace (issue 27): what an owner publishes, what users find, and
-- what they say about it. One migration for the listing and the reviews so
-- that both parts of the catalog build on the same columns.

-- Listing fields. slug is assigned at the first publish (from the name,
-- unique, stable after renames); published_at is the latest publish, NULL
-- while the agent is not listed (is_public false).
ALTER TABLE agents ADD COLUMN IF NOT EXISTS slug text UNIQUE;
ALTER TABLE agents ADD COLUMN IF NOT EXISTS published_at timestamptz;
ALTER TABLE agents ADD COLUMN IF NOT EXISTS markup_percent integer NOT NULL DEFAULT 20
    CHECK (markup_percent BETWEEN 0 AND 300);
ALTER TABLE agents ADD COLUMN IF NOT EXISTS greeting_cost_cents integer NOT NULL DEFAULT 0
    CHECK (greeting_cost_cents BETWEEN 0 AND 500);
ALTER TABLE agents ADD COLUMN IF NOT EXISTS greeting text NOT NULL DEFAULT ''
    CHECK (char_length(greeting) <= 500);
ALTER TABLE agents ADD COLUMN IF NOT EXISTS memory_tokens integer NOT NULL DEFAULT 4000
    CHECK (memory_tokens BETWEEN 0 AND 32000);
ALTER TABLE agents ADD COLUMN IF NOT EXISTS show_sources boolean NOT NULL DEFAULT true;

-- Ratings, kept in the transaction that writes a review (the lists sort by
-- them): average = rating_sum / rating_count.
ALTER TABLE agents ADD COLUMN IF NOT EXISTS rating_count bigint NOT NULL DEFAULT 0 CHECK (rating_count >= 0);
ALTER TABLE agents ADD COLUMN IF NOT EXISTS rating_sum bigint NOT NULL DEFAULT 0 CHECK (rating_sum >= 0);
-- Reports of the agent (moderation counts them; docs/catalog.md).
ALTER TABLE agents ADD COLUMN IF NOT EXISTS report_count bigint NOT NULL DEFAULT 0 CHECK (report_count >= 0);

-- Who received answers from which agent (RecordInteraction, from the usage
-- events): only a user with at least one answer may review the agent.
CREATE TABLE IF NOT EXISTS agent_users (
    agent_id         uuid        NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    uid              text        NOT NULL,
    answers          bigint      NOT NULL DEFAULT 0,
    first_answer_at  timestamptz NOT NULL,
    last_answer_at   timestamptz NOT NULL,
    PRIMARY KEY (agent_id, uid)
);

-- One review per user and agent; the creator may reply once (and edit or
-- remove the reply).
CREATE TABLE IF NOT EXISTS reviews (
    id            uuid        PRIMARY KEY,
    agent_id      uuid        NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    author_uid    text        NOT NULL,
    rating        smallint    NOT NULL CHECK (rating BETWEEN 1 AND 5),
    text          text        NOT NULL DEFAULT '' CHECK (char_length(text) <= 2000),
    reply         text        CHECK (char_length(reply) <= 2000),
    reply_at      timestamptz,
    reply_updated_at timestamptz,
    report_count  bigint      NOT NULL DEFAULT 0 CHECK (report_count >= 0),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (agent_id, author_uid)
);
CREATE INDEX IF NOT EXISTS reviews_agent_newest_idx ON reviews (agent_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS reviews_agent_rating_idx ON reviews (agent_id, rating DESC, created_at DESC, id DESC);

-- Reports of an agent or a review, for moderation: one per reporter and
-- target (a repeated report updates its reason).
CREATE TABLE IF NOT EXISTS reports (
    id            uuid        PRIMARY KEY,
    target_kind   text        NOT NULL CHECK (target_kind IN ('agent', 'review')),
    target_id     uuid        NOT NULL,
    agent_id      uuid        NOT NULL,
    reporter_uid  text        NOT NULL,
    reason        text        NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 1000),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (target_kind, target_id, reporter_uid)
);
CREATE INDEX IF NOT EXISTS reports_agent_idx ON reports (agent_id, created_at DESC);

-- +goose Down
DROP TABLE IF EXISTS reports;
DROP TABLE IF EXISTS reviews;
DROP TABLE IF EXISTS agent_users;
ALTER TABLE agents DROP COLUMN IF EXISTS report_count;
ALTER TABLE agents DROP COLUMN IF EXISTS rating_sum;
ALTER TABLE agents DROP COLUMN IF EXISTS rating_count;
ALTER TABLE agents DROP COLUMN IF EXISTS show_sources;
ALTER TABLE agents DROP COLUMN IF EXISTS memory_tokens;
ALTER TABLE agents DROP COLUMN IF EXISTS greeting;
ALTER TABLE agents DROP COLUMN IF EXISTS greeting_cost_cents;
ALTER TABLE agents DROP COLUMN IF EXISTS markup_percent;
ALTER TABLE agents DROP COLUMN IF EXISTS published_at;
ALTER TABLE agents DROP COLUMN IF EXISTS slug;
