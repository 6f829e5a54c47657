import { describe, expect, it } from 'vitest';
import { formatCents, formatCount, formatGrowth, growthCaption, growthTone } from './format';

describe('growth', () => {
  it('is up/green at zero or more and down/red below zero', () => {
    expect(growthTone(12.5)).toEqual({ direction: 'up', color: 'green' });
    expect(growthTone(0)).toEqual({ direction: 'up', color: 'green' });
    expect(growthTone(-0)).toEqual({ direction: 'up', color: 'green' });
    expect(growthTone(-0.1)).toEqual({ direction: 'down', color: 'red' });
    expect(growthTone(-100)).toEqual({ direction: 'down', color: 'red' });
  });

  it('formats with a sign and one decimal', () => {
    expect(formatGrowth(12.5)).toBe('+12.5%');
    expect(formatGrowth(100)).toBe('+100.0%');
    expect(formatGrowth(0)).toBe('+0.0%');
    expect(formatGrowth(-0.04)).toBe('+0.0%');
    expect(formatGrowth(-3.25)).toBe('-3.2%');
    expect(formatGrowth(-50)).toBe('-50.0%');
    expect(formatGrowth(Number.NaN)).toBe('+0.0%');
    expect(growthCaption(12.5)).toBe('+12.5% from last month');
  });
});

describe('formatCents', () => {
  it('shows cents as dollars with 2 decimals', () => {
    expect(formatCents(1250)).toBe('$12.50');
    expect(formatCents(0)).toBe('$0.00');
    expect(formatCents(5)).toBe('$0.05');
    expect(formatCents(123456789)).toBe('$1,234,567.89');
    // A fraction of a cent (earnings credited per answer) is never shown as $0.00.
    expect(formatCents(0.03)).toBe('$0.0003');
  });

  it('formats counts', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(1234)).toBe('1,234');
  });
});
