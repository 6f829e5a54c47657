import { describe, expect, it } from 'vitest';
import {
  canLoadMore,
  initialTransactionsState,
  isNearBottom,
  transactionsReducer,
  transactionsStatus,
  type TransactionsState,
} from './pagination';
import type { Transaction } from './types';

const tx = (id: string): Transaction => ({ id, amount: 1, type: 'deposit', provider: 'stripe', description: id });
const run = (state: TransactionsState, ...actions: Parameters<typeof transactionsReducer>[1][]) =>
  actions.reduce(transactionsReducer, state);

describe('transactionsReducer', () => {
  it('replaces the list with the first page and appends later pages', () => {
    let s = run(initialTransactionsState, { type: 'start', request: 1, reset: true });
    expect(s).toMatchObject({ loading: true, offset: 0, hasMore: true });
    s = run(s, { type: 'success', request: 1, page: { items: [tx('a'), tx('b')], hasMore: true, snapshot: 'snap1' } });
    expect(s).toMatchObject({ loading: false, offset: 2, hasMore: true, snapshot: 'snap1', loaded: true });
    s = run(
      s,
      { type: 'start', request: 2, reset: false },
      { type: 'success', request: 2, page: { items: [tx('c')], hasMore: false, snapshot: 'other' } },
    );
    expect(s.items.map((t) => t.id)).toEqual(['a', 'b', 'c']);
    expect(s).toMatchObject({ offset: 3, hasMore: false, snapshot: 'snap1' });

    // Refresh starts over: offset, has-more and snapshot reset; the first page replaces.
    s = run(s, { type: 'start', request: 3, reset: true });
    expect(s).toMatchObject({ offset: 0, hasMore: true, snapshot: null, loading: true });
    expect(s.items).toHaveLength(3); // kept on screen until the page arrives
    s = run(s, { type: 'success', request: 3, page: { items: [tx('z')], hasMore: true, snapshot: 'snap2' } });
    expect(s.items.map((t) => t.id)).toEqual(['z']);
    expect(s).toMatchObject({ offset: 1, snapshot: 'snap2' });
  });

  it('ignores the answer of a superseded request', () => {
    let s = run(
      initialTransactionsState,
      { type: 'start', request: 1, reset: true },
      { type: 'success', request: 1, page: { items: [tx('a')], hasMore: true, snapshot: null } },
      { type: 'start', request: 2, reset: false },
      { type: 'start', request: 3, reset: true },
    );
    s = run(s, { type: 'success', request: 2, page: { items: [tx('old')], hasMore: false, snapshot: null } });
    expect(s).toMatchObject({ loading: true, pending: 3 });
    s = run(s, { type: 'failure', request: 2 });
    expect(s).toMatchObject({ loading: true, hasMore: true });
    s = run(s, { type: 'success', request: 3, page: { items: [tx('new')], hasMore: true, snapshot: null } });
    expect(s.items.map((t) => t.id)).toEqual(['new']);
  });

  it('sets has-more to false on a failure (silent)', () => {
    const s = run(
      initialTransactionsState,
      { type: 'start', request: 1, reset: true },
      { type: 'failure', request: 1 },
    );
    expect(s).toMatchObject({ hasMore: false, loading: false, loaded: true, items: [] });
    expect(canLoadMore(s)).toBe(false);
  });
});

describe('canLoadMore', () => {
  it('needs more pages and nothing loading', () => {
    expect(canLoadMore({ ...initialTransactionsState, hasMore: true, loading: false })).toBe(true);
    expect(canLoadMore({ ...initialTransactionsState, hasMore: true, loading: true })).toBe(false);
    expect(canLoadMore({ ...initialTransactionsState, hasMore: false, loading: false })).toBe(false);
  });
});

describe('isNearBottom', () => {
  it('is true within 50px of the bottom', () => {
    expect(isNearBottom({ scrollHeight: 1000, clientHeight: 500, scrollTop: 450 }, 50)).toBe(true);
    expect(isNearBottom({ scrollHeight: 1000, clientHeight: 500, scrollTop: 449 }, 50)).toBe(false);
    expect(isNearBottom({ scrollHeight: 1000, clientHeight: 500, scrollTop: 500 }, 50)).toBe(true);
  });
});

describe('transactionsStatus', () => {
  const loaded: TransactionsState = { ...initialTransactionsState, loaded: true };
  it('shows the spec lines', () => {
    expect(transactionsStatus(initialTransactionsState)).toBeNull();
    expect(transactionsStatus({ ...initialTransactionsState, loading: true })).toBe('Loading more transactions...');
    expect(transactionsStatus({ ...loaded, items: [], hasMore: false })).toBe('No transactions found.');
    expect(transactionsStatus({ ...loaded, items: [tx('a')], hasMore: false })).toBe('No more transactions to load.');
    expect(transactionsStatus({ ...loaded, items: [tx('a')], hasMore: true })).toBeNull();
  });

  it("says 'No transactions found.' when the filter hides every row", () => {
    expect(transactionsStatus({ ...loaded, items: [tx('a')], hasMore: false }, 0)).toBe('No transactions found.');
  });
});
