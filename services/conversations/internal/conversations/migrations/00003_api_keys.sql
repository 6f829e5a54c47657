-- +goose Up
-- api_keys are the agent API's keys (docs/agent-api.md). The key itself is
-- never stored: key_hash is its SHA-256 (the key carries ≥ 128 random bits,
-- so a fast hash is as safe as a slow one and keeps the per-request check
-- cheap); prefix is the short visible start shown in lists. A key belongs
-- to one agent and one owner. Revoked keys are kept (revoked_at) because
-- their charges and spend stay part of the record.
CREATE TABLE IF NOT EXISTS api_keys (
    id                   uuid        PRIMARY KEY,
    agent_id             uuid        NOT NULL,
    owner_uid            text        NOT NULL,
    name                 text        NOT NULL CHECK (name <> ''),
    prefix               text        NOT NULL,
    key_hash             bytea       NOT NULL UNIQUE CHECK (length(key_hash) = 32),
    expires_at           timestamptz,
    -- Monthly spend limit of this key (UTC calendar month), micro-dollars; NULL = none.
    monthly_limit_micros bigint      CHECK (monthly_limit_micros > 0),
    created_at           timestamptz NOT NULL,
    last_used_at         timestamptz,
    revoked_at           timestamptz
);
CREATE INDEX IF NOT EXISTS api_keys_agent_idx ON api_keys (agent_id, created_at DESC) WHERE revoked_at IS NULL;

-- api_key_spend is what each key's answers were charged (captured or
-- charged late), per UTC month; written in the same transaction that marks
-- the charge paid, so it never counts an answer twice.
CREATE TABLE IF NOT EXISTS api_key_spend (
    key_id       uuid   NOT NULL REFERENCES api_keys (id),
    month        date   NOT NULL,
    spent_micros bigint NOT NULL DEFAULT 0 CHECK (spent_micros >= 0),
    PRIMARY KEY (key_id, month)
);

-- The key an API answer is charged to. Open charges of a key (reserving,
-- held, capturing) count against its monthly limit with their worst case
-- (or, once known, their actual amount) until they are paid or released.
ALTER TABLE charges ADD COLUMN IF NOT EXISTS api_key_id uuid;
CREATE INDEX IF NOT EXISTS charges_open_key_idx ON charges (api_key_id)
    WHERE api_key_id IS NOT NULL AND state IN ('reserving', 'held', 'capturing');

-- +goose Down
DROP INDEX IF EXISTS charges_open_key_idx;
ALTER TABLE charges DROP COLUMN IF EXISTS api_key_id;
DROP TABLE IF EXISTS api_key_spend;
DROP TABLE IF EXISTS api_keys;
