-- +goose Up
-- Billing notifications (issue 16): one e-mail per wallet event, queued in
-- the transaction that records the event as processed (UNIQUE event_id: never
-- queued twice) and delivered by a send worker through the same relay as the
-- replies.
CREATE TABLE IF NOT EXISTS notifications (
    id              uuid        PRIMARY KEY,
    -- The CloudEvents id of the wallet event this e-mail is about.
    event_id        text        NOT NULL UNIQUE,
    event_type      text        NOT NULL,
    kind            text        NOT NULL,
    uid             text        NOT NULL,
    rfc_message_id  text        NOT NULL UNIQUE,
    mail_from       text        NOT NULL,
    rcpt_to         text        NOT NULL,
    subject         text        NOT NULL DEFAULT '',
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

CREATE INDEX IF NOT EXISTS notifications_due_idx ON notifications (run_at) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS notifications_uid_idx ON notifications (uid, created_at DESC);

-- +goose Down
DROP TABLE IF EXISTS notifications;
