-- +goose Up
-- The monthly agent fee (issue 16): $10.00 per agent per 30-day period from
-- the owner's wallet. The first period starts when the agent first answers
-- (charged by that Reserve), later periods renew while the agent is active
-- and was used during the period that ends (charged by the scheduler), and a
-- renewal the wallet cannot pay pauses the agent until a deposit pays it.
--
-- agent_billing mirrors what the wallet needs of the catalog's agents (owner,
-- name, status from agentic.catalog.v1 events and Reserve metadata) and keeps
-- the fee state. Rows are written under the owner's wallet lock by Reserve,
-- deposits and the scheduler (which claims wallet and agent together with
-- FOR UPDATE SKIP LOCKED); the catalog consumer only changes status and name.
CREATE TABLE IF NOT EXISTS agent_billing (
    agent_id      text        PRIMARY KEY,
    uid           text        NOT NULL,              -- the owner, who pays the fee
    agent_name    text        NOT NULL DEFAULT '',
    status        text        NOT NULL DEFAULT 'active', -- the catalog's status ('deleted' when gone)
    paused        boolean     NOT NULL DEFAULT false,
    paused_at     timestamptz,
    -- The current (or last) paid period.
    period_start  timestamptz,
    paid_until    timestamptz,
    -- Last answer at or after period_start (only updated when it was
    -- before: "was used during the period" is all the scheduler asks).
    last_used_at  timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT agent_billing_period CHECK ((period_start IS NULL) = (paid_until IS NULL) AND
        (paid_until IS NULL OR paid_until > period_start)),
    CONSTRAINT agent_billing_paused CHECK (paused = (paused_at IS NOT NULL))
);

-- The scheduler's scan: active, not paused agents by the end of their period.
CREATE INDEX IF NOT EXISTS agent_billing_due_idx ON agent_billing (paid_until) WHERE status = 'active' AND NOT paused;
CREATE INDEX IF NOT EXISTS agent_billing_uid_idx ON agent_billing (uid);

-- Every charged fee period. The primary key makes a period impossible to
-- charge twice, whatever retries, replicas or races happen (the fee's
-- transfer key 'fee:<agent>:<period start>' is a second, independent guard).
CREATE TABLE IF NOT EXISTS agent_fee_periods (
    agent_id      text        NOT NULL REFERENCES agent_billing (agent_id),
    period_start  timestamptz NOT NULL,
    period_end    timestamptz NOT NULL,
    uid           text        NOT NULL,
    transfer_id   uuid        NOT NULL UNIQUE REFERENCES transfers (id),
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (agent_id, period_start),
    CHECK (period_end > period_start)
);

-- +goose Down
DROP TABLE IF EXISTS agent_fee_periods;
DROP TABLE IF EXISTS agent_billing;
