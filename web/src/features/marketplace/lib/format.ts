import { formatMoneyMicros, formatUsd } from '@/features/wallet';
import type { MarketplaceAgent } from '../types';

/**
 * Dollars from micro-dollars, readable below a cent: the wallet's '$12.50' from a cent up, else the first
 * significant digit ('$0.004', '$0.0005', down to '$0.000001'). Rounded half up with integers.
 * (The wallet's formatMoneyMicros: one formatter for every amount that must never read '$0.00'.)
 */
export function formatMicros(micros: number): string {
  return formatMoneyMicros(Math.max(0, Math.round(Number.isFinite(micros) ? micros : 0)));
}

/** Cents as dollars: 50 → '$0.50'. */
export function formatCents(cents: number): string {
  return formatUsd((Number.isFinite(cents) ? cents : 0) / 100);
}

/** 4000 → '4,000'. */
export function formatCount(n: number): string {
  return Math.max(0, Math.round(Number.isFinite(n) ? n : 0)).toLocaleString('en-US');
}

/** 'about $0.004 per answer'. */
export function answerPriceText(agent: Pick<MarketplaceAgent, 'typicalAnswerMicros'>): string {
  return `about ${formatMicros(agent.typicalAnswerMicros)} per answer`;
}

/** '$0.50 to start a conversation', or '' when starting one is free. */
export function greetingCostText(agent: Pick<MarketplaceAgent, 'greetingCostCents'>): string {
  return agent.greetingCostCents > 0 ? `${formatCents(agent.greetingCostCents)} to start a conversation` : '';
}

/** 'remembers about 4,000 tokens', or that it keeps nothing of the conversation in mind. */
export function memoryText(agent: Pick<MarketplaceAgent, 'memoryTokens'>): string {
  return agent.memoryTokens > 0
    ? `remembers about ${formatCount(agent.memoryTokens)} tokens`
    : 'does not remember earlier messages';
}

/** The profile's pricing in words: 'about $0.004 per answer · $0.50 to start a conversation · remembers about 4,000 tokens'. */
export function pricingWords(agent: Pick<MarketplaceAgent, 'typicalAnswerMicros' | 'greetingCostCents' | 'memoryTokens'>): string {
  return [answerPriceText(agent), greetingCostText(agent), memoryText(agent)].filter(Boolean).join(' · ');
}

/** '1 answer', '1,234 answers'. */
export function answersText(answers: number): string {
  return `${formatCount(answers)} ${answers === 1 ? 'answer' : 'answers'}`;
}

/** 'No ratings yet', '4.5 (1 rating)', '4.5 (12 ratings)'. */
export function ratingText(rating: { average: number; count: number }): string {
  if (!rating.count) return 'No ratings yet';
  return `${rating.average.toFixed(1)} (${formatCount(rating.count)} ${rating.count === 1 ? 'rating' : 'ratings'})`;
}

/** The stars' accessible name: 'Rated 4.5 out of 5 by 12 people', or 'No ratings yet'. */
export function ratingLabel(rating: { average: number; count: number }): string {
  if (!rating.count) return 'No ratings yet';
  return `Rated ${rating.average.toFixed(1)} out of 5 by ${formatCount(rating.count)} ${rating.count === 1 ? 'person' : 'people'}`;
}
