import { useQuery } from '@tanstack/react-query';
import { fetchMarketplaceStatus, MARKETPLACE_STATUS_PATH } from './status';

export const MARKETPLACE_STATUS_QUERY_KEY = [MARKETPLACE_STATUS_PATH] as const;

export interface MarketplaceSwitch {
  /** True only when the server said {"enabled": true}; false while unknown and after a failure. */
  enabled: boolean;
  /** The server answered, or the call failed for good (after its one retry). */
  known: boolean;
}

/**
 * The launch switch (issue 27, MARKETPLACE_ENABLED), asked once and kept for the session (no refetch;
 * one retry). While it is unknown, or when the call fails, the marketplace is off: every screen is the
 * spec's (teaser, waitlist dialog, disabled Visibility).
 */
export function useMarketplaceSwitch(): MarketplaceSwitch {
  const query = useQuery({
    queryKey: MARKETPLACE_STATUS_QUERY_KEY,
    queryFn: ({ signal }) => fetchMarketplaceStatus(signal),
    retry: 1,
    staleTime: Infinity,
    gcTime: Infinity,
  });
  return { enabled: query.data?.enabled === true, known: query.isSuccess || query.isError };
}

/** Whether the marketplace is on (false while unknown or on error). */
export function useMarketplaceEnabled(): boolean {
  return useMarketplaceSwitch().enabled;
}
