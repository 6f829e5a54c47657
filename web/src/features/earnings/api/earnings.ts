/**
 * The creator's earnings and payouts (issue 28): wallet (`/api/user/earnings*`) and payouts (`/api/user/payouts*`).
 * Failures are ApiMessageErrors carrying the server's message (shown as is on a 4xx).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiMessageError, messageErrorOf } from '@/features/agents';
import { BALANCE_PATH } from '@/features/wallet';
import { authFetch } from '@/lib/api-client';
import type { Earnings, EarningsSeries, Payout, TransferResult } from '../types';

export const EARNINGS_PATH = '/api/user/earnings';
export const EARNINGS_SERIES_PATH = '/api/user/earnings/series';
export const TRANSFER_PATH = '/api/user/earnings/transfer-to-wallet';
export const PAYOUTS_PATH = '/api/user/payouts';
export const ACCOUNT_LINK_PATH = '/api/user/payouts/account-link';

async function call<T>(path: string, init: Parameters<typeof authFetch>[1]): Promise<T> {
  const response = await authFetch(path, init);
  if (!response.ok) throw await messageErrorOf(response);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

const num = (v: unknown): number => {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : 0;
};

/** The earnings summary with every member defaulted (an older server may leave some out). */
export function normalizeEarnings(body: Partial<Earnings> | null | undefined): Earnings {
  const b = body ?? {};
  return {
    pending: num(b.pending),
    available: num(b.available),
    paidOut: num(b.paidOut),
    inTransit: num(b.inTransit),
    currency: b.currency || 'usd',
    minimumWithdrawal: num(b.minimumWithdrawal) || 10,
    holdSeconds: num(b.holdSeconds) || 7 * 24 * 3600,
    payoutAccount: { status: b.payoutAccount?.status || 'none', reason: b.payoutAccount?.reason ?? null },
    byAgent: Array.isArray(b.byAgent)
      ? b.byAgent.map((a) => ({ ...a, answers: num(a.answers), users: num(a.users), earned: num(a.earned) }))
      : [],
  };
}

export const earningsKey = (uid: string | undefined) => [EARNINGS_PATH, uid] as const;
export const seriesKey = (uid: string | undefined) => [EARNINGS_SERIES_PATH, uid] as const;
export const payoutsKey = (uid: string | undefined) => [PAYOUTS_PATH, uid] as const;

export function useEarnings(uid: string | undefined) {
  return useQuery({
    queryKey: earningsKey(uid),
    queryFn: async ({ signal }) => normalizeEarnings(await call<Partial<Earnings>>(EARNINGS_PATH, { method: 'GET', signal })),
    enabled: Boolean(uid),
    staleTime: 0,
  });
}

/** The last 30 UTC days (the server's default range), one row per agent and day with earnings. */
export function useEarningsSeries(uid: string | undefined) {
  return useQuery({
    queryKey: seriesKey(uid),
    queryFn: async ({ signal }) => {
      const body = await call<Partial<EarningsSeries>>(EARNINGS_SERIES_PATH, { method: 'GET', signal });
      return Array.isArray(body?.days) ? body.days.map((d) => ({ ...d, earned: num(d.earned), answers: num(d.answers) })) : [];
    },
    enabled: Boolean(uid),
    staleTime: 0,
  });
}

export function usePayouts(uid: string | undefined) {
  return useQuery({
    queryKey: payoutsKey(uid),
    queryFn: async ({ signal }) => {
      const body = await call<{ payouts?: Payout[] | null }>(PAYOUTS_PATH, { method: 'GET', signal });
      return Array.isArray(body?.payouts) ? body.payouts.map((p) => ({ ...p, amount: num(p.amount) })) : [];
    },
    enabled: Boolean(uid),
    staleTime: 0,
  });
}

/** Everything a money move changes: the summary, the payouts, the chart and the wallet balance. */
function refreshAll(queryClient: ReturnType<typeof useQueryClient>) {
  void queryClient.invalidateQueries({ queryKey: [EARNINGS_PATH] });
  void queryClient.invalidateQueries({ queryKey: [PAYOUTS_PATH] });
  void queryClient.invalidateQueries({ queryKey: [EARNINGS_SERIES_PATH] });
  void queryClient.invalidateQueries({ queryKey: [BALANCE_PATH] });
}

/** POST /api/user/payouts/account-link → {url}: the Stripe onboarding page (the account is created once). */
export function useAccountLink() {
  return useMutation({
    mutationFn: () => call<{ url?: string }>(ACCOUNT_LINK_PATH, { method: 'POST', body: {} }),
  });
}

/** POST /api/user/payouts {amount} → 201 {payout}. */
export function useWithdraw() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (amount: number) => call<{ payout?: Payout }>(PAYOUTS_PATH, { method: 'POST', body: { amount } }),
    onSettled: () => refreshAll(queryClient),
  });
}

/** POST /api/user/earnings/transfer-to-wallet {amount} → {transferred, available, balance}. */
export function useTransferToWallet() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (amount: number) => call<TransferResult>(TRANSFER_PATH, { method: 'POST', body: { amount } }),
    onSettled: () => refreshAll(queryClient),
  });
}

/** The text of a failed call: the server's message on a 4xx, else `fallback`. */
export function errorText(error: unknown, fallback: string): string {
  if (error instanceof ApiMessageError && error.status >= 400 && error.status < 500 && error.message) return error.message;
  return fallback;
}
