-- +goose Up

-- How common each word is in English (issue 32): WordNet 3.0's sense tag
-- counts in the Semantic Concordance, summed per lexeme (stemmed like the
-- chunks' text). A search weighs a common word ("come", "time", "tell")
-- and its related words less than a specific one ("unwell", "boss"), which
-- an agent's few documents cannot tell by themselves. Filled with
-- term_relations, from the same embedded data and version.
CREATE TABLE IF NOT EXISTS term_frequencies (
    lexeme text    PRIMARY KEY,
    count  integer NOT NULL
);

-- +goose Down
DROP TABLE IF EXISTS term_frequencies;
