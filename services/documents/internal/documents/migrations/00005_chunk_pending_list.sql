-- +goose Up

-- New chunks go to the GIN index's pending list first (fast inserts), and
-- every search scans that list until it is merged. Bounding it to 256 kB (the
-- default is 4 MB) keeps a search's extra work small while syncs keep writing.
ALTER INDEX IF EXISTS document_chunks_agent_tsv_idx SET (gin_pending_list_limit = 256);

-- +goose Down
ALTER INDEX IF EXISTS document_chunks_agent_tsv_idx RESET (gin_pending_list_limit);
