import { describe, expect, it } from 'vitest';
import {
  CAP_TEXTS,
  defaultCapSchema,
  subscriberCapLabel,
  subscriberCapSchema,
  subscriberCapValues,
  toDefaultCapCents,
  toSubscriberCapPayload,
} from './caps';

const issues = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  result.success ? [] : result.error!.issues.map((i) => [i.path.join('.'), i.message]);

describe('subscriberCapLabel', () => {
  it('names the default with its amount, or no cap', () => {
    expect(subscriberCapLabel({ capMode: 'default', monthlyCapCents: null, effectiveCapCents: 500 }, 500)).toBe('Default ($5.00)');
    expect(subscriberCapLabel({ capMode: 'default', monthlyCapCents: null, effectiveCapCents: null }, null)).toBe('Default (no cap)');
    // The server's effective cap wins over the agent's (possibly stale) default.
    expect(subscriberCapLabel({ capMode: 'default', monthlyCapCents: null, effectiveCapCents: 1250 }, 500)).toBe('Default ($12.50)');
    // An older response without the cap fields reads as the default.
    expect(subscriberCapLabel({}, 10_000_000)).toBe('Default ($100,000.00)');
    expect(subscriberCapLabel({}, undefined)).toBe('Default (no cap)');
  });

  it('shows No cap and a custom amount', () => {
    expect(subscriberCapLabel({ capMode: 'none', monthlyCapCents: null, effectiveCapCents: null }, 500)).toBe('No cap');
    expect(subscriberCapLabel({ capMode: 'custom', monthlyCapCents: 200, effectiveCapCents: 200 }, 500)).toBe('$2.00');
    expect(subscriberCapLabel({ capMode: 'custom', monthlyCapCents: 1, effectiveCapCents: 1 }, null)).toBe('$0.01');
  });
});

describe('defaultCapSchema', () => {
  it('refuses zero, negative and too large amounts with the server message', () => {
    for (const cap of [0, -5, 0.004, 100_000.01, 1e9, Number.NaN]) {
      expect(issues(defaultCapSchema.safeParse({ cap })), String(cap)).toEqual([['cap', CAP_TEXTS.range]]);
    }
    expect(CAP_TEXTS.range).toBe('Enter a monthly cap between $0.01 and $100,000.00, or leave it empty for no cap.');
  });

  it('accepts empty (no cap) and $0.01 … $100,000.00, sent in cents', () => {
    expect(toDefaultCapCents(defaultCapSchema.parse({ cap: null }))).toBeNull();
    expect(toDefaultCapCents(defaultCapSchema.parse({ cap: 0.01 }))).toBe(1);
    expect(toDefaultCapCents(defaultCapSchema.parse({ cap: 5 }))).toBe(500);
    expect(toDefaultCapCents(defaultCapSchema.parse({ cap: 19.99 }))).toBe(1999);
    expect(toDefaultCapCents(defaultCapSchema.parse({ cap: 100_000 }))).toBe(10_000_000);
  });
});

describe('subscriberCapSchema', () => {
  it('needs a valid amount only for a custom cap', () => {
    expect(issues(subscriberCapSchema.safeParse({ mode: 'custom', amount: null }))).toEqual([['amount', CAP_TEXTS.customRequired]]);
    expect(issues(subscriberCapSchema.safeParse({ mode: 'custom', amount: 0 }))).toEqual([['amount', CAP_TEXTS.range]]);
    expect(issues(subscriberCapSchema.safeParse({ mode: 'custom', amount: -1 }))).toEqual([['amount', CAP_TEXTS.range]]);
    expect(issues(subscriberCapSchema.safeParse({ mode: 'custom', amount: 100_001 }))).toEqual([['amount', CAP_TEXTS.range]]);
    expect(issues(subscriberCapSchema.safeParse({ mode: 'none', amount: -1 }))).toEqual([]);
    expect(issues(subscriberCapSchema.safeParse({ mode: 'default', amount: null }))).toEqual([]);
    expect(issues(subscriberCapSchema.safeParse({ mode: 'other', amount: null }))).toEqual([['mode', CAP_TEXTS.mode]]);
  });

  it('sends monthlyCapCents only for a custom cap', () => {
    expect(toSubscriberCapPayload({ mode: 'default', amount: 3 })).toEqual({ capMode: 'default' });
    expect(toSubscriberCapPayload({ mode: 'none', amount: null })).toEqual({ capMode: 'none' });
    expect(toSubscriberCapPayload({ mode: 'custom', amount: 2 })).toEqual({ capMode: 'custom', monthlyCapCents: 200 });
    expect(toSubscriberCapPayload({ mode: 'custom', amount: 0.29 })).toEqual({ capMode: 'custom', monthlyCapCents: 29 });
  });

  it('starts from the saved cap', () => {
    expect(subscriberCapValues({ capMode: 'custom', monthlyCapCents: 250 })).toEqual({ mode: 'custom', amount: 2.5 });
    expect(subscriberCapValues({ capMode: 'none', monthlyCapCents: null })).toEqual({ mode: 'none', amount: null });
    expect(subscriberCapValues({})).toEqual({ mode: 'default', amount: null });
  });
});
