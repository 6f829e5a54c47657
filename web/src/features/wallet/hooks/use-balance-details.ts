import { useQuery } from '@tanstack/react-query';
import { BALANCE_PATH } from '../api/wallet-api';
import { readBalanceDetails } from '../api/billing';
import { BALANCE_STALE_TIME_MS } from '../lib/constants';

/** The balance key: the default query fn GETs queryKey[0]; the uid keeps users apart. */
export const balanceKey = (uid: string | undefined) => [BALANCE_PATH, uid] as const;

/**
 * The whole balance response (held, debt, this month's usage, limits, auto-recharge), sharing the
 * cached request of the Current Balance card. `data` is undefined until loaded or when it fails.
 */
export function useBalanceDetails(uid: string | undefined, enabled = true) {
  return useQuery({
    queryKey: balanceKey(uid),
    select: readBalanceDetails,
    staleTime: BALANCE_STALE_TIME_MS,
    enabled: Boolean(uid) && enabled,
  });
}
