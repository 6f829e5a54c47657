import { vi } from 'vitest';
import { fetchMarketplaceStatus } from '@/features/marketplace/api/status';

/** Turns the marketplace launch switch on (or off) for the current test (src/test/setup.ts mocks it off). */
export function setMarketplaceEnabled(enabled: boolean) {
  vi.mocked(fetchMarketplaceStatus).mockImplementation(async () => ({ enabled }));
}
