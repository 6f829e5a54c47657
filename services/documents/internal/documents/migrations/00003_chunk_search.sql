-- +goose Up

-- Searches rank only the chunks of one agent that match: a GIN index on
-- (agent_id, tsv) (btree_gin, a trusted extension) gives exactly those in one
-- bitmap, instead of every agent's matches filtered afterwards.
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE INDEX IF NOT EXISTS document_chunks_agent_tsv_idx ON document_chunks USING gin (agent_id, tsv);
DROP INDEX IF EXISTS document_chunks_tsv_idx;
DROP INDEX IF EXISTS document_chunks_agent_idx;

-- Ranking reads the tsvector of every matching chunk, the text only of the
-- best few: keep the tsvector in the row (MAIN: compressed if need be, moved
-- out only as a last resort) and the text out of line (EXTERNAL), so that a
-- candidate costs one heap page, not a TOAST index lookup and two TOAST pages.
ALTER TABLE document_chunks ALTER COLUMN tsv SET STORAGE MAIN;
ALTER TABLE document_chunks ALTER COLUMN body SET STORAGE EXTERNAL;

-- How many chunks of an agent contain each lexeme (its document frequency),
-- kept by the re-indexing transactions. A search uses it to leave out of its
-- relaxed stages the words no chunk has (typos) and the words most chunks
-- have (which match everything and mean little), so that the chunks it
-- ranks stay few: this is where its speed comes from at 100k chunks.
CREATE TABLE IF NOT EXISTS agent_lexemes (
    agent_id uuid    NOT NULL,
    lexeme   text    NOT NULL,
    chunks   integer NOT NULL,
    PRIMARY KEY (agent_id, lexeme)
);

INSERT INTO agent_lexemes (agent_id, lexeme, chunks)
SELECT c.agent_id, l.lexeme, count(*)
FROM document_chunks c, unnest(c.tsv) AS l
GROUP BY c.agent_id, l.lexeme
ON CONFLICT (agent_id, lexeme) DO NOTHING;

-- +goose Down
DROP TABLE IF EXISTS agent_lexemes;
ALTER TABLE document_chunks ALTER COLUMN body SET STORAGE EXTENDED;
ALTER TABLE document_chunks ALTER COLUMN tsv SET STORAGE EXTENDED;
CREATE INDEX IF NOT EXISTS document_chunks_agent_idx ON document_chunks (agent_id);
CREATE INDEX IF NOT EXISTS document_chunks_tsv_idx ON document_chunks USING gin (tsv);
DROP INDEX IF EXISTS document_chunks_agent_tsv_idx;
