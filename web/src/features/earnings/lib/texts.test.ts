import { describe, expect, it } from 'vitest';
import { transferSchema, withdrawSchema } from './schemas';
import { durationText, holdText, payoutAccountAction, payoutAccountText } from './texts';
import { hasListedAgent } from './listed';
import { earningsChartSummary, earningsColumnRows, lastUtcDays } from './series';

describe('hold wording', () => {
  it('words the hold from holdSeconds', () => {
    expect(durationText(604_800)).toBe('7 days');
    expect(durationText(86_400)).toBe('1 day');
    expect(durationText(60)).toBe('1 minute');
    expect(durationText(7_200)).toBe('2 hours');
    expect(durationText(90)).toBe('90 seconds');
    expect(holdText(604_800)).toMatch(/^Earnings become available 7 days after each answer/);
  });
});

describe('payout account', () => {
  it('says its state and offers the right button', () => {
    expect(payoutAccountAction('none')).toBe('Set up payouts');
    expect(payoutAccountAction('onboarding')).toBe('Continue setup');
    expect(payoutAccountAction('restricted')).toBe('Continue setup');
    expect(payoutAccountAction('enabled')).toBeNull();
    expect(payoutAccountText('restricted', 'Bank account details are missing.')).toBe(
      'Your payout account cannot receive payouts yet: Bank account details are missing.',
    );
  });
});

describe('withdraw and transfer validation', () => {
  const withdraw = withdrawSchema(25, 10);
  const message = (r: ReturnType<typeof withdraw.safeParse>) => (r.success ? '' : r.error.issues[0]?.message);

  it('needs at least the minimum and at most what is available', () => {
    expect(message(withdraw.safeParse({ amount: null }))).toBe('Enter an amount.');
    expect(message(withdraw.safeParse({ amount: 9.99 }))).toBe('The minimum withdrawal is $10.00.');
    expect(message(withdraw.safeParse({ amount: 25.01 }))).toBe('You have $25.00 available to withdraw.');
    expect(withdraw.safeParse({ amount: 10 }).success).toBe(true);
    expect(withdraw.safeParse({ amount: 25 }).success).toBe(true);
  });

  it('moves at least a cent to the wallet', () => {
    const transfer = transferSchema(0.5);
    expect(message(transfer.safeParse({ amount: 0 }))).toBe('Enter an amount of at least $0.01.');
    expect(message(transfer.safeParse({ amount: 0.51 }))).toBe('You have $0.50 available to transfer.');
    expect(transfer.safeParse({ amount: 0.5 }).success).toBe(true);
  });
});

describe('navigation', () => {
  it('counts an agent as listed when it is public and published', () => {
    expect(hasListedAgent([{ isPublic: true, slug: 'tax-helper', publishedAt: null }])).toBe(true);
    expect(hasListedAgent([{ isPublic: true, slug: null, publishedAt: '2026-01-01T00:00:00Z' }])).toBe(true);
    expect(hasListedAgent([{ isPublic: false, slug: 'tax-helper', publishedAt: '2026-01-01T00:00:00Z' }])).toBe(false);
    expect(hasListedAgent([{ isPublic: true, slug: null, publishedAt: null }])).toBe(false);
    expect(hasListedAgent(undefined)).toBe(false);
  });
});

describe('chart rows', () => {
  it('fills every day × agent and summarises the totals', () => {
    const dates = lastUtcDays(new Date('2026-03-10T12:00:00Z'), 3);
    expect(dates).toEqual(['2026-03-08', '2026-03-09', '2026-03-10']);
    const days = [
      { date: '2026-03-09', agentId: 'a1', name: 'Tax Helper', earned: 1, answers: 10 },
      { date: '2026-03-10', agentId: 'a2', name: 'Math Tutor', earned: 0.0004, answers: 1 },
    ];
    const rows = earningsColumnRows(days, dates);
    expect(rows).toHaveLength(6);
    expect(rows.filter((r) => r.amount > 0).map((r) => `${r.day} ${r.agent}`)).toEqual(['Mar 9 Tax Helper', 'Mar 10 Math Tutor']);
    expect(earningsChartSummary(days, 3)).toBe(
      'Earnings per day for the last 3 days, by agent. Total $1.00: Tax Helper $1.00, Math Tutor $0.0004.',
    );
  });
});
