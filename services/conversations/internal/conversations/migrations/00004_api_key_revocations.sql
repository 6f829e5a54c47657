-- +goose Up
-- revocation_logged_at is when a revocation was written, by the database's
-- clock (revoked_at is the service's). Each replica polls for keys revoked
-- since its last poll (minus a margin) and drops them from its key cache,
-- which lets it trust a cached key for minutes instead of one second while
-- a revocation still reaches every replica within a second
-- (docs/agent-api.md).
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS revocation_logged_at timestamptz;
UPDATE api_keys SET revocation_logged_at = revoked_at WHERE revoked_at IS NOT NULL AND revocation_logged_at IS NULL;
CREATE INDEX IF NOT EXISTS api_keys_revocation_logged_idx ON api_keys (revocation_logged_at)
    WHERE revocation_logged_at IS NOT NULL;

-- +goose Down
DROP INDEX IF EXISTS api_keys_revocation_logged_idx;
ALTER TABLE api_keys DROP COLUMN IF EXISTS revocation_logged_at;
