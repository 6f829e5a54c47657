-- +goose Up

-- The lexeme of a phrase of words ("showed up", "street lamps"): each word
-- stemmed like the chunks' text, a stop word ("up", "in") kept as it is,
-- joined by spaces. term_relations keys WordNet's phrasal lemmas ("chip
-- in" → contribute) by it, and a search looks up a question's consecutive
-- words by it; one function keeps the two the same. (The english
-- configuration stems a word of letters by the english_stem dictionary;
-- ts_lexize calls that without the parser: 27 µs a phrase, not 80.)
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION phrase_lexeme(phrase text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT string_agg(coalesce((ts_lexize('english_stem', p.part))[1], p.part), ' ' ORDER BY p.n)
    FROM unnest(string_to_array(phrase, ' ')) WITH ORDINALITY AS p(part, n)
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION IF EXISTS phrase_lexeme(text);
