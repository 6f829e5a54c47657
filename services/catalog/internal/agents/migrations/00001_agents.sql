-- +goose Up
CREATE TABLE IF NOT EXISTS agents (
    id                  uuid        PRIMARY KEY,
    owner_uid           text        NOT NULL,
    name                text        NOT NULL,
    description         text        NOT NULL,
    category            text        NOT NULL,
    status              text        NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive', 'pending')),
    is_public           boolean     NOT NULL DEFAULT false,
    icon_name           text        NOT NULL,
    icon_color          text        NOT NULL,
    instructions        text        NOT NULL DEFAULT '',
    tags                text[]      NOT NULL DEFAULT '{}',
    -- Number of ACTIVE subscribers, recomputed in every transaction that
    -- changes the agent's subscribers.
    subscribers         bigint      NOT NULL DEFAULT 0,
    total_interactions  bigint      NOT NULL DEFAULT 0,
    email               text        NOT NULL UNIQUE,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS agents_owner_created_idx ON agents (owner_uid, created_at DESC, id DESC);

-- Every agent e-mail address ever issued. The primary key makes an address
-- impossible to issue twice, even after its agent is gone.
CREATE TABLE IF NOT EXISTS agent_emails (
    email      text        PRIMARY KEY,
    agent_id   uuid        NOT NULL,
    issued_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS subscribers (
    id            uuid        PRIMARY KEY,
    agent_id      uuid        NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    email         text        NOT NULL CHECK (email = lower(email)),
    status        text        NOT NULL CHECK (status IN ('invited', 'active')),
    uid           text,
    name          text        NOT NULL DEFAULT '',
    interactions  bigint      NOT NULL DEFAULT 0,
    invited_at    timestamptz NOT NULL DEFAULT now(),
    activated_at  timestamptz,
    UNIQUE (agent_id, email)
);

CREATE INDEX IF NOT EXISTS subscribers_invited_email_idx ON subscribers (email) WHERE status = 'invited';

-- Users the catalog has learned about from identity's user.onboarded events,
-- so an invite for an address that already belongs to a user is active at
-- once even when identity's gRPC API is unreachable.
CREATE TABLE IF NOT EXISTS known_users (
    uid         text        PRIMARY KEY,
    email       text        NOT NULL CHECK (email = lower(email)),
    name        text        NOT NULL DEFAULT '',
    seen_at     timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS known_users_email_idx ON known_users (email);

-- +goose Down
DROP TABLE IF EXISTS known_users;
DROP TABLE IF EXISTS subscribers;
DROP TABLE IF EXISTS agent_emails;
DROP TABLE IF EXISTS agents;
