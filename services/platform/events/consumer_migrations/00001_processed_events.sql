-- +goose Up
-- Events a consumer group has applied, recorded in the same transaction as the
-- handler's effect: a re-delivered event finds its row and is skipped.
CREATE TABLE IF NOT EXISTS processed_events (
    consumer_group text        NOT NULL,
    event_id       text        NOT NULL,
    topic          text        NOT NULL,
    partition      integer     NOT NULL,
    "offset"       bigint      NOT NULL,
    type           text        NOT NULL DEFAULT '',
    processed_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer_group, event_id)
);

-- Poison events: the handler kept failing, so the consumer parked them here
-- (with the last error) and moved on. Re-drive by fixing the cause and
-- re-publishing, or by handling the row by hand.
CREATE TABLE IF NOT EXISTS parked_events (
    consumer_group text        NOT NULL,
    event_id       text        NOT NULL,
    topic          text        NOT NULL,
    partition      integer     NOT NULL,
    "offset"       bigint      NOT NULL,
    key            text        NOT NULL DEFAULT '',
    type           text        NOT NULL DEFAULT '',
    headers        jsonb       NOT NULL DEFAULT '{}'::jsonb,
    payload        bytea,
    error          text        NOT NULL,
    attempts       integer     NOT NULL DEFAULT 0,
    parked_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer_group, event_id)
);

-- +goose Down
DROP TABLE IF EXISTS parked_events;
DROP TABLE IF EXISTS processed_events;
