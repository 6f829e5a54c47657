/**
 * The marketplace launch switch as the server reports it: GET /api/marketplace/status (public, no token)
 * → {"enabled": boolean}. Only a literal `true` turns the marketplace on; anything else reads as off.
 *
 * Kept free of antd and Firebase: the landing page (bundle budget, docs/web-landing.md) reads it too.
 * The unit tests replace this module with an "off" stand-in (src/test/setup.ts).
 */
import { ApiError, requestIdOf } from '@/lib/api-error';

export const MARKETPLACE_STATUS_PATH = '/api/marketplace/status';

export interface MarketplaceStatus {
  enabled: boolean;
}

export async function fetchMarketplaceStatus(signal?: AbortSignal): Promise<MarketplaceStatus> {
  const response = await fetch(MARKETPLACE_STATUS_PATH, {
    method: 'GET',
    headers: { Accept: 'application/json' },
    credentials: 'include',
    signal,
  });
  if (!response.ok) {
    throw new ApiError(`${response.status}: ${response.statusText}`, response.status, { requestId: requestIdOf(response) });
  }
  const body: unknown = await response.json();
  const enabled = typeof body === 'object' && body !== null && (body as { enabled?: unknown }).enabled === true;
  return { enabled };
}
