-- +goose Up
-- Per-row failure isolation: a row Kafka refuses is retried with back-off
-- (attempts, next_attempt_at, last_error) while the rest flow; a row that keeps
-- failing with a non-transient error is given up (failed_at) after the relay's
-- MaxAttempts. Later rows with the same topic and key wait while an earlier one
-- is in back-off, so per-key order holds.
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS attempts integer NOT NULL DEFAULT 0;
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS next_attempt_at timestamptz;
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS last_error text;
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS failed_at timestamptz;

-- Rows in back-off, looked up by key to hold back their successors.
CREATE INDEX IF NOT EXISTS outbox_backoff_idx ON outbox (topic, key, id)
    WHERE published_at IS NULL AND failed_at IS NULL AND next_attempt_at IS NOT NULL;
-- Retention: the purger deletes the oldest published rows in batches.
CREATE INDEX IF NOT EXISTS outbox_published_at_idx ON outbox (published_at) WHERE published_at IS NOT NULL;

-- +goose Down
DROP INDEX IF EXISTS outbox_published_at_idx;
DROP INDEX IF EXISTS outbox_backoff_idx;
ALTER TABLE outbox DROP COLUMN IF EXISTS failed_at;
ALTER TABLE outbox DROP COLUMN IF EXISTS last_error;
ALTER TABLE outbox DROP COLUMN IF EXISTS next_attempt_at;
ALTER TABLE outbox DROP COLUMN IF EXISTS attempts;
