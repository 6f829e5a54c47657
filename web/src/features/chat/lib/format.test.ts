import { describe, expect, it } from 'vitest';
import { formatCost, formatPriceParts, formatTokens, formatUsage, modelLabel, rateLimitMessage, retryAfterSeconds, titleFromMessage } from './format';

describe('formatCost', () => {
  it('shows dollars with 4 decimals, rounding half up', () => {
    expect(formatCost(900)).toBe('$0.0009');
    expect(formatCost(850)).toBe('$0.0009');
    expect(formatCost(849)).toBe('$0.0008');
    expect(formatCost(1_234_567)).toBe('$1.2346');
    expect(formatCost(12_000_000)).toBe('$12.0000');
    expect(formatCost(1_234_000_000)).toBe('$1,234.0000');
  });

  it('never shows a non-zero amount as $0.0000: more decimals below $0.0001', () => {
    expect(formatCost(100)).toBe('$0.0001');
    expect(formatCost(50)).toBe('$0.0001');
    expect(formatCost(49)).toBe('$0.00005');
    expect(formatCost(37)).toBe('$0.00004');
    expect(formatCost(5)).toBe('$0.00001');
    expect(formatCost(4)).toBe('$0.000004');
    expect(formatCost(1)).toBe('$0.000001');
  });

  it('shows zero as $0.0000', () => {
    expect(formatCost(0)).toBe('$0.0000');
  });
});

describe('formatTokens / formatUsage', () => {
  it('counts input + output tokens', () => {
    expect(formatTokens(812)).toBe('812 tokens');
    expect(formatTokens(1)).toBe('1 token');
    expect(formatTokens(12_345)).toBe('12,345 tokens');
    expect(formatUsage({ inputTokens: 800, outputTokens: 12, totalMicros: 901 })).toBe('812 tokens · $0.0009');
    expect(formatUsage({ inputTokens: 20, outputTokens: 3, totalMicros: 12 })).toBe('23 tokens · $0.00001');
  });
});

describe('modelLabel', () => {
  it('marks the simulator', () => {
    expect(modelLabel('agentic-sim', true)).toBe('Simulated model (agentic-sim)');
    expect(modelLabel('gpt-4o-mini', false)).toBe('Model: gpt-4o-mini');
  });
});

describe('retryAfterSeconds / rateLimitMessage', () => {
  it('reads seconds or an HTTP date', () => {
    expect(retryAfterSeconds('7')).toBe(7);
    expect(retryAfterSeconds('0')).toBe(1);
    expect(retryAfterSeconds('1.2')).toBe(2);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds(null)).toBeUndefined();
    expect(retryAfterSeconds('soon')).toBeUndefined();
  });

  it('builds the message', () => {
    expect(rateLimitMessage(12)).toBe("You're sending messages too fast. Try again in 12 seconds.");
    expect(rateLimitMessage(1)).toBe("You're sending messages too fast. Try again in 1 second.");
    expect(rateLimitMessage(undefined)).toBe("You're sending messages too fast. Try again in a few seconds.");
  });
});

describe('titleFromMessage', () => {
  it('takes the first line, at most 60 characters', () => {
    expect(titleFromMessage('  What is a derivative?\nThanks')).toBe('What is a derivative?');
    const long = 'x'.repeat(100);
    expect(titleFromMessage(long)).toHaveLength(60);
    expect(titleFromMessage(long).endsWith('…')).toBe(true);
    expect(titleFromMessage('   ')).toBe('New conversation');
  });
});

describe('formatPriceParts (marketplace answers)', () => {
  it('lists usage, fee, markup and the greeting cost, never $0.0000 for a non-zero part', () => {
    expect(formatPriceParts({ costMicros: 1000, feeMicros: 30, markupMicros: 200, greetingMicros: 500_000 })).toBe(
      'usage $0.0010 + service fee $0.00003 + markup $0.0002 + greeting $0.5000',
    );
    expect(formatPriceParts({ costMicros: 120, feeMicros: 4, markupMicros: 24 })).toBe(
      'usage $0.0001 + service fee $0.000004 + markup $0.00002',
    );
  });

  it("is empty for an owner's answer (no markup, no greeting)", () => {
    expect(formatPriceParts({ costMicros: 874, feeMicros: 27 })).toBe('');
    expect(formatPriceParts({ costMicros: 874, feeMicros: 27, markupMicros: 0, greetingMicros: 0 })).toBe('');
  });
});
