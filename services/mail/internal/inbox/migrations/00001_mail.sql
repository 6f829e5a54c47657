-- +goose Up
-- Inbound messages: one row per (agent, Message-ID), written before the SMTP
-- server answers 250, and the answer job of that message (state pending →
-- answered | refused), leased by the answer workers.
CREATE TABLE IF NOT EXISTS messages (
    id                uuid        PRIMARY KEY,
    -- Arrival order: the messages of one thread are answered in this order.
    seq               bigint      GENERATED ALWAYS AS IDENTITY UNIQUE,
    agent_id          uuid        NOT NULL,
    agent_email       text        NOT NULL,
    agent_name        text        NOT NULL DEFAULT '',
    sender_uid        text        NOT NULL,
    sender_email      text        NOT NULL CHECK (sender_email = lower(sender_email)),
    sender_name       text        NOT NULL DEFAULT '',
    -- The Message-ID header without angle brackets (derived from the bytes
    -- when the message has none).
    rfc_message_id    text        NOT NULL,
    in_reply_to       text[]      NOT NULL DEFAULT '{}',
    refs              text[]      NOT NULL DEFAULT '{}',
    -- The thread's root Message-ID: one thread is one conversation.
    thread_key        text        NOT NULL,
    subject           text        NOT NULL DEFAULT '',
    -- What the sender wrote (quoted history and signature removed).
    body              text        NOT NULL DEFAULT '',
    body_from_html    boolean     NOT NULL DEFAULT false,
    attachments       text[]      NOT NULL DEFAULT '{}',
    auto_submitted    boolean     NOT NULL DEFAULT false,
    raw               bytea       NOT NULL,
    size_bytes        integer     NOT NULL,
    remote_ip         text        NOT NULL DEFAULT '',
    auth_result       text        NOT NULL DEFAULT '',
    received_at       timestamptz NOT NULL DEFAULT now(),

    state             text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'answered', 'refused')),
    attempts          integer     NOT NULL DEFAULT 0,
    model_failures    integer     NOT NULL DEFAULT 0,
    run_at            timestamptz NOT NULL DEFAULT now(),
    locked_until      timestamptz,
    lease_token       uuid,
    last_error        text        NOT NULL DEFAULT '',
    -- When this message took one of its sender's hourly answers (set once).
    rate_counted_at   timestamptz,
    refuse_reason     text        NOT NULL DEFAULT '',
    conversation_id   text        NOT NULL DEFAULT '',
    answer_message_id text        NOT NULL DEFAULT '',
    total_micros      bigint      NOT NULL DEFAULT 0,
    done_at           timestamptz,
    -- A redelivered message (same Message-ID to the same agent) is the same row.
    UNIQUE (agent_id, rfc_message_id)
);

CREATE INDEX IF NOT EXISTS messages_due_idx ON messages (run_at, seq) WHERE state = 'pending';
-- "Is an earlier message of this thread still waiting?" (per-thread order).
CREATE INDEX IF NOT EXISTS messages_thread_pending_idx ON messages (agent_id, thread_key, sender_uid, seq) WHERE state = 'pending';
-- The sender's answers in the last hour (rate limit).
CREATE INDEX IF NOT EXISTS messages_sender_rate_idx ON messages (sender_email, rate_counted_at) WHERE rate_counted_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS messages_received_idx ON messages (received_at DESC, seq DESC);

-- Outgoing replies: at most one per inbound message (the UNIQUE message_id
-- is what makes a reply never be queued twice), sent by the send workers.
CREATE TABLE IF NOT EXISTS replies (
    id              uuid        PRIMARY KEY,
    message_id      uuid        NOT NULL UNIQUE REFERENCES messages (id) ON DELETE CASCADE,
    agent_id        uuid        NOT NULL,
    kind            text        NOT NULL CHECK (kind IN ('answer', 'cannot_answer', 'rate_limited', 'too_long')),
    -- The reply's own Message-ID: a reply to it continues the thread.
    rfc_message_id  text        NOT NULL UNIQUE,
    thread_key      text        NOT NULL,
    mail_from       text        NOT NULL,
    rcpt_to         text        NOT NULL,
    -- The complete message (unsigned; DKIM is added when it is sent).
    raw             bytea       NOT NULL,
    state           text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed')),
    attempts        integer     NOT NULL DEFAULT 0,
    run_at          timestamptz NOT NULL DEFAULT now(),
    locked_until    timestamptz,
    lease_token     uuid,
    last_error      text        NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL DEFAULT now(),
    sent_at         timestamptz
);

CREATE INDEX IF NOT EXISTS replies_due_idx ON replies (run_at) WHERE state = 'pending';
-- "Was this sender already told about the rate limit this hour?"
CREATE INDEX IF NOT EXISTS replies_rate_notice_idx ON replies (rcpt_to, created_at) WHERE kind = 'rate_limited';
CREATE INDEX IF NOT EXISTS replies_agent_id_idx ON replies (agent_id, rfc_message_id);

-- +goose Down
DROP TABLE IF EXISTS replies;
DROP TABLE IF EXISTS messages;
