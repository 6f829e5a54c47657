import { describe, expect, it } from 'vitest';
import { spendControlsSchema, toBillingSettings, toFormValues, type SpendControlsValues } from './billing-settings';

const base: SpendControlsValues = {
  monthlyLimit: null,
  lowBalanceThreshold: null,
  autoRecharge: { enabled: false, threshold: null, amount: null },
  hasCard: false,
};

function issues(values: SpendControlsValues) {
  const r = spendControlsSchema.safeParse(values);
  return r.success ? {} : Object.fromEntries(r.error.issues.map((i) => [i.path.join('.'), i.message]));
}

describe('spend controls validation (mirrors the server)', () => {
  it('accepts nothing set, and amounts from $0.50 to $10,000', () => {
    expect(issues(base)).toEqual({});
    expect(issues({ ...base, monthlyLimit: 0.5, lowBalanceThreshold: 10_000 })).toEqual({});
    expect(
      issues({ ...base, hasCard: true, autoRecharge: { enabled: true, threshold: 5, amount: 20 } }),
    ).toEqual({});
  });

  it('rejects amounts below $0.50 or above $10,000, naming the field', () => {
    expect(issues({ ...base, monthlyLimit: 0.49, lowBalanceThreshold: 10_000.01 })).toEqual({
      monthlyLimit: 'Monthly spending limit must be at least $0.50',
      lowBalanceThreshold: 'Low-balance threshold must be at most $10,000.00',
    });
    expect(issues({ ...base, monthlyLimit: 0 })).toEqual({ monthlyLimit: 'Monthly spending limit must be at least $0.50' });
    expect(issues({ ...base, autoRecharge: { enabled: false, threshold: -1, amount: 0 } })).toEqual({
      'autoRecharge.threshold': 'Auto-recharge threshold must be at least $0.50',
      'autoRecharge.amount': 'Auto-recharge top-up must be at least $0.50',
    });
  });

  it('needs a threshold, an amount and a saved card to turn auto-recharge on', () => {
    expect(issues({ ...base, autoRecharge: { enabled: true, threshold: null, amount: null } })).toEqual({
      'autoRecharge.threshold': 'Enter the balance that starts a recharge.',
      'autoRecharge.amount': 'Enter how much to add.',
      'autoRecharge.enabled': 'Save a card to turn on auto-recharge.',
    });
    // Off: blank values are fine.
    expect(issues({ ...base, autoRecharge: { enabled: false, threshold: null, amount: 20 } })).toEqual({});
  });

  it('converts from and to the API shape, rounding to cents', () => {
    expect(toFormValues(undefined, false)).toEqual(base);
    const settings = { monthlyLimit: 50, lowBalanceThreshold: null, autoRecharge: { enabled: true, threshold: 5, amount: 20 } };
    expect(toFormValues(settings, true)).toEqual({ ...settings, hasCard: true });
    expect(
      toBillingSettings({ ...base, monthlyLimit: 12.345, autoRecharge: { enabled: true, threshold: 5.001, amount: 20 }, hasCard: true }),
    ).toEqual({ monthlyLimit: 12.35, lowBalanceThreshold: null, autoRecharge: { enabled: true, threshold: 5, amount: 20 } });
  });
});
