-- +goose Up
-- agent_documents is this service's read model of the agents' documents
-- (from agentic.documents.v1): the names the instructions' @Document
-- references use, resolved to the ids KnowledgeService takes. A removed
-- document stays as a tombstone so that a late, older event cannot bring
-- it back; occurred_at orders the events of one document.
CREATE TABLE IF NOT EXISTS agent_documents (
    document_id uuid        PRIMARY KEY,
    agent_id    uuid        NOT NULL,
    name        text        NOT NULL,
    labels      text[]      NOT NULL DEFAULT '{}',
    removed     boolean     NOT NULL DEFAULT false,
    occurred_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_documents_agent_idx ON agent_documents (agent_id) WHERE NOT removed;

-- thread_key maps a thread of another channel (an e-mail thread, a Docs
-- comment) to one conversation (gRPC ConversationsService.Answer).
ALTER TABLE conversations ADD COLUMN IF NOT EXISTS thread_key text;
CREATE UNIQUE INDEX IF NOT EXISTS conversations_thread_key
    ON conversations (agent_id, user_uid, channel, thread_key) WHERE thread_key IS NOT NULL AND deleted_at IS NULL;

-- +goose Down
DROP INDEX IF EXISTS conversations_thread_key;
ALTER TABLE conversations DROP COLUMN IF EXISTS thread_key;
DROP TABLE IF EXISTS agent_documents;
