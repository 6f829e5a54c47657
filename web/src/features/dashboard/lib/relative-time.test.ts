import { describe, expect, it } from 'vitest';
import { relativeTime } from './relative-time';

describe('relativeTime', () => {
  const now = new Date('2026-02-14T12:00:00Z');
  it('uses date-fns distance wording', () => {
    expect(relativeTime('2026-02-14T11:00:00Z', now)).toBe('about 1 hour ago');
    expect(relativeTime('2026-02-11T12:00:00Z', now)).toBe('3 days ago');
    expect(relativeTime('2026-02-14T12:02:00Z', now)).toBe('in 2 minutes');
    expect(relativeTime('not a date', now)).toBe('');
  });
});
