import type { Citation } from '../types';

/** A citation marker as the conversations service reads it (prompt.CitedPassages): [1], [1, 3], [2-4], [2–4]. */
const MARKER_RE = /\[(\d+(?:\s*(?:,|-|–)\s*\d+)*)\]/g;
/** Fenced code blocks and inline code spans: markers inside them are code, not citations. */
const CODE_RE = /(^|\n)(```|~~~)[^\n]*\n[\s\S]*?(\n\2[^\n]*(?=\n|$)|$)|`[^`\n]*`/g;
const MAX_RANGE = 50;

/** The passage numbers of a marker's inside ("1, 3", "2-4"), each once, in order. */
export function markerNumbers(inside: string): number[] {
  const out: number[] = [];
  const add = (n: number) => {
    if (n >= 1 && !out.includes(n)) out.push(n);
  };
  for (const raw of inside.split(',')) {
    const [lo, hi] = raw.replace(/–/g, '-').split('-').map((p) => Number.parseInt(p.trim(), 10));
    if (Number.isNaN(lo)) continue;
    if (hi === undefined || Number.isNaN(hi)) {
      add(lo);
    } else if (hi >= lo && hi - lo <= MAX_RANGE) {
      for (let n = lo; n <= hi; n++) add(n);
    }
  }
  return out;
}

/** Calls `onText` for the parts of Markdown outside code and returns the text with their replacements. */
function mapOutsideCode(markdown: string, onText: (text: string) => string): string {
  let out = '';
  let last = 0;
  for (const m of markdown.matchAll(CODE_RE)) {
    out += onText(markdown.slice(last, m.index)) + m[0];
    last = m.index + m[0].length;
  }
  return out + onText(markdown.slice(last));
}

/** The fragment of a marker's link: "#cite-1_3". */
export const MARKER_HREF_PREFIX = '#cite-';

/** The numbers of a marker link's href ("#cite-1_3" → [1, 3]); null for any other href. */
export function markerHrefNumbers(href: string | undefined): number[] | null {
  if (!href?.startsWith(MARKER_HREF_PREFIX)) return null;
  const numbers = href
    .slice(MARKER_HREF_PREFIX.length)
    .split('_')
    .map((n) => Number.parseInt(n, 10))
    .filter((n) => n >= 1);
  return numbers.length > 0 ? numbers : null;
}

/**
 * The answer's citation markers as Markdown links to "#cite-<n>" (rendered as buttons opening the cited passage):
 * not inside code, not a link's own text ("[1](…)", "[text][1]") and not escaped.
 */
export function linkCitationMarkers(markdown: string): string {
  return mapOutsideCode(markdown, (text) =>
    text.replace(MARKER_RE, (whole: string, inside: string, offset: number, all: string) => {
      const before = all[offset - 1];
      const after = all[offset + whole.length];
      if (before === '\\' || before === ']' || before === '!' || after === '(' || after === '[' || after === ':') return whole;
      const numbers = markerNumbers(inside);
      if (numbers.length === 0) return whole;
      return `[\\[${inside}\\]](${MARKER_HREF_PREFIX}${numbers.join('_')})`;
    }),
  );
}

/** The distinct passage numbers the answer cites, in order of first citation (outside code). */
export function citedNumbers(markdown: string): number[] {
  const out: number[] = [];
  mapOutsideCode(markdown, (text) => {
    for (const m of text.matchAll(MARKER_RE)) {
      for (const n of markerNumbers(m[1])) if (!out.includes(n)) out.push(n);
    }
    return text;
  });
  return out;
}

/** What a marker's popover shows for one cited document. */
export interface CitedSource {
  citation: Citation;
  /** The cited passage's text (when the server sent it and the agent shows its sources). */
  passage?: string;
  /** The agent hides its sources from this reader: only the document's name is shown. */
  hidden: boolean;
}

/** The agent hides its sources: a non-owner's citations keep the document name but have `url: ""`. */
export function sourcesHidden(citation: Citation): boolean {
  return !citation.url;
}

/** The markers citing a document: `markers`, else the numbers of its `passages`. */
function markersOf(c: Citation): number[] {
  if (Array.isArray(c.markers) && c.markers.length > 0) return c.markers;
  return (c.passages ?? []).map((p) => p.n).filter((n) => typeof n === 'number');
}

function source(citation: Citation, n: number | undefined): CitedSource {
  const hidden = sourcesHidden(citation);
  const passage = hidden || n === undefined ? undefined : citation.passages?.find((p) => p.n === n)?.text?.trim() || undefined;
  return { citation, passage, hidden };
}

/**
 * The documents (and passages) a marker cites. Citations that carry their markers (`markers`) are matched by
 * number; otherwise, as the server keeps one citation per document in the order of first citation, the answer's
 * distinct numbers map to the citations in order when they are as many; when they are not, every source of the
 * answer is listed.
 */
export function sourcesForMarker(numbers: readonly number[], citations: readonly Citation[], answer: string): CitedSource[] {
  if (citations.length === 0) return [];
  const out: CitedSource[] = [];
  const add = (c: Citation, n: number | undefined) => {
    const existing = out.find((s) => s.citation === c);
    if (!existing) out.push(source(c, n));
    else if (!existing.passage && n !== undefined) existing.passage = source(c, n).passage;
  };
  if (citations.some((c) => markersOf(c).length > 0)) {
    for (const n of numbers) {
      for (const c of citations) if (markersOf(c).includes(n)) add(c, n);
    }
    if (out.length > 0) return out;
  }
  const order = citedNumbers(answer);
  if (order.length === citations.length) {
    for (const n of numbers) {
      const i = order.indexOf(n);
      if (i >= 0) add(citations[i], n);
    }
    if (out.length > 0) return out;
  }
  return citations.map((c) => source(c, undefined));
}
