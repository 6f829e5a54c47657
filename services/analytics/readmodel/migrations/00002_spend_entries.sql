-- +goose Up
-- What each user spent, by agent (the basis of GET /api/usage, see
-- docs/analytics.md): one row per paid answer (usage interaction.recorded, paid
-- by payer_uid, else the agent's owner) and one per monthly agent fee (wallet
-- charge.debited whose metadata kind is agent_fee).
--
-- entry_id is 'answer:<interaction id>' / 'fee:<wallet transfer id>' (falling
-- back to 'event:<ce_id>'), so a usage event published twice under two event ids
-- still counts once. Like every read model, a pure function of the events.
CREATE TABLE spend_entries (
    entry_id        text        PRIMARY KEY,
    -- ce_id of the event that wrote the row (the first one, for a duplicate)
    event_id        text        NOT NULL,
    payer_uid       text        NOT NULL,
    -- 'answer' (counted as an interaction) or 'agent_fee'
    kind            text        NOT NULL,
    agent_id        text        NOT NULL DEFAULT '',
    -- the agent's name as the event carried it (fallback when agents has no name)
    agent_name_hint text        NOT NULL DEFAULT '',
    amount_micros   bigint      NOT NULL,
    occurred_at     timestamptz NOT NULL
);
CREATE INDEX spend_entries_payer_idx ON spend_entries (payer_uid, occurred_at);

-- +goose Down
DROP TABLE spend_entries;
