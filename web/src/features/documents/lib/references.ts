/**
 * The agent instructions' reference syntax (spec "Agent editor → Instructions & Documents",
 * "Document link state", §9 token estimate). One pure module: parsing, highlight segments,
 * the 'Referenced' rule, the @/# suggestions and the token estimate. See docs/web-documents.md.
 *
 * Grammar
 * - A reference is a sigil (`@` document, `#` label) followed by a *run*: one or more characters
 *   that are neither white space (JS `\s`, Unicode-aware) nor `@` nor `#`.
 * - The sigil must start a word: it is at the start of the text or the character before it is not
 *   a letter, digit or underscore (`\p{L}\p{N}_`). So `ada@example.com` and `C#` are plain text,
 *   while `(@Syllabus)`, `"#week1"` and `@a` in `x @a` are references.
 * - Trailing punctuation: the reference is the longest of the run and its prefixes obtained by
 *   dropping trailing punctuation (`. , ; : ! ? ' " ) ] } ’ ” » …`) that names something known;
 *   if none is known, the run without all trailing punctuation (an unknown reference). If that is
 *   empty (`@...`), there is no reference. So `See @Syllabus.` references `Syllabus`, and a
 *   document really named `Notes.` is still found by `@Notes.`.
 * - Names and labels are compared case-insensitively (the documents service keeps names unique
 *   case-insensitively, so `@syllabus` and `@Syllabus` mean the same document).
 */

export type Sigil = '@' | '#';

export type Segment =
  | { kind: 'text'; text: string; start: number }
  | { kind: 'document' | 'label'; text: string; start: number; name: string; known: boolean };

export interface ReferenceToken {
  kind: 'document' | 'label';
  sigil: Sigil;
  /** Index of the sigil. */
  start: number;
  /** Index after the reference (trailing punctuation excluded). */
  end: number;
  /** The referenced name, without the sigil. */
  name: string;
  known: boolean;
}

/** What the references are checked against: document names and labels. */
export interface KnownNames {
  documents: Iterable<string>;
  labels: Iterable<string>;
}

export interface ReferencableDocument {
  id: string;
  name: string;
  labels?: readonly string[] | null;
}

const TRAILING_PUNCTUATION = new Set(['.', ',', ';', ':', '!', '?', "'", '"', ')', ']', '}', '’', '”', '»', '…']);
const WORD_CHAR = /[\p{L}\p{N}_]/u;
const SPACE = /\s/;

/** Can `ch` (one UTF-16 code unit) be part of a reference's run? */
export function isRunChar(ch: string): boolean {
  return ch !== '@' && ch !== '#' && !SPACE.test(ch);
}

export function isSigil(ch: string | undefined): ch is Sigil {
  return ch === '@' || ch === '#';
}

/** The code point that ends just before `index` (surrogate pairs read as one). */
function codePointBefore(text: string, index: number): string {
  if (index <= 0) return '';
  const low = text.charCodeAt(index - 1);
  if (low >= 0xdc00 && low <= 0xdfff && index >= 2) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(index - 2, index);
  }
  return text[index - 1]!;
}

/** Does the sigil at `index` start a word (start of text, or not preceded by a letter/digit/_)? */
export function startsWord(text: string, index: number): boolean {
  return index === 0 || !WORD_CHAR.test(codePointBefore(text, index));
}

const fold = (s: string) => s.toLowerCase();

function knownSet(names: Iterable<string>): Set<string> {
  const set = new Set<string>();
  for (const name of names) set.add(fold(name));
  return set;
}

function runEnd(text: string, from: number): number {
  let end = from;
  while (end < text.length && isRunChar(text[end]!)) end++;
  return end;
}

/** The reference name taken from a run (see the grammar above), or '' for none. */
export function resolveRun(run: string, known: ReadonlySet<string>): { name: string; known: boolean } {
  let candidate = run;
  for (;;) {
    if (candidate && known.has(fold(candidate))) return { name: candidate, known: true };
    const last = candidate[candidate.length - 1];
    if (!last || !TRAILING_PUNCTUATION.has(last)) return { name: candidate, known: false };
    candidate = candidate.slice(0, -1);
  }
}

/** Every reference in `text`, left to right. */
export function findReferences(text: string, names: KnownNames): ReferenceToken[] {
  const sets = { document: knownSet(names.documents), label: knownSet(names.labels) };
  const tokens: ReferenceToken[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (isSigil(ch) && startsWord(text, i)) {
      const end = runEnd(text, i + 1);
      const kind = ch === '@' ? 'document' : 'label';
      const resolved = resolveRun(text.slice(i + 1, end), sets[kind]);
      if (resolved.name) {
        const tokenEnd = i + 1 + resolved.name.length;
        tokens.push({ kind, sigil: ch, start: i, end: tokenEnd, name: resolved.name, known: resolved.known });
        i = tokenEnd;
        continue;
      }
    }
    i++;
  }
  return tokens;
}

/** The highlight layer's segments; their texts concatenate back to `text`. */
export function segmentInstructions(text: string, names: KnownNames): Segment[] {
  const segments: Segment[] = [];
  let at = 0;
  for (const token of findReferences(text, names)) {
    if (token.start > at) segments.push({ kind: 'text', text: text.slice(at, token.start), start: at });
    segments.push({
      kind: token.kind,
      text: text.slice(token.start, token.end),
      start: token.start,
      name: token.name,
      known: token.known,
    });
    at = token.end;
  }
  if (at < text.length) segments.push({ kind: 'text', text: text.slice(at), start: at });
  return segments;
}

/** Document names and labels of `documents` (for KnownNames). */
export function knownNamesOf(documents: readonly ReferencableDocument[]): KnownNames {
  return { documents: documents.map((d) => d.name), labels: documents.flatMap((d) => d.labels ?? []) };
}

/**
 * 'Referenced' (spec "Document link state"): the ids of the documents whose name is referenced
 * with @ or one of whose labels is referenced with #.
 */
export function referencedDocumentIds(text: string, documents: readonly ReferencableDocument[]): Set<string> {
  const tokens = findReferences(text, knownNamesOf(documents)).filter((t) => t.known);
  const docNames = new Set(tokens.filter((t) => t.kind === 'document').map((t) => fold(t.name)));
  const labels = new Set(tokens.filter((t) => t.kind === 'label').map((t) => fold(t.name)));
  const ids = new Set<string>();
  for (const doc of documents) {
    if (docNames.has(fold(doc.name)) || (doc.labels ?? []).some((l) => labels.has(fold(l)))) ids.add(doc.id);
  }
  return ids;
}

/** Spec §9: the instruction text length divided by 4, rounded up (UTF-16 code units). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function formatTokenEstimate(text: string): string {
  return `~${estimateTokens(text)} tokens`;
}

/** The @/# token the caret is in (or right after), for the suggestion lists. */
export interface ActiveQuery {
  sigil: Sigil;
  /** Index of the sigil. */
  start: number;
  /** The typed prefix: from after the sigil up to the caret. */
  query: string;
  /** End of the whole run (the caret may sit inside it): choosing replaces start..end. */
  end: number;
}

export function activeQuery(text: string, caret: number): ActiveQuery | null {
  if (caret < 0 || caret > text.length) return null;
  let i = caret;
  while (i > 0 && isRunChar(text[i - 1]!)) i--;
  const sigil = text[i - 1];
  if (i === 0 || !isSigil(sigil) || !startsWord(text, i - 1)) return null;
  return { sigil, start: i - 1, query: text.slice(i, caret), end: runEnd(text, caret) };
}

/** Names that start with `query`, case-insensitively, in their given order. */
export function filterSuggestions(names: readonly string[], query: string): string[] {
  const q = fold(query);
  return names.filter((name) => fold(name).startsWith(q));
}

/** Every label of `documents`, once (first spelling, case-insensitively), in order of appearance. */
export function uniqueLabels(documents: readonly ReferencableDocument[]): string[] {
  const seen = new Set<string>();
  const labels: string[] = [];
  for (const label of documents.flatMap((d) => d.labels ?? [])) {
    if (seen.has(fold(label))) continue;
    seen.add(fold(label));
    labels.push(label);
  }
  return labels;
}

/** Choosing a suggestion: the whole token (sigil..end of run) becomes sigil + name + one space. */
export function applySuggestion(text: string, active: ActiveQuery, name: string): { text: string; caret: number } {
  const inserted = `${active.sigil}${name} `;
  return {
    text: text.slice(0, active.start) + inserted + text.slice(active.end),
    caret: active.start + inserted.length,
  };
}
