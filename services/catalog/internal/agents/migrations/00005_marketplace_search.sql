-- +goose Up
-- The marketplace's read side (issue 27, discovery): what the public lists
-- sort and search by, kept on the agents row so that a page of a list is one
-- index walk (docs/catalog.md, "Marketplace: discovery").

-- array_to_string is only STABLE (it goes through the element type's output
-- function); for text[] it cannot change, so this wrapper is IMMUTABLE and
-- may appear in a generated column.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION agents_tags_text(tags text[]) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT array_to_string(tags, ' ') $$;
-- +goose StatementEnd

-- Full-text search over name (weight A), tags and category (B) and
-- description (C), English stemming.
ALTER TABLE agents ADD COLUMN IF NOT EXISTS search_tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english'::regconfig, name), 'A') ||
    setweight(to_tsvector('english'::regconfig, COALESCE(agents_tags_text(tags), '')), 'B') ||
    setweight(to_tsvector('english'::regconfig, category), 'B') ||
    setweight(to_tsvector('english'::regconfig, description), 'C')) STORED;

-- The average rating (0 while there is none), what the "rating" sort orders
-- by; rating_sum and rating_count are kept by the review transactions.
ALTER TABLE agents ADD COLUMN IF NOT EXISTS rating_average double precision GENERATED ALWAYS AS (
    CASE WHEN rating_count > 0 THEN rating_sum::double precision / rating_count ELSE 0 END) STORED;

-- What a median answer costs a user (model cost + fee + the agent's markup),
-- micro-dollars: the median of the agent's last answers (agent_answer_costs)
-- or, before any, an estimate (typical_answer_estimated). Recomputed by the
-- usage consumer, when the markup changes and when the agent is published.
ALTER TABLE agents ADD COLUMN IF NOT EXISTS typical_answer_micros bigint NOT NULL DEFAULT 0;
ALTER TABLE agents ADD COLUMN IF NOT EXISTS typical_answer_estimated boolean NOT NULL DEFAULT true;
-- The agent's readable documents (shared and synced) as the documents service
-- counted them at the last publish: the profile's fallback when it cannot ask.
ALTER TABLE agents ADD COLUMN IF NOT EXISTS documents_count integer NOT NULL DEFAULT 0;

-- The last answers' costs of each agent (at most AnswerCostSamples rows per
-- agent; older rows are deleted by the insert's transaction).
CREATE TABLE IF NOT EXISTS agent_answer_costs (
    id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_id      uuid        NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    cost_micros   bigint      NOT NULL CHECK (cost_micros >= 0),
    total_micros  bigint      NOT NULL CHECK (total_micros >= 0),
    answered_at   timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_answer_costs_agent_idx ON agent_answer_costs (agent_id, id DESC);

-- Listed agents only (partial indexes: private agents cost nothing here).
-- One btree per sort, matching its ORDER BY and keyset condition exactly.
CREATE INDEX IF NOT EXISTS agents_listed_popular_idx ON agents (total_interactions DESC, id DESC) WHERE is_public;
CREATE INDEX IF NOT EXISTS agents_listed_rating_idx ON agents (rating_average DESC, rating_count DESC, id DESC) WHERE is_public;
CREATE INDEX IF NOT EXISTS agents_listed_newest_idx ON agents (published_at DESC, id DESC) WHERE is_public;
CREATE INDEX IF NOT EXISTS agents_listed_price_idx ON agents (typical_answer_micros, id) WHERE is_public;
-- Category filter and the categories' counts (index-only).
CREATE INDEX IF NOT EXISTS agents_listed_category_idx ON agents (category, total_interactions DESC, id DESC) WHERE is_public;
-- Tag filter (tags @> ARRAY[tag]) and search (search_tsv @@ query).
-- fastupdate off: without it new entries wait in the GIN pending list until
-- a VACUUM, and the planner, costing that unsorted list, stops using the
-- index (a seq scan of every agent for each search, seen with autovacuum
-- off as in CI and the dev stack). Agents are written rarely enough for the
-- direct insertion.
CREATE INDEX IF NOT EXISTS agents_listed_tags_idx ON agents USING gin (tags) WITH (fastupdate = off) WHERE is_public;
CREATE INDEX IF NOT EXISTS agents_listed_search_idx ON agents USING gin (search_tsv) WITH (fastupdate = off) WHERE is_public;

-- +goose Down
DROP INDEX IF EXISTS agents_listed_search_idx;
DROP INDEX IF EXISTS agents_listed_tags_idx;
DROP INDEX IF EXISTS agents_listed_category_idx;
DROP INDEX IF EXISTS agents_listed_price_idx;
DROP INDEX IF EXISTS agents_listed_newest_idx;
DROP INDEX IF EXISTS agents_listed_rating_idx;
DROP INDEX IF EXISTS agents_listed_popular_idx;
DROP TABLE IF EXISTS agent_answer_costs;
ALTER TABLE agents DROP COLUMN IF EXISTS documents_count;
ALTER TABLE agents DROP COLUMN IF EXISTS typical_answer_estimated;
ALTER TABLE agents DROP COLUMN IF EXISTS typical_answer_micros;
ALTER TABLE agents DROP COLUMN IF EXISTS rating_average;
ALTER TABLE agents DROP COLUMN IF EXISTS search_tsv;
DROP FUNCTION IF EXISTS agents_tags_text(text[]);
