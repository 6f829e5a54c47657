import type { Transaction, TransactionPage } from './types';

/**
 * Offset-based infinite scroll of the transaction history (spec §4 "Wallet loading").
 * The first page replaces the list, later pages are appended; only the response of the
 * request in flight (`pending`) is applied, so a Refresh supersedes an older load.
 */
export interface TransactionsState {
  items: Transaction[];
  /** Offset of the next page (= number of items received so far). */
  offset: number;
  hasMore: boolean;
  /** True while a page request is in flight. */
  loading: boolean;
  /** Snapshot token returned with the first page; sent with later pages. */
  snapshot: string | null;
  /** Id of the request in flight, or null. */
  pending: number | null;
  /** Whether the in-flight request is a first page (replace) or a next page (append). */
  pendingReset: boolean;
  /** True once a first page has been received or has failed (the empty state may show). */
  loaded: boolean;
}

export const initialTransactionsState: TransactionsState = {
  items: [],
  offset: 0,
  hasMore: true,
  loading: false,
  snapshot: null,
  pending: null,
  pendingReset: false,
  loaded: false,
};

export type TransactionsAction =
  /** A page request starts; `reset` = first page (offset and has-more are reset). */
  | { type: 'start'; request: number; reset: boolean }
  | { type: 'success'; request: number; page: TransactionPage }
  /** Failures are silent: has-more becomes false. */
  | { type: 'failure'; request: number };

export function transactionsReducer(state: TransactionsState, action: TransactionsAction): TransactionsState {
  switch (action.type) {
    case 'start':
      if (action.reset) {
        return { ...state, offset: 0, hasMore: true, snapshot: null, loading: true, pending: action.request, pendingReset: true };
      }
      return { ...state, loading: true, pending: action.request, pendingReset: false };
    case 'success': {
      if (action.request !== state.pending) return state;
      const { page } = action;
      const items = state.pendingReset ? page.items : [...state.items, ...page.items];
      return {
        ...state,
        items,
        offset: state.offset + page.items.length,
        hasMore: page.hasMore,
        snapshot: state.pendingReset ? page.snapshot : (state.snapshot ?? page.snapshot),
        loading: false,
        pending: null,
        pendingReset: false,
        loaded: true,
      };
    }
    case 'failure':
      if (action.request !== state.pending) return state;
      return { ...state, hasMore: false, loading: false, pending: null, pendingReset: false, loaded: true };
    default:
      return state;
  }
}

/** Whether the next page may load: more pages exist and nothing is loading. */
export function canLoadMore(state: TransactionsState): boolean {
  return state.hasMore && !state.loading;
}

/** Whether a scroll container is within `threshold` px of its bottom. */
export function isNearBottom(
  el: Pick<HTMLElement, 'scrollTop' | 'scrollHeight' | 'clientHeight'>,
  threshold: number,
): boolean {
  return el.scrollHeight - el.scrollTop - el.clientHeight <= threshold;
}

/** The status line under the table, if any; `visibleCount` = rows left after the client-side filter. */
export function transactionsStatus(state: TransactionsState, visibleCount: number = state.items.length): string | null {
  if (state.loading) return 'Loading more transactions...';
  if (!state.loaded) return null;
  if (visibleCount === 0) return 'No transactions found.';
  if (!state.hasMore) return 'No more transactions to load.';
  return null;
}
