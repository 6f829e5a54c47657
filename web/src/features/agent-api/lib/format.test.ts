import { describe, expect, it } from 'vitest';
import { formatDate, formatUsd, isExpired, tomorrow, validateKeyForm } from './format';

describe('format', () => {
  it('formats dollars with a significant digit below a cent', () => {
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(5)).toBe('$5.00');
    expect(formatUsd(12.345)).toBe('$12.35');
    expect(formatUsd(0.0012)).toBe('$0.0012');
    expect(formatUsd(0.000118)).toBe('$0.0001');
    expect(formatUsd(0.000004)).toBe('$0.000004');
  });

  it('formats dates and knows expiry', () => {
    expect(formatDate(null)).toBe('Never');
    expect(formatDate(null, '—')).toBe('—');
    expect(formatDate('2026-11-23T12:00:00Z')).toBe('Nov 23, 2026');
    const now = new Date('2026-11-23T12:00:00Z');
    expect(isExpired('2026-11-23T11:59:59Z', now)).toBe(true);
    expect(isExpired('2026-11-24T00:00:00Z', now)).toBe(false);
    expect(isExpired(null, now)).toBe(false);
    expect(tomorrow(new Date(2026, 11, 31, 15))).toBe('2027-01-01');
  });

  it('validates the create form', () => {
    const now = new Date(2026, 10, 23, 12);
    expect(validateKeyForm({ name: 'Bot', expiresOn: '', monthlyLimit: null }, now)).toEqual({});
    expect(validateKeyForm({ name: 'Bot', expiresOn: '2026-11-24', monthlyLimit: 5 }, now)).toEqual({});
    expect(validateKeyForm({ name: '  ', expiresOn: '', monthlyLimit: null }, now).name).toBe('Give the key a name.');
    expect(validateKeyForm({ name: 'x'.repeat(101), expiresOn: '', monthlyLimit: null }, now).name).toMatch(/100/);
    expect(validateKeyForm({ name: 'Bot', expiresOn: '2026-11-23', monthlyLimit: null }, now).expiresOn).toMatch(/future/);
    expect(validateKeyForm({ name: 'Bot', expiresOn: '', monthlyLimit: 0 }, now).monthlyLimit).toMatch(/more than/);
    expect(validateKeyForm({ name: 'Bot', expiresOn: '', monthlyLimit: 2_000_000 }, now).monthlyLimit).toMatch(/at most/);
  });
});
