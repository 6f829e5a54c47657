/** Client rules of the Test retrieval question: the service's (POST …/knowledge/search, 400 invalid_query), same texts. */
export const MAX_QUERY_LENGTH = 1000;

export const QUERY_REQUIRED_MESSAGE = "Enter a question to search the agent's documents.";
export const QUERY_TOO_LONG_MESSAGE = 'The question must be at most 1,000 characters.';

/** Length in characters (code points, as the service counts them). */
export const queryLength = (query: string) => [...query].length;

/** The message for a question the service would refuse (400 invalid_query), else null. Checks the trimmed text. */
export function queryError(query: string): string | null {
  const trimmed = query.trim();
  if (trimmed === '') return QUERY_REQUIRED_MESSAGE;
  if (queryLength(trimmed) > MAX_QUERY_LENGTH) return QUERY_TOO_LONG_MESSAGE;
  return null;
}

/** Passage text longer than this is cut (at a word boundary when one is near) with a Show more button. */
export const PASSAGE_PREVIEW_LENGTH = 280;

/** The start of a long passage, cut at the last space within the preview length, plus '…'; null if short. */
export function passagePreview(text: string, max = PASSAGE_PREVIEW_LENGTH): string | null {
  if (text.length <= max) return null;
  let cut = text.slice(0, max);
  const space = cut.search(/\s\S*$/);
  if (space > max * 0.6) cut = cut.slice(0, space);
  return `${cut.trimEnd()}…`;
}
