import { describe, expect, it } from 'vitest';
import { filterTransactions, TRANSACTION_FILTER_OPTIONS } from './filter';
import type { Transaction } from './types';

const items: Transaction[] = [
  { id: '1', amount: 25, type: 'deposit', provider: 'stripe', description: 'Wallet top-up via Stripe' },
  { id: '2', amount: 4, type: 'income', provider: 'marketplace', description: 'Subscriber payment' },
  { id: '3', amount: 1.5, type: 'expense', provider: 'usage', description: 'Agent interaction: TUTOR' },
  { id: '4', amount: 0, type: 'deposit', provider: 'stripe', description: 'Zero top-up' },
  { id: '5', amount: 2, type: 'expense', provider: 'stripe', description: null },
];
const ids = (list: Transaction[]) => list.map((tx) => tx.id);

describe('filterTransactions', () => {
  it('offers the spec options in order', () => {
    expect(TRANSACTION_FILTER_OPTIONS.map((o) => o.label)).toEqual(['All Types', 'Income', 'Expense', 'Balance Update']);
  });

  it('keeps everything for All Types and an empty search', () => {
    expect(ids(filterTransactions(items, '', 'all'))).toEqual(['1', '2', '3', '4', '5']);
  });

  it('matches the type for Income and Expense', () => {
    expect(ids(filterTransactions(items, '', 'income'))).toEqual(['2']);
    expect(ids(filterTransactions(items, '', 'expense'))).toEqual(['3', '5']);
  });

  it("Balance Update = provider stripe with an amount above 0, whatever the type", () => {
    expect(ids(filterTransactions(items, '', 'balance_update'))).toEqual(['1', '5']);
  });

  it('searches descriptions case-insensitively as a substring', () => {
    expect(ids(filterTransactions(items, 'TOP-UP', 'all'))).toEqual(['1', '4']);
    expect(ids(filterTransactions(items, 'tutor', 'all'))).toEqual(['3']);
    expect(ids(filterTransactions(items, 'n/a', 'all'))).toEqual([]);
  });

  it('combines search and type', () => {
    expect(ids(filterTransactions(items, 'top-up', 'balance_update'))).toEqual(['1']);
    expect(ids(filterTransactions(items, 'payment', 'expense'))).toEqual([]);
  });
});
