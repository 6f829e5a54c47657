import { describe, expect, it } from 'vitest';
import type { Citation } from '../types';
import { citedNumbers, linkCitationMarkers, markerHrefNumbers, markerNumbers, sourcesForMarker } from './citations';

const doc = (id: string, overrides: Partial<Citation> = {}): Citation => ({
  documentId: id,
  documentName: `Doc ${id}`,
  url: `https://docs.google.com/document/d/${id}/edit`,
  labels: [],
  ...overrides,
});

describe('citation markers', () => {
  it('reads numbers, lists and ranges as the server does', () => {
    expect(markerNumbers('1')).toEqual([1]);
    expect(markerNumbers('1, 3')).toEqual([1, 3]);
    expect(markerNumbers('2-4')).toEqual([2, 3, 4]);
    expect(markerNumbers('2–3')).toEqual([2, 3]);
  });

  it('links markers outside code, links and escapes', () => {
    const text = 'See [1] and [2, 3].\n\n`arr[1]`\n\n```\nx[2]\n```\n[label](https://x.test/[4]) [5](https://x.test) \\[6]';
    const out = linkCitationMarkers(text);
    expect(out).toContain('[\\[1\\]](#cite-1)');
    expect(out).toContain('[\\[2, 3\\]](#cite-2_3)');
    expect(out).toContain('`arr[1]`');
    expect(out).toContain('x[2]\n```');
    expect(out).toContain('[5](https://x.test)');
    expect(out).toContain('\\[6]');
    expect(markerHrefNumbers('#cite-2_3')).toEqual([2, 3]);
    expect(markerHrefNumbers('https://x.test')).toBeNull();
  });

  it('lists the distinct cited numbers in order of first citation', () => {
    expect(citedNumbers('a [3] b [1, 3] `c [9]`')).toEqual([3, 1]);
  });
});

describe('sourcesForMarker', () => {
  it('matches citations that carry their markers and passages', () => {
    const a = doc('a', { markers: [1], passages: [{ n: 1, text: 'Passage one' }] });
    const b = doc('b', { markers: [2, 3], passages: [{ n: 3, text: 'Passage three' }] });
    expect(sourcesForMarker([3], [a, b], 'x [1] y [3]')).toEqual([{ citation: b, passage: 'Passage three', hidden: false }]);
  });

  it('maps the distinct numbers to the citations in order when they are as many', () => {
    const a = doc('a');
    const b = doc('b');
    expect(sourcesForMarker([7], [a, b], 'x [4] y [7] z [4]').map((s) => s.citation)).toEqual([b]);
  });

  it('lists every source when the numbers cannot be matched', () => {
    const a = doc('a');
    const b = doc('b');
    expect(sourcesForMarker([2], [a, b], 'x [1] y [2] z [3]').map((s) => s.citation)).toEqual([a, b]);
  });

  it('keeps only the document name when the agent hides its sources', () => {
    const hidden = doc('a', { url: '', markers: [1], passages: [{ n: 1, text: 'secret' }] });
    expect(sourcesForMarker([1], [hidden], '[1]')).toEqual([{ citation: hidden, passage: undefined, hidden: true }]);
  });
});
