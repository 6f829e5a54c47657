import { describe, expect, it } from 'vitest';
import { MAX_QUERY_LENGTH, QUERY_REQUIRED_MESSAGE, QUERY_TOO_LONG_MESSAGE, passagePreview, queryError } from './knowledge-query';

describe('Test retrieval question', () => {
  it('must be non-empty and at most 1,000 characters once trimmed', () => {
    expect(queryError('')).toBe(QUERY_REQUIRED_MESSAGE);
    expect(queryError(' \n\t ')).toBe(QUERY_REQUIRED_MESSAGE);
    expect(queryError('What is due in week 1?')).toBeNull();
    expect(queryError('a'.repeat(MAX_QUERY_LENGTH))).toBeNull();
    expect(queryError(`  ${'a'.repeat(MAX_QUERY_LENGTH)}  `)).toBeNull();
    expect(queryError('a'.repeat(MAX_QUERY_LENGTH + 1))).toBe(QUERY_TOO_LONG_MESSAGE);
    // Characters, not UTF-16 units: 1,000 emoji are allowed.
    expect(queryError('😀'.repeat(MAX_QUERY_LENGTH))).toBeNull();
    expect(queryError('😀'.repeat(MAX_QUERY_LENGTH + 1))).toBe(QUERY_TOO_LONG_MESSAGE);
  });

  it('cuts long passages at a word boundary', () => {
    expect(passagePreview('short text', 20)).toBeNull();
    expect(passagePreview('exactly twenty chars', 20)).toBeNull();
    expect(passagePreview('one two three four five six', 20)).toBe('one two three four…');
    expect(passagePreview('x'.repeat(30), 20)).toBe(`${'x'.repeat(20)}…`);
  });
});
