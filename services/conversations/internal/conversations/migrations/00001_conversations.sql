-- +goose Up
CREATE TABLE IF NOT EXISTS conversations (
    id              uuid        PRIMARY KEY,
    -- The agent (owned by the catalog service; access is checked there).
    agent_id        uuid        NOT NULL,
    -- The user who started the conversation; only they see it.
    user_uid        text        NOT NULL,
    title           text        NOT NULL CHECK (title <> ''),
    channel         text        NOT NULL DEFAULT 'chat' CHECK (channel IN ('chat', 'email', 'docs_comment', 'api')),
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    last_message_at timestamptz,
    -- Deleted conversations are hidden, not removed: their answers were
    -- billed and their charges may still be settling.
    deleted_at      timestamptz
);

-- "The caller's own conversations with that agent, newest activity first".
CREATE INDEX IF NOT EXISTS conversations_user_agent_idx
    ON conversations (user_uid, agent_id, (COALESCE(last_message_at, created_at)) DESC, id DESC)
    WHERE deleted_at IS NULL;

CREATE TABLE IF NOT EXISTS messages (
    -- seq orders the messages of a conversation (turns are inserted under a
    -- lock on the conversation, so a turn's two messages are adjacent).
    seq               bigint      GENERATED ALWAYS AS IDENTITY UNIQUE,
    id                uuid        PRIMARY KEY,
    conversation_id   uuid        NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    role              text        NOT NULL CHECK (role IN ('user', 'assistant')),
    content           text        NOT NULL DEFAULT '',
    citations         jsonb       NOT NULL DEFAULT '[]'::jsonb,
    -- pending: the assistant message of a turn being answered (not shown).
    status            text        NOT NULL CHECK (status IN ('pending', 'complete', 'partial', 'failed')),
    -- The client's idempotency key of a user message.
    client_message_id text,
    -- An assistant message answers this user message.
    reply_to          uuid        REFERENCES messages (id) ON DELETE CASCADE,
    model             text,
    input_tokens      bigint      CHECK (input_tokens >= 0),
    output_tokens     bigint      CHECK (output_tokens >= 0),
    cost_micros       bigint      CHECK (cost_micros >= 0),
    fee_micros        bigint      CHECK (fee_micros >= 0),
    total_micros      bigint      CHECK (total_micros >= 0),
    -- True when the provider sent no usage and the tokens were counted here.
    usage_estimated   boolean     NOT NULL DEFAULT false,
    hold_id           text,
    transfer_id       text,
    error             text,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    CHECK ((role = 'user') = (client_message_id IS NOT NULL)),
    CHECK ((role = 'assistant') = (reply_to IS NOT NULL))
);

-- The same clientMessageId in a conversation is the same message (a retried
-- send): the database refuses a second one, whoever races.
CREATE UNIQUE INDEX IF NOT EXISTS messages_client_id_key ON messages (conversation_id, client_message_id)
    WHERE client_message_id IS NOT NULL;
-- One answer per user message.
CREATE UNIQUE INDEX IF NOT EXISTS messages_reply_to_key ON messages (reply_to) WHERE reply_to IS NOT NULL;
CREATE INDEX IF NOT EXISTS messages_conversation_idx ON messages (conversation_id, seq);

-- charges is the metering record of every answer, written before the wallet
-- is asked for anything and advanced after each wallet call, so that a
-- crash at any point is finished by the reconciler with the same hold, key
-- and amount (every wallet call is idempotent):
--   reserving → held → capturing → captured
--   reserving → released (refused, or abandoned after an unknown outcome)
--   held      → released (model failed before any output, or crash)
--   capturing → unbilled (hold expired and the wallet cannot cover it)
-- It has no foreign key to messages: a refused turn's messages are deleted,
-- its charge stays as the audit of what was reserved and released.
CREATE TABLE IF NOT EXISTS charges (
    message_id      uuid        PRIMARY KEY,
    conversation_id uuid        NOT NULL,
    agent_id        uuid        NOT NULL,
    user_uid        text        NOT NULL,
    payer_uid       text        NOT NULL,
    channel         text        NOT NULL,
    idempotency_key text        NOT NULL UNIQUE,
    reserve_micros  bigint      NOT NULL CHECK (reserve_micros >= 0),
    reserve_meta    jsonb       NOT NULL DEFAULT '{}'::jsonb,
    hold_id         text,
    state           text        NOT NULL CHECK (state IN ('reserving', 'held', 'capturing', 'captured', 'released', 'unbilled')),
    -- Set on entering capturing: exactly what to capture, with what text.
    capture_micros  bigint      CHECK (capture_micros >= 0 AND capture_micros <= reserve_micros),
    description     text,
    capture_meta    jsonb,
    -- The InteractionRecorded payload (protobuf JSON) to emit once paid.
    event           jsonb,
    outcome         text,
    transfer_id     text,
    attempts        integer     NOT NULL DEFAULT 0,
    last_error      text,
    -- Until then the answering request owns the charge; after it, the
    -- reconciler may take it over.
    lease_until     timestamptz NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CHECK (state NOT IN ('held', 'capturing', 'captured') OR hold_id IS NOT NULL),
    CHECK (state NOT IN ('capturing', 'captured', 'unbilled') OR capture_micros IS NOT NULL)
);

CREATE INDEX IF NOT EXISTS charges_open_idx ON charges (lease_until)
    WHERE state IN ('reserving', 'held', 'capturing');

-- +goose Down
DROP TABLE IF EXISTS charges;
DROP TABLE IF EXISTS messages;
DROP TABLE IF EXISTS conversations;
