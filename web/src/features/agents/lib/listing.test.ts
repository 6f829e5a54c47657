import { describe, expect, it } from 'vitest';
import { LISTING_MESSAGES, listingValuesOf, toListingPayload, validateListing } from './listing';

describe('marketplace listing settings', () => {
  it("starts from the agent's values, or the catalog's defaults", () => {
    expect(listingValuesOf({})).toEqual({
      markupPercent: 20,
      greetingCost: 0,
      greeting: '',
      memoryTokens: 4000,
      showSources: true,
    });
    expect(
      listingValuesOf({ markupPercent: 35, greetingCostCents: 50, greeting: 'Hi!', memoryTokens: 0, showSources: false }),
    ).toEqual({ markupPercent: 35, greetingCost: 0.5, greeting: 'Hi!', memoryTokens: 0, showSources: false });
  });

  it('accepts the bounds and sends the greeting cost in cents', () => {
    const values = { markupPercent: 300, greetingCost: 5, greeting: 'x'.repeat(500), memoryTokens: 32_000, showSources: false };
    expect(validateListing(values)).toEqual({});
    expect(toListingPayload(values)).toEqual({
      markupPercent: 300,
      greetingCostCents: 500,
      greeting: 'x'.repeat(500),
      memoryTokens: 32_000,
      showSources: false,
    });
    expect(toListingPayload({ ...values, greetingCost: 0.29 }).greetingCostCents).toBe(29);
    expect(validateListing({ ...values, markupPercent: 0, greetingCost: 0, greeting: '', memoryTokens: 0 })).toEqual({});
  });

  it('names every value out of bounds with the catalog message', () => {
    expect(
      validateListing({ markupPercent: 301, greetingCost: 5.01, greeting: 'x'.repeat(501), memoryTokens: 32_001, showSources: true }),
    ).toEqual({
      markupPercent: LISTING_MESSAGES.markupPercent,
      greetingCostCents: LISTING_MESSAGES.greetingCost,
      greeting: LISTING_MESSAGES.greeting,
      memoryTokens: LISTING_MESSAGES.memoryTokens,
    });
    expect(validateListing({ markupPercent: null, greetingCost: null, greeting: '', memoryTokens: 2.5, showSources: true })).toEqual({
      markupPercent: LISTING_MESSAGES.markupPercent,
      greetingCostCents: LISTING_MESSAGES.greetingCost,
      memoryTokens: LISTING_MESSAGES.memoryTokens,
    });
    expect(validateListing({ markupPercent: -1, greetingCost: -0.01, greeting: '', memoryTokens: -1, showSources: true })).toHaveProperty(
      'markupPercent',
    );
  });
});
