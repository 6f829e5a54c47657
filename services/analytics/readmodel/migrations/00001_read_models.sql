-- +goose Up
-- Read models of the analytics service, built only from events (see
-- docs/analytics.md). Every row is derived deterministically from event
-- payloads, so replaying the topics into an empty database rebuilds the same
-- rows.

-- Agents as the catalog describes them. A row may be a placeholder created by
-- an event of another service (e.g. a document added) that arrived before
-- agent.created: then created_at is NULL (not counted) and attrs_at is
-- '-infinity' so the first catalog event overwrites its display attributes.
CREATE TABLE agents (
    agent_id   text        PRIMARY KEY,
    owner_uid  text        NOT NULL DEFAULT '',
    name       text        NOT NULL DEFAULT '',
    icon_name  text        NOT NULL DEFAULT '',
    icon_color text        NOT NULL DEFAULT '',
    -- occurred_at of the event that last set name/icon (last writer wins by event time).
    attrs_at   timestamptz NOT NULL DEFAULT '-infinity',
    -- occurred_at of agent.created (NULL for a placeholder).
    created_at timestamptz,
    -- occurred_at of agent.deleted, when such an event exists.
    deleted_at timestamptz
);
CREATE INDEX agents_owner_idx ON agents (owner_uid);

-- The activity feed. id = the event's ce_id (stable across replays). The
-- description is composed at read time from kind + subject + the agent's
-- current name (joined from agents), so an activity recorded before its agent
-- was known still reads right once the agent arrives.
CREATE TABLE activities (
    id                  text        PRIMARY KEY,
    owner_uid           text        NOT NULL,
    agent_id            text        NOT NULL DEFAULT '',
    activity_type       text        NOT NULL,
    -- what happened, e.g. document.added, agent.created (see readmodel.Kind*)
    kind                text        NOT NULL,
    -- the object of the sentence: document name, subscriber name, new status, changed fields ...
    subject             text        NOT NULL DEFAULT '',
    details             text,
    document_references text,
    file_type           text,
    -- display attributes the event itself carried (fallback when agents has no row yet)
    agent_name_hint     text        NOT NULL DEFAULT '',
    icon_color_hint     text        NOT NULL DEFAULT '',
    created_at          timestamptz NOT NULL
);
CREATE INDEX activities_owner_created_idx ON activities (owner_uid, created_at DESC, id DESC);

-- Income credited to a user's wallet (wallet income.credited), the basis of totalRevenue.
CREATE TABLE revenue_entries (
    event_id      text        PRIMARY KEY,
    uid           text        NOT NULL,
    amount_micros bigint      NOT NULL,
    occurred_at   timestamptz NOT NULL
);
CREATE INDEX revenue_entries_uid_idx ON revenue_entries (uid, occurred_at);

-- Interactions with a user's agents (usage interaction.recorded), the basis of totalInteractions.
CREATE TABLE interactions (
    event_id    text        PRIMARY KEY,
    owner_uid   text        NOT NULL,
    agent_id    text        NOT NULL DEFAULT '',
    occurred_at timestamptz NOT NULL
);
CREATE INDEX interactions_owner_idx ON interactions (owner_uid, occurred_at);

-- +goose Down
DROP TABLE interactions;
DROP TABLE revenue_entries;
DROP TABLE activities;
DROP TABLE agents;
