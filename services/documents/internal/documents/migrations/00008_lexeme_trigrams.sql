-- +goose Up

-- Misspellings (issue 32): a query word that no chunk of the agent has is
-- matched to the agent's most similar lexemes by trigram similarity
-- (pg_trgm, a trusted extension), among those that start with the same two
-- letters: typos rarely touch the start of a word, and the index below
-- makes that a lookup of a few dozen rows rather than a trigram search of
-- the agent's whole vocabulary (10–30 ms at 33,000 lexemes, measured).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX IF NOT EXISTS agent_lexemes_prefix_idx ON agent_lexemes (agent_id, left(lexeme, 2));

-- +goose Down
DROP INDEX IF EXISTS agent_lexemes_prefix_idx;
