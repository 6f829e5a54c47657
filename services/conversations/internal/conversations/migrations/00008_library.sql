-- +goose Up
-- The caller's access role when the conversation was created (catalog
-- CheckAccess: owner, subscriber or consumer; issue 27's Library lists a
-- user's consumer conversations). Conversations created before this column
-- have NULL (unknown) and are not listed in the Library.
ALTER TABLE conversations ADD COLUMN IF NOT EXISTS access_role text;

-- "The agents a user talked to as a consumer, most recent activity first".
CREATE INDEX IF NOT EXISTS conversations_library_idx
    ON conversations (user_uid, (COALESCE(last_message_at, created_at)) DESC, id DESC)
    WHERE deleted_at IS NULL AND access_role = 'consumer';

-- +goose Down
DROP INDEX IF EXISTS conversations_library_idx;
ALTER TABLE conversations DROP COLUMN IF EXISTS access_role;
