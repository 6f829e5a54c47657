-- +goose Up
-- The owner's monthly cap per subscriber (issue 30 item 6; the cap itself is
-- the catalog's, sent with CheckAccess).
--
-- subscriber_spend is what each subscriber's answers cost the user who paid
-- for them (the agent's owner), per agent and UTC month; written in the same
-- transaction that marks the charge paid (as api_key_spend), so it never
-- counts an answer twice. Kept for every answer someone else paid for, capped
-- or not, so that a cap set mid-month counts the whole month.
CREATE TABLE IF NOT EXISTS subscriber_spend (
    agent_id     uuid   NOT NULL,
    user_uid     text   NOT NULL,
    month        date   NOT NULL,
    spent_micros bigint NOT NULL DEFAULT 0 CHECK (spent_micros >= 0),
    PRIMARY KEY (agent_id, user_uid, month)
);

-- This month's answers paid before this migration.
INSERT INTO subscriber_spend (agent_id, user_uid, month, spent_micros)
SELECT agent_id, user_uid, (date_trunc('month', updated_at AT TIME ZONE 'UTC'))::date, SUM(capture_micros)
FROM charges
WHERE state = 'captured' AND payer_uid <> user_uid AND capture_micros > 0
  AND updated_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
GROUP BY 1, 2, 3
ON CONFLICT (agent_id, user_uid, month) DO NOTHING;

-- A subscriber's open charges (reserving, held, capturing) count against
-- the cap with their reservation until their actual amount is known.
CREATE INDEX IF NOT EXISTS charges_open_subscriber_idx ON charges (agent_id, user_uid)
    WHERE payer_uid <> user_uid AND state IN ('reserving', 'held', 'capturing');

-- subscriber_cap_notices records the first refusal per agent, subscriber and
-- month: its insert (ON CONFLICT DO NOTHING) decides that the owner is told
-- once (SubscriberCapReached, enqueued in the same transaction).
CREATE TABLE IF NOT EXISTS subscriber_cap_notices (
    agent_id     uuid        NOT NULL,
    user_uid     text        NOT NULL,
    month        date        NOT NULL,
    cap_micros   bigint      NOT NULL,
    spent_micros bigint      NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (agent_id, user_uid, month)
);

-- +goose Down
DROP TABLE IF EXISTS subscriber_cap_notices;
DROP INDEX IF EXISTS charges_open_subscriber_idx;
DROP TABLE IF EXISTS subscriber_spend;
