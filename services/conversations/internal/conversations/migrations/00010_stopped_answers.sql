-- +goose Up
-- An answer stopped (Stop, or the client left) before its first token is
-- kept, empty, with status 'stopped': the user's question stays in the
-- conversation (issue 29 item 3).
ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_status_check;
ALTER TABLE messages ADD CONSTRAINT messages_status_check
    CHECK (status IN ('pending', 'complete', 'partial', 'failed', 'stopped'));

-- +goose Down
UPDATE messages SET status = 'failed' WHERE status = 'stopped';
ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_status_check;
ALTER TABLE messages ADD CONSTRAINT messages_status_check
    CHECK (status IN ('pending', 'complete', 'partial', 'failed'));
