import { describe, expect, it } from 'vitest';
import {
  activeQuery,
  applySuggestion,
  estimateTokens,
  filterSuggestions,
  findReferences,
  formatTokenEstimate,
  referencedDocumentIds,
  segmentInstructions,
  uniqueLabels,
  type ReferencableDocument,
} from './references';
import { randomText, rng } from './random.test-util';

const docs: ReferencableDocument[] = [
  { id: 'd1', name: 'Syllabus', labels: ['week1', 'exam'] },
  { id: 'd2', name: 'Notes.', labels: [] },
  { id: 'd3', name: 'Lab_2', labels: ['week2', 'Exam'] },
];
const known = { documents: docs.map((d) => d.name), labels: docs.flatMap((d) => d.labels ?? []) };

describe('findReferences / segmentInstructions', () => {
  it('classifies known and unknown @ and # references', () => {
    const segments = segmentInstructions('Read @Syllabus and @Missing, then #week1 or #nope.', known);
    expect(segments.filter((s) => s.kind !== 'text')).toEqual([
      { kind: 'document', text: '@Syllabus', start: 5, name: 'Syllabus', known: true },
      { kind: 'document', text: '@Missing', start: 19, name: 'Missing', known: false },
      { kind: 'label', text: '#week1', start: 34, name: 'week1', known: true },
      { kind: 'label', text: '#nope', start: 44, name: 'nope', known: false },
    ]);
  });

  it('needs the sigil to start a word', () => {
    expect(findReferences('mail ada@example.com or use C#', known)).toEqual([]);
    expect(findReferences('(@Syllabus) "#week1"', known).map((t) => [t.name, t.known])).toEqual([
      ['Syllabus', true],
      ['week1', true],
    ]);
    expect(findReferences('@Syllabus@Lab_2', known).map((t) => t.name)).toEqual(['Syllabus']);
    expect(findReferences('@', known)).toEqual([]);
    expect(findReferences('@...', known)).toEqual([]);
  });

  it('drops trailing punctuation unless it is part of a known name', () => {
    expect(findReferences('See @Syllabus.', known)[0]).toMatchObject({ name: 'Syllabus', known: true, end: 13 });
    expect(findReferences('See @Syllabus).', known)[0]).toMatchObject({ name: 'Syllabus', known: true });
    expect(findReferences('See @Notes.', known)[0]).toMatchObject({ name: 'Notes.', known: true });
    expect(findReferences('See @Notes..', known)[0]).toMatchObject({ name: 'Notes.', known: true });
    expect(findReferences('See @Foo!?', known)[0]).toMatchObject({ name: 'Foo', known: false });
    expect(findReferences('@Syllabus2', known)[0]).toMatchObject({ name: 'Syllabus2', known: false });
  });

  it('compares names and labels case-insensitively', () => {
    expect(findReferences('@syllabus #WEEK1', known).every((t) => t.known)).toBe(true);
  });
});

describe('referencedDocumentIds', () => {
  it('marks documents referenced by name or by one of their labels', () => {
    expect([...referencedDocumentIds('Use @Syllabus', docs)]).toEqual(['d1']);
    expect([...referencedDocumentIds('Use #exam', docs)].sort()).toEqual(['d1', 'd3']);
    expect([...referencedDocumentIds('Use #week2 and @Notes.', docs)].sort()).toEqual(['d2', 'd3']);
    expect(referencedDocumentIds('Syllabus week1 x@Syllabus @Syllabusx #week', docs).size).toBe(0);
    expect(referencedDocumentIds('', []).size).toBe(0);
  });
});

describe('token estimate', () => {
  it('is the length divided by 4, rounded up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('a')).toBe(1);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(formatTokenEstimate('x'.repeat(9))).toBe('~3 tokens');
  });
});

describe('suggestions', () => {
  it('finds the token at the caret', () => {
    expect(activeQuery('Read @Syl', 9)).toEqual({ sigil: '@', start: 5, query: 'Syl', end: 9 });
    expect(activeQuery('Read @Syl', 7)).toEqual({ sigil: '@', start: 5, query: 'S', end: 9 });
    expect(activeQuery('Read @', 6)).toEqual({ sigil: '@', start: 5, query: '', end: 6 });
    expect(activeQuery('x #we y', 5)).toEqual({ sigil: '#', start: 2, query: 'we', end: 5 });
    expect(activeQuery('Read @Syl ', 10)).toBeNull();
    expect(activeQuery('ada@exa', 7)).toBeNull();
    expect(activeQuery('plain', 3)).toBeNull();
  });

  it('filters by prefix, case-insensitively, and lists labels once', () => {
    expect(filterSuggestions(['Syllabus', 'Lab_2', 'syntax'], 'sy')).toEqual(['Syllabus', 'syntax']);
    expect(filterSuggestions(['Syllabus'], 'zz')).toEqual([]);
    expect(uniqueLabels(docs)).toEqual(['week1', 'exam', 'week2']);
  });

  it('replaces the whole partial token with the name and a space', () => {
    const active = activeQuery('Read @Syl now', 8)!;
    expect(applySuggestion('Read @Syl now', active, 'Syllabus')).toEqual({ text: 'Read @Syllabus  now', caret: 15 });
    const end = activeQuery('#w', 2)!;
    expect(applySuggestion('#w', end, 'week1')).toEqual({ text: '#week1 ', caret: 7 });
  });
});

describe('properties over random text', () => {
  const SEEDS = 400;

  it('segments concatenate back to the input, in order, without empty segments', () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = rng(seed);
      const text = randomText(r, 60);
      const segments = segmentInstructions(text, { documents: ['Sa', 'b.', 'x'], labels: ['a', '1_'] });
      expect(segments.map((s) => s.text).join(''), `seed ${seed}`).toBe(text);
      let at = 0;
      for (const s of segments) {
        expect(s.start).toBe(at);
        expect(s.text.length).toBeGreaterThan(0);
        at += s.text.length;
      }
      for (const s of segments) {
        if (s.kind === 'text') continue;
        expect(s.text).toBe((s.kind === 'document' ? '@' : '#') + s.name);
      }
    }
  });

  it('an @reference of a known name, placed at a word start, is classified known', () => {
    const names = ['Syllabus', 'Lab_2', 'Notes.', 'Émile-1'];
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = rng(seed);
      const name = r.pick(names);
      const before = randomText(r, 20);
      // Something that ends the run: the end of the text, white space, or punctuation + space.
      const after = r.int(4) === 0 ? '' : r.pick([' ', '\n', ', ', ') ', '.\n', '@', '#']) + randomText(r, 20);
      const separator = r.pick([' ', '\n', '(', '"']);
      const text = `${before}${separator}@${name}${after}`;
      const at = before.length + separator.length;
      const token = findReferences(text, { documents: names, labels: [] }).find((t) => t.start === at);
      expect(token, `seed ${seed}: ${JSON.stringify(text)}`).toBeDefined();
      expect(token!.known).toBe(true);
      expect(token!.name).toBe(name);
    }
  });

  it('Referenced iff a known token names the document or one of its labels', () => {
    const pool: ReferencableDocument[] = [
      { id: '1', name: 'Sa', labels: ['a'] },
      { id: '2', name: 'b', labels: ['x', '1_'] },
      { id: '3', name: 'x', labels: [] },
    ];
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = rng(seed);
      const text = randomText(r, 50);
      const ids = referencedDocumentIds(text, pool);
      const tokens = segmentInstructions(text, {
        documents: pool.map((d) => d.name),
        labels: pool.flatMap((d) => d.labels ?? []),
      }).filter((s) => s.kind !== 'text' && s.known);
      for (const doc of pool) {
        const expected = tokens.some((t) =>
          t.kind === 'document'
            ? t.name.toLowerCase() === doc.name.toLowerCase()
            : t.kind === 'label' && (doc.labels ?? []).some((l) => l.toLowerCase() === t.name.toLowerCase()),
        );
        expect(ids.has(doc.id), `seed ${seed}: ${JSON.stringify(text)} doc ${doc.name}`).toBe(expected);
      }
      // No known token at all → nothing is referenced.
      if (tokens.length === 0) expect(ids.size).toBe(0);
    }
  });

  it('token count is ceil(length / 4) and never below length / 4', () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const text = randomText(rng(seed), 200);
      const n = estimateTokens(text);
      expect(n).toBe(Math.ceil(text.length / 4));
      expect(n * 4).toBeGreaterThanOrEqual(text.length);
      expect((n - 1) * 4).toBeLessThan(Math.max(text.length, 1));
    }
  });

  it('choosing a suggestion leaves a known reference and the caret after the space', () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = rng(seed);
      const text = `${randomText(r, 20)} @${randomText(r, 5, ['S', 'y', 'l'])}`;
      const caret = text.length;
      const active = activeQuery(text, caret);
      expect(active, JSON.stringify(text)).not.toBeNull();
      const result = applySuggestion(text, active!, 'Syllabus');
      expect(result.text.slice(0, result.caret).endsWith('@Syllabus ')).toBe(true);
      const token = findReferences(result.text, { documents: ['Syllabus'], labels: [] }).find((t) => t.start === active!.start);
      expect(token).toMatchObject({ name: 'Syllabus', known: true });
    }
  });
});
