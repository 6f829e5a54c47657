import { describe, expect, it } from 'vitest';
import { answersText, formatMicros, pricingWords, ratingLabel, ratingText } from './format';

describe('formatMicros', () => {
  it("uses the wallet's dollars from a cent up and shows sub-cent amounts by their first digit", () => {
    expect(formatMicros(0)).toBe('$0.00');
    expect(formatMicros(4_123)).toBe('$0.004');
    expect(formatMicros(4_500)).toBe('$0.005');
    expect(formatMicros(450)).toBe('$0.0005');
    expect(formatMicros(800)).toBe('$0.001');
    expect(formatMicros(1)).toBe('$0.000001');
    expect(formatMicros(9_600)).toBe('$0.01');
    expect(formatMicros(12_500_000)).toBe('$12.50');
    expect(formatMicros(1_234_560_000)).toBe('$1,234.56');
    expect(formatMicros(-5)).toBe('$0.00');
    expect(formatMicros(Number.NaN)).toBe('$0.00');
  });
});

describe('pricing in words', () => {
  it('names the typical answer, the greeting cost when there is one, and the memory', () => {
    expect(pricingWords({ typicalAnswerMicros: 4_200, greetingCostCents: 50, memoryTokens: 4000 })).toBe(
      'about $0.004 per answer · $0.50 to start a conversation · remembers about 4,000 tokens',
    );
    expect(pricingWords({ typicalAnswerMicros: 31_000, greetingCostCents: 0, memoryTokens: 32_000 })).toBe(
      'about $0.03 per answer · remembers about 32,000 tokens',
    );
    expect(pricingWords({ typicalAnswerMicros: 400, greetingCostCents: 0, memoryTokens: 0 })).toBe(
      'about $0.0004 per answer · does not remember earlier messages',
    );
  });

  it('words answers and ratings', () => {
    expect(answersText(1)).toBe('1 answer');
    expect(answersText(1234)).toBe('1,234 answers');
    expect(ratingText({ average: 0, count: 0 })).toBe('No ratings yet');
    expect(ratingText({ average: 4.5, count: 12 })).toBe('4.5 (12 ratings)');
    expect(ratingText({ average: 5, count: 1 })).toBe('5.0 (1 rating)');
    expect(ratingLabel({ average: 4.5, count: 12 })).toBe('Rated 4.5 out of 5 by 12 people');
    expect(ratingLabel({ average: 0, count: 0 })).toBe('No ratings yet');
  });
});
