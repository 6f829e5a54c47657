-- +goose Up
-- Consumers of listed agents pay per answer with the creator's markup and,
-- once per conversation, the greeting cost (issue 28).

-- The parts of a consumer's answer for the creator (0 for everyone else);
-- total_micros includes them.
ALTER TABLE messages ADD COLUMN IF NOT EXISTS markup_micros bigint NOT NULL DEFAULT 0 CHECK (markup_micros >= 0);
ALTER TABLE messages ADD COLUMN IF NOT EXISTS greeting_micros bigint NOT NULL DEFAULT 0 CHECK (greeting_micros >= 0);

-- The greeting cost a charge carries (included in reserve_micros): BeginTurn
-- gives it to a consumer's turn, under the lock on the conversation, only
-- when no other charge of the conversation carries it and is open or paid
-- (reserving, held, capturing, captured). A refused or released charge
-- gives it up, so the conversation's first charged answer pays it, once.
ALTER TABLE charges ADD COLUMN IF NOT EXISTS greeting_micros bigint NOT NULL DEFAULT 0 CHECK (greeting_micros >= 0);
CREATE INDEX IF NOT EXISTS charges_greeting_idx ON charges (conversation_id) WHERE greeting_micros > 0;

-- The agent's greeting, its first message in the conversation (free): kept
-- on the conversation as it was at creation and shown as the first
-- assistant message (id greeting_message_id). Not part of the model's
-- history (a kept history starts with a user message).
ALTER TABLE conversations ADD COLUMN IF NOT EXISTS greeting text;
ALTER TABLE conversations ADD COLUMN IF NOT EXISTS greeting_message_id uuid;

-- +goose Down
ALTER TABLE conversations DROP COLUMN IF EXISTS greeting_message_id;
ALTER TABLE conversations DROP COLUMN IF EXISTS greeting;
DROP INDEX IF EXISTS charges_greeting_idx;
ALTER TABLE charges DROP COLUMN IF EXISTS greeting_micros;
ALTER TABLE messages DROP COLUMN IF EXISTS greeting_micros;
ALTER TABLE messages DROP COLUMN IF EXISTS markup_micros;
