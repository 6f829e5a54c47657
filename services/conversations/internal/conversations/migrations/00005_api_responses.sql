-- +goose Up
-- The agent API's stored state beyond the key (docs/agent-api.md).
--
-- api_idempotency remembers what each Idempotency-Key of a key was first
-- used for (a SHA-256 of the route and the body), so that the same key with
-- another request is refused (422 idempotency_key_mismatch, as Stripe does)
-- instead of replaying an answer to a different question.
CREATE TABLE IF NOT EXISTS api_idempotency (
    key_id          uuid        NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    idempotency_key text        NOT NULL,
    fingerprint     bytea       NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (key_id, idempotency_key)
);

-- api_responses keeps the Responses API's stored responses (store: true, the
-- default): GET /api/v1/responses/{id} returns body as it was answered, and
-- previous_response_id continues from input + output. Any key of the same
-- agent may read them (OpenAI scopes them to the project; here the agent).
CREATE TABLE IF NOT EXISTS api_responses (
    id                   text        PRIMARY KEY,
    agent_id             uuid        NOT NULL,
    key_id               uuid        NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    previous_response_id text,
    input                jsonb       NOT NULL,
    output               text        NOT NULL,
    body                 jsonb       NOT NULL,
    created_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS api_responses_agent_idx ON api_responses (agent_id, id);

-- +goose Down
DROP TABLE IF EXISTS api_responses;
DROP TABLE IF EXISTS api_idempotency;
