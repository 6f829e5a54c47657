/**
 * The Settings tab's Marketplace section (issue 27 "Publishing"): the listing fields of a public agent, their
 * bounds (the catalog's rules and messages) and the PATCH /api/agents/{id} members they become.
 */
import type { Agent, ListingPayload } from '../types';

export const LISTING_DEFAULTS = {
  markupPercent: 20,
  greetingCostCents: 0,
  greeting: '',
  memoryTokens: 4000,
  showSources: true,
} as const;

export const MAX_MARKUP_PERCENT = 300;
export const MAX_GREETING_COST_CENTS = 500;
export const MAX_GREETING_LENGTH = 500;
export const MAX_MEMORY_TOKENS = 32_000;

/** The catalog's field messages (docs/catalog.md); the greeting cost is typed in dollars here. */
export const LISTING_MESSAGES = {
  markupPercent: 'Markup must be a whole number from 0 to 300 percent.',
  greetingCost: 'Greeting cost must be from $0.00 to $5.00.',
  greeting: 'The greeting can be at most 500 characters.',
  memoryTokens: 'Memory must be a whole number of tokens from 0 to 32,000.',
} as const;

export const SLUG_PENDING_TEXT = 'Assigned when you publish';

/** The section's values as the editor holds them; a cleared number field is null. */
export interface ListingValues {
  markupPercent: number | null;
  /** Dollars, as typed. */
  greetingCost: number | null;
  greeting: string;
  memoryTokens: number | null;
  showSources: boolean;
}

/** The agent's listing values, or the catalog's defaults where the agent has none. */
export function listingValuesOf(agent: Partial<Pick<Agent, keyof ListingPayload>>): ListingValues {
  return {
    markupPercent: agent.markupPercent ?? LISTING_DEFAULTS.markupPercent,
    greetingCost: (agent.greetingCostCents ?? LISTING_DEFAULTS.greetingCostCents) / 100,
    greeting: agent.greeting ?? LISTING_DEFAULTS.greeting,
    memoryTokens: agent.memoryTokens ?? LISTING_DEFAULTS.memoryTokens,
    showSources: agent.showSources ?? LISTING_DEFAULTS.showSources,
  };
}

const isWhole = (n: number | null): n is number => n !== null && Number.isInteger(n);

/** Dollars (as typed) to whole cents. */
export function toCents(dollars: number): number {
  return Math.round(dollars * 100);
}

/**
 * The section's problems, keyed by the PATCH field they belong to (markupPercent, greetingCostCents,
 * greeting, memoryTokens); empty when every value is within bounds.
 */
export function validateListing(values: ListingValues): Partial<Record<keyof ListingPayload, string>> {
  const errors: Partial<Record<keyof ListingPayload, string>> = {};
  if (!isWhole(values.markupPercent) || values.markupPercent < 0 || values.markupPercent > MAX_MARKUP_PERCENT) {
    errors.markupPercent = LISTING_MESSAGES.markupPercent;
  }
  const cost = values.greetingCost;
  if (cost === null || !Number.isFinite(cost) || toCents(cost) < 0 || toCents(cost) > MAX_GREETING_COST_CENTS) {
    errors.greetingCostCents = LISTING_MESSAGES.greetingCost;
  }
  if (values.greeting.length > MAX_GREETING_LENGTH) errors.greeting = LISTING_MESSAGES.greeting;
  if (!isWhole(values.memoryTokens) || values.memoryTokens < 0 || values.memoryTokens > MAX_MEMORY_TOKENS) {
    errors.memoryTokens = LISTING_MESSAGES.memoryTokens;
  }
  return errors;
}

/** The PATCH members of valid values (validateListing found nothing). */
export function toListingPayload(values: ListingValues): ListingPayload {
  return {
    markupPercent: values.markupPercent ?? LISTING_DEFAULTS.markupPercent,
    greetingCostCents: toCents(values.greetingCost ?? 0),
    greeting: values.greeting,
    memoryTokens: values.memoryTokens ?? LISTING_DEFAULTS.memoryTokens,
    showSources: values.showSources,
  };
}
