import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useReducer, useRef } from 'react';
import { useLatest } from '@/lib/use-latest';
import { BALANCE_PATH, fetchTransactions, selectBalance, transactionsUrl } from '../api/wallet-api';
import { BALANCE_STALE_TIME_MS, TRANSACTIONS_STALE_TIME_MS } from '../lib/constants';
import { canLoadMore, initialTransactionsState, transactionsReducer, type TransactionsState } from '../lib/pagination';

export interface WalletData {
  /** Dollars; null until loaded; 0 after a failure when never loaded; else the last good value. */
  balance: number | null;
  transactions: TransactionsState;
  /** Loads the next page when more pages exist and nothing is loading. */
  loadMore: () => void;
  /** Resets offset and has-more and reloads the balance and the first page (bypassing caches). */
  refresh: () => Promise<void>;
}

/** Balance (TanStack Query, 30 s) and the paged transaction history of the signed-in user. */
export function useWalletData(uid: string | undefined): WalletData {
  const queryClient = useQueryClient();
  const balanceQuery = useQuery({
    // The default queryFn GETs queryKey[0] with the Bearer token; the uid keeps users apart.
    queryKey: [BALANCE_PATH, uid],
    select: selectBalance,
    staleTime: BALANCE_STALE_TIME_MS,
    enabled: Boolean(uid),
  });
  const balance = balanceQuery.data ?? (balanceQuery.isError ? 0 : null);
  const { refetch: refetchBalance } = balanceQuery;

  const [transactions, dispatch] = useReducer(transactionsReducer, initialTransactionsState);
  const stateRef = useLatest(transactions);
  const sequence = useRef(0);
  const inflight = useRef<number | null>(null);

  const loadFirstPage = useCallback(
    async (fresh: boolean) => {
      const request = ++sequence.current;
      inflight.current = request;
      dispatch({ type: 'start', request, reset: true });
      try {
        const page = await queryClient.fetchQuery({
          queryKey: [transactionsUrl(0, null), uid],
          queryFn: () => fetchTransactions(0, null),
          staleTime: fresh ? 0 : TRANSACTIONS_STALE_TIME_MS,
        });
        dispatch({ type: 'success', request, page });
      } catch (error) {
        console.error('Error fetching transactions:', error);
        dispatch({ type: 'failure', request });
      } finally {
        if (inflight.current === request) inflight.current = null;
      }
    },
    [queryClient, uid],
  );

  const loadMore = useCallback(() => {
    const state = stateRef.current;
    if (inflight.current !== null || !canLoadMore(state) || !state.loaded) return;
    const request = ++sequence.current;
    inflight.current = request;
    dispatch({ type: 'start', request, reset: false });
    fetchTransactions(state.offset, state.snapshot)
      .then((page) => dispatch({ type: 'success', request, page }))
      .catch((error: unknown) => {
        console.error('Error fetching transactions:', error);
        dispatch({ type: 'failure', request });
      })
      .finally(() => {
        if (inflight.current === request) inflight.current = null;
      });
  }, [stateRef]);

  const refresh = useCallback(async () => {
    await Promise.all([refetchBalance(), loadFirstPage(true)]);
  }, [refetchBalance, loadFirstPage]);

  // Balance (via the query) and the first page load on first entry.
  useEffect(() => {
    if (uid) void loadFirstPage(false);
  }, [uid, loadFirstPage]);

  return { balance, transactions, loadMore, refresh };
}
