-- +goose Up
-- Keys of deleted agents (issue 29): the catalog's agent.deleted event
-- deletes an agent's keys outright, and their ids are logged here so that
-- the replicas' revocation watchers (RevokedAPIKeysSince) drop them from
-- their key caches within a second, as for a revoked key. Only the id is
-- kept (no hash, no name); rows older than a day are purged by later
-- deletions.
CREATE TABLE IF NOT EXISTS deleted_api_keys (
    id          uuid        PRIMARY KEY,
    agent_id    uuid        NOT NULL,
    deleted_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS deleted_api_keys_at_idx ON deleted_api_keys (deleted_at);

-- +goose Down
DROP TABLE IF EXISTS deleted_api_keys;
