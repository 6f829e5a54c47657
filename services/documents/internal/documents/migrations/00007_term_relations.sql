-- +goose Up

-- Related words for query expansion (issue 32): WordNet 3.0's synonyms,
-- hypernyms, hyponyms, attributes, derivations and similar adjectives of
-- each word, stemmed like the chunks' text. Filled at start-up from the
-- copy embedded in the service (knowledge/wordnet), once per version of it.
CREATE TABLE IF NOT EXISTS term_relations (
    lexeme   text NOT NULL,
    related  text NOT NULL,
    -- synonym | attribute | derivation | similar | hypernym | hyponym
    relation text NOT NULL,
    PRIMARY KEY (lexeme, related)
);

CREATE TABLE IF NOT EXISTS term_relations_source (
    version   text        PRIMARY KEY,
    relations integer     NOT NULL,
    loaded_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE IF EXISTS term_relations_source;
DROP TABLE IF EXISTS term_relations;
