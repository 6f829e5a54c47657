-- +goose Up

-- The lexeme of a phrase of words ("showed up", "street lamps"): each word
-- stemmed like the chunks' text, a stop word ("up", "in") kept as it is,
-- joined by spaces. term_relations keys WordNet's phrasal lemmas ("chip
-- in" → contribute) by it, and a search looks up a question's consecutive
-- words by it; one function keeps the two the same.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION phrase_lexeme(phrase text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT string_agg(coalesce(
               (SELECT v.lexeme FROM unnest(to_tsvector('english'::regconfig, p.part)) AS v LIMIT 1), p.part),
           ' ' ORDER BY p.n)
    FROM unnest(string_to_array(phrase, ' ')) WITH ORDINALITY AS p(part, n)
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION IF EXISTS phrase_lexeme(text);
