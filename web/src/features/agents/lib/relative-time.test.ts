import { describe, expect, it } from 'vitest';
import { formatJoined } from './relative-time';

const now = new Date('2026-03-31T12:00:00Z');
const daysAgo = (n: number, extraHours = 0) => new Date(now.getTime() - (n * 24 + extraHours) * 3600 * 1000);

describe('formatJoined (spec §9: days < 7, weeks < 30, else 30-day months)', () => {
  it('uses days under 7 days', () => {
    // Less than a day: 'today', never '0 days ago' (issue 29).
    expect(formatJoined(daysAgo(0), now)).toBe('today');
    expect(formatJoined(daysAgo(0, 23), now)).toBe('today');
    expect(formatJoined(daysAgo(1), now)).toBe('1 day ago');
    expect(formatJoined(daysAgo(6, 23), now)).toBe('6 days ago');
  });

  it('uses whole weeks from 7 up to 29 days', () => {
    expect(formatJoined(daysAgo(7), now)).toBe('1 week ago');
    expect(formatJoined(daysAgo(13), now)).toBe('1 week ago');
    expect(formatJoined(daysAgo(14), now)).toBe('2 weeks ago');
    expect(formatJoined(daysAgo(29), now)).toBe('4 weeks ago');
  });

  it('uses 30-day months from 30 days on', () => {
    expect(formatJoined(daysAgo(30), now)).toBe('1 month ago');
    expect(formatJoined(daysAgo(59), now)).toBe('1 month ago');
    expect(formatJoined(daysAgo(60), now)).toBe('2 months ago');
    expect(formatJoined(daysAgo(365), now)).toBe('12 months ago');
  });

  it('accepts ISO strings, clamps future dates and ignores garbage', () => {
    expect(formatJoined('2026-03-24T12:00:00Z', now)).toBe('1 week ago');
    expect(formatJoined('2026-04-05T00:00:00Z', now)).toBe('today');
    expect(formatJoined('not a date', now)).toBe('');
  });
});
