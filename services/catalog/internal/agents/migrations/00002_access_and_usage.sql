-- +goose Up
-- CheckAccess (asked on every chat message) and GET /api/agents/shared look a
-- user's active subscriptions up by uid; only active rows carry a uid.
CREATE INDEX IF NOT EXISTS subscribers_active_uid_idx ON subscribers (uid, agent_id) WHERE status = 'active';

-- Interactions already counted, by the producer's interaction id (the
-- assistant message id). processed_events dedupes re-deliveries of one event
-- (same ce_id); this also absorbs the same interaction published twice under
-- two event ids (e.g. a producer retrying after a crash), so the counters
-- never count one answer twice.
CREATE TABLE IF NOT EXISTS counted_interactions (
    interaction_id  text        PRIMARY KEY,
    agent_id        uuid        NOT NULL,
    counted_at      timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE IF EXISTS counted_interactions;
DROP INDEX IF EXISTS subscribers_active_uid_idx;
