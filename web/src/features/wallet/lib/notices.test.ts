import { describe, expect, it } from 'vitest';
import type { BalanceDetails } from '../api/billing';
import { balanceNotices } from './notices';

const ok: BalanceDetails = {
  balance: 20,
  held: 0,
  available: 20,
  debt: 0,
  monthUsage: 0,
  monthlyLimit: null,
  lowBalanceThreshold: null,
  lowBalance: false,
  limitWarning: null,
  autoRecharge: null,
};

describe('balance notices', () => {
  it('has none when all is well or nothing is known', () => {
    expect(balanceNotices(ok)).toEqual([]);
    expect(balanceNotices(undefined)).toEqual([]);
  });

  it('shows the debt first, in the agreed words', () => {
    const n = balanceNotices({ ...ok, balance: 0, available: 0, debt: 7.5, lowBalance: true, lowBalanceThreshold: 5 });
    expect(n.map((x) => x.kind)).toEqual(['debt', 'low_balance']);
    expect(n[0]).toMatchObject({ type: 'error', message: 'You owe $7.50 after a refund; your next top-up pays it first.' });
    expect(n[1]).toMatchObject({ type: 'warning', message: 'Your balance is low: $0.00 available, below your $5.00 threshold.' });
  });

  it('warns at 80% and 100% of the monthly limit', () => {
    expect(balanceNotices({ ...ok, monthlyLimit: 10, monthUsage: 8.5, limitWarning: 'limit_80' })[0]).toMatchObject({
      kind: 'limit_80',
      type: 'warning',
      message: 'You have used 85% of your monthly spending limit ($8.50 of $10.00).',
    });
    expect(balanceNotices({ ...ok, monthlyLimit: 10, monthUsage: 10, limitWarning: 'limit_100' })[0]).toMatchObject({
      kind: 'limit_100',
      type: 'error',
      message: 'You have reached your monthly spending limit ($10.00 of $10.00).',
    });
    // Without the figures (an older wallet): still a clear sentence.
    expect(balanceNotices({ ...ok, monthUsage: null, limitWarning: 'limit_80' })[0]!.message).toBe(
      'You have used 80% of your monthly spending limit.',
    );
  });

  it('reports auto-recharge problems only when asked (the dashboard)', () => {
    const auto = {
      enabled: false,
      threshold: 5,
      amount: 20,
      hasCard: true,
      cardLabel: 'Visa •••• 4242',
      disabledReason: 'Your card was declined 3 times in a row.',
      lastFailure: 'Your card was declined.',
      inFlight: false,
    };
    expect(balanceNotices({ ...ok, autoRecharge: auto })).toEqual([]);
    expect(balanceNotices({ ...ok, autoRecharge: auto }, { autoRecharge: true })).toEqual([
      { kind: 'auto_recharge_off', type: 'warning', message: 'Auto-recharge was turned off.', description: auto.disabledReason },
    ]);
    expect(
      balanceNotices({ ...ok, autoRecharge: { ...auto, enabled: true, disabledReason: null } }, { autoRecharge: true })[0],
    ).toMatchObject({ kind: 'auto_recharge_failed', description: 'Your card was declined.' });
  });
});

describe('sub-cent amounts in notices (issue 29)', () => {
  it('never shows $0.00 for an amount that is not zero', () => {
    const n = balanceNotices({ ...ok, balance: 0.0003, available: 0.0003, lowBalance: true, lowBalanceThreshold: 5 });
    expect(n[0]).toMatchObject({ message: 'Your balance is low: $0.0003 available, below your $5.00 threshold.' });
  });
});
