-- +goose Up
-- The owner's default monthly cap per subscriber, in cents (issue 30 item 6):
-- what the owner pays at most each calendar month (UTC) for one subscriber's
-- answers. NULL = no cap.
ALTER TABLE agents ADD COLUMN IF NOT EXISTS subscriber_monthly_cap_cents bigint
    CHECK (subscriber_monthly_cap_cents BETWEEN 1 AND 10000000);

-- A subscriber's own cap: 'default' (the agent's), 'none', or 'custom' with
-- its amount in monthly_cap_cents (set for 'custom' only).
ALTER TABLE subscribers ADD COLUMN IF NOT EXISTS cap_mode text NOT NULL DEFAULT 'default'
    CHECK (cap_mode IN ('default', 'none', 'custom'));
ALTER TABLE subscribers ADD COLUMN IF NOT EXISTS monthly_cap_cents bigint
    CHECK (monthly_cap_cents BETWEEN 1 AND 10000000);
ALTER TABLE subscribers ADD CONSTRAINT subscribers_custom_cap_check
    CHECK ((cap_mode = 'custom') = (monthly_cap_cents IS NOT NULL));

-- Changes that may end or alter a user's access to an agent (issue 30 item
-- 5), written in the transaction that makes them: a subscriber removed or
-- their cap changed (uid set), the agent edited, deactivated or its default
-- cap changed (uid NULL = every user of the agent). The conversations
-- service polls them (AccessChangesSince) to drop its cached CheckAccess
-- answers within a second on every replica. at is clock_timestamp(), taken
-- as the transaction's last statement, so it is close to the commit; rows
-- older than an hour are purged by later writes.
CREATE TABLE IF NOT EXISTS access_changes (
    id        bigserial   PRIMARY KEY,
    agent_id  uuid        NOT NULL,
    uid       text,
    at        timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX IF NOT EXISTS access_changes_at_idx ON access_changes (at);

-- +goose Down
DROP TABLE IF EXISTS access_changes;
ALTER TABLE subscribers DROP CONSTRAINT IF EXISTS subscribers_custom_cap_check;
ALTER TABLE subscribers DROP COLUMN IF EXISTS monthly_cap_cents;
ALTER TABLE subscribers DROP COLUMN IF EXISTS cap_mode;
ALTER TABLE agents DROP COLUMN IF EXISTS subscriber_monthly_cap_cents;
