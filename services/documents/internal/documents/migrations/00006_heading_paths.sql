-- +goose Up

-- Chunks follow the document's structure (issue 32): each carries its heading
-- path (title › section › subsection), matched at the heading's weight, in
-- place of the one heading it started under. The title counts like any other
-- heading: it is in every chunk's path, so it no longer lifts the opening
-- chunk above the section that answers.
ALTER TABLE document_chunks ADD COLUMN IF NOT EXISTS heading_path text NOT NULL DEFAULT '';
UPDATE document_chunks SET heading_path = heading WHERE heading_path = '' AND heading <> '';

ALTER TABLE document_chunks DROP COLUMN tsv;
ALTER TABLE document_chunks ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english'::regconfig, heading_path), 'A') ||
    setweight(to_tsvector('english'::regconfig, body), 'D')) STORED;
ALTER TABLE document_chunks ALTER COLUMN tsv SET STORAGE MAIN;
CREATE INDEX IF NOT EXISTS document_chunks_agent_tsv_idx ON document_chunks USING gin (agent_id, tsv)
    WITH (gin_pending_list_limit = 256);

-- The lexeme counts follow the new vectors; the lexeme '' (which no text
-- has) counts each agent's chunks, the N of the terms' IDF in a search.
TRUNCATE agent_lexemes;
INSERT INTO agent_lexemes (agent_id, lexeme, chunks)
SELECT c.agent_id, l.lexeme, count(*)
FROM document_chunks c, unnest(c.tsv) AS l
GROUP BY c.agent_id, l.lexeme;
INSERT INTO agent_lexemes (agent_id, lexeme, chunks)
SELECT agent_id, '', count(*) FROM document_chunks GROUP BY agent_id;

-- Every document is exported and chunked again at its next check (the new
-- chunker's content hash differs from the stored one): checked now.
UPDATE documents SET modified_time = NULL, drive_version = NULL, next_check_at = now()
WHERE content_hash IS NOT NULL;

-- +goose Down
ALTER TABLE document_chunks DROP COLUMN tsv;
ALTER TABLE document_chunks ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english'::regconfig, heading), 'A') ||
    setweight(to_tsvector('english'::regconfig, body), 'D')) STORED;
ALTER TABLE document_chunks ALTER COLUMN tsv SET STORAGE MAIN;
CREATE INDEX IF NOT EXISTS document_chunks_agent_tsv_idx ON document_chunks USING gin (agent_id, tsv)
    WITH (gin_pending_list_limit = 256);
ALTER TABLE document_chunks DROP COLUMN IF EXISTS heading_path;
TRUNCATE agent_lexemes;
INSERT INTO agent_lexemes (agent_id, lexeme, chunks)
SELECT c.agent_id, l.lexeme, count(*)
FROM document_chunks c, unnest(c.tsv) AS l
GROUP BY c.agent_id, l.lexeme;
