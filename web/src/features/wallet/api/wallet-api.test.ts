import { describe, expect, it } from 'vitest';
import { selectBalance, selectTransactionPage, transactionsUrl } from './wallet-api';

describe('wallet api helpers', () => {
  it('reads data.balance', () => {
    expect(selectBalance({ success: true, data: { balance: 12.5 } })).toBe(12.5);
    expect(selectBalance({ success: true, data: { balance: '3.25' } })).toBe(3.25);
    expect(() => selectBalance({ success: true, data: {} })).toThrow();
    expect(() => selectBalance(null)).toThrow();
  });

  it('builds the page URL with the snapshot on later pages', () => {
    expect(transactionsUrl(0, null)).toBe('/api/user/transactions?limit=20&offset=0');
    expect(transactionsUrl(40, 'snap 1')).toBe('/api/user/transactions?limit=20&offset=40&snapshot=snap+1');
  });

  it('reads data.items and data.meta', () => {
    const items = [{ id: 't1', amount: 5, type: 'deposit', provider: 'stripe', description: 'x', date: '2026-01-01T00:00:00Z' }];
    expect(
      selectTransactionPage({ success: true, data: { items, meta: { hasMore: true, limit: 20, offset: 0, snapshot: 1234 } } }),
    ).toEqual({ items, hasMore: true, snapshot: '1234' });
    expect(selectTransactionPage({ success: true, data: { items: [] } })).toEqual({ items: [], hasMore: false, snapshot: null });
    expect(() => selectTransactionPage({ success: true, data: {} })).toThrow();
  });
});
