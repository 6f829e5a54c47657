-- +goose Up
-- Replay: an operator (eventsadmin parked replay) sets replay_requested_at and
-- the group's consumer applies the parked event again. reason says why it was
-- parked: "permanent" (the handler said so) or "attempts_exhausted".
ALTER TABLE parked_events ADD COLUMN IF NOT EXISTS replay_requested_at timestamptz;
ALTER TABLE parked_events ADD COLUMN IF NOT EXISTS reason text NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS parked_events_replay_idx
    ON parked_events (consumer_group, replay_requested_at) WHERE replay_requested_at IS NOT NULL;

-- Retention: the purger deletes the oldest processed ids in batches.
CREATE INDEX IF NOT EXISTS processed_events_processed_at_idx ON processed_events (processed_at);

-- +goose Down
DROP INDEX IF EXISTS processed_events_processed_at_idx;
DROP INDEX IF EXISTS parked_events_replay_idx;
ALTER TABLE parked_events DROP COLUMN IF EXISTS reason;
ALTER TABLE parked_events DROP COLUMN IF EXISTS replay_requested_at;
