import { api } from '@/lib/api-client';
import { TRANSACTIONS_PAGE_SIZE } from '../lib/constants';
import type { Transaction, TransactionPage } from '../lib/types';

export const BALANCE_PATH = '/api/user/balance';
export const TRANSACTIONS_PATH = '/api/user/transactions';

interface Envelope<T> {
  success?: boolean;
  data?: T;
}

/** data.balance of GET /api/user/balance (dollars). Throws on anything else. */
export function selectBalance(body: unknown): number {
  const balance = (body as Envelope<{ balance?: unknown }> | null)?.data?.balance;
  const value = typeof balance === 'string' ? Number(balance) : balance;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new Error('Invalid balance response');
  }
  return value;
}

export async function fetchBalance(signal?: AbortSignal): Promise<number> {
  return selectBalance(await api.get(BALANCE_PATH, { signal }));
}

export function transactionsUrl(offset: number, snapshot: string | null): string {
  const params = new URLSearchParams({ limit: String(TRANSACTIONS_PAGE_SIZE), offset: String(offset) });
  if (snapshot) params.set('snapshot', snapshot);
  return `${TRANSACTIONS_PATH}?${params.toString()}`;
}

/** data.items + data.meta of GET /api/user/transactions. */
export function selectTransactionPage(body: unknown): TransactionPage {
  const data = (body as Envelope<{ items?: unknown; meta?: { hasMore?: unknown; snapshot?: unknown } }> | null)?.data;
  if (!data || !Array.isArray(data.items)) {
    throw new Error('Invalid transactions response');
  }
  const snapshot = data.meta?.snapshot;
  return {
    items: data.items as Transaction[],
    hasMore: data.meta?.hasMore === true,
    snapshot: snapshot === undefined || snapshot === null || snapshot === '' ? null : String(snapshot),
  };
}

export async function fetchTransactions(offset: number, snapshot: string | null): Promise<TransactionPage> {
  return selectTransactionPage(await api.get(transactionsUrl(offset, snapshot)));
}
