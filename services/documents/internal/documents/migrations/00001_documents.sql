-- +goose Up
CREATE TABLE IF NOT EXISTS documents (
    id              uuid        PRIMARY KEY,
    -- The agent (owned by the catalog service; ownership is checked there).
    agent_id        uuid        NOT NULL,
    -- The agent's owner when the document was added (for events).
    owner_uid       text        NOT NULL,
    name            text        NOT NULL CHECK (name <> ''),
    url             text        NOT NULL,
    drive_file_id   text        NOT NULL CHECK (drive_file_id ~ '^[A-Za-z0-9_-]{25,}$'),
    labels          text[]      NOT NULL DEFAULT '{}',
    sharing_status  text        NOT NULL DEFAULT 'shared' CHECK (sharing_status IN ('shared', 'not_shared', 'error')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);

-- A name is unique within its agent, case-insensitively (@Name references in
-- the agent's instructions must be unambiguous).
CREATE UNIQUE INDEX IF NOT EXISTS documents_agent_name_key ON documents (agent_id, lower(name));

CREATE INDEX IF NOT EXISTS documents_agent_created_idx ON documents (agent_id, created_at, id);

-- +goose Down
DROP TABLE IF EXISTS documents;
