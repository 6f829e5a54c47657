import { QueryClientProvider } from '@tanstack/react-query';
import { renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '@/lib/query-client';
import { fakeApi, json } from '@/test/fake-api';
import { fetchMarketplaceStatus } from './status';
import { useMarketplaceSwitch } from './use-marketplace-enabled';

// src/test/setup.ts replaces ./status with an "off" stand-in; the real fetcher is checked here too.
const actual = await vi.importActual<typeof import('./status')>('./status');

function wrapper() {
  const client = createQueryClient();
  return ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}

describe('GET /api/marketplace/status', () => {
  it('asks without a token and reads only a literal true as on', async () => {
    const status = (reply: () => Response | object | null) => ({ 'GET /api/marketplace/status': reply });
    const api = fakeApi(status(() => ({ enabled: true })));
    await expect(actual.fetchMarketplaceStatus()).resolves.toEqual({ enabled: true });
    const [call] = api.calls;
    expect(call!.input).toBe('/api/marketplace/status');
    expect(call!.init.method).toBe('GET');
    expect(call!.headers.has('Authorization')).toBe(false);

    for (const body of [{ enabled: 'true' }, { enabled: 1 }, {}, null, [true]]) {
      api.use(status(() => body));
      await expect(actual.fetchMarketplaceStatus()).resolves.toEqual({ enabled: false });
    }
    api.use(status(() => json({ error: 'not_found' }, 404)));
    await expect(actual.fetchMarketplaceStatus()).rejects.toMatchObject({ status: 404 });
  });
});

describe('useMarketplaceSwitch', () => {
  it('is off while the answer is unknown, then follows it', async () => {
    let answer!: (value: { enabled: boolean }) => void;
    vi.mocked(fetchMarketplaceStatus).mockImplementation(() => new Promise((resolve) => (answer = resolve)));
    const { result } = renderHook(() => useMarketplaceSwitch(), { wrapper: wrapper() });
    expect(result.current).toEqual({ enabled: false, known: false });
    await waitFor(() => expect(fetchMarketplaceStatus).toHaveBeenCalledTimes(1));
    answer({ enabled: true });
    await waitFor(() => expect(result.current).toEqual({ enabled: true, known: true }));
  });

  it('is off after a failure, having retried once', async () => {
    vi.mocked(fetchMarketplaceStatus).mockRejectedValue(new Error('503: Service Unavailable'));
    const { result } = renderHook(() => useMarketplaceSwitch(), { wrapper: wrapper() });
    await waitFor(() => expect(result.current.known).toBe(true), { timeout: 5000 });
    expect(result.current.enabled).toBe(false);
    expect(fetchMarketplaceStatus).toHaveBeenCalledTimes(2);
  });

  it('asks once per session: every user of the hook shares the answer', async () => {
    vi.mocked(fetchMarketplaceStatus).mockResolvedValue({ enabled: true });
    const shared = wrapper();
    const first = renderHook(() => useMarketplaceSwitch(), { wrapper: shared });
    await waitFor(() => expect(first.result.current.enabled).toBe(true));
    const second = renderHook(() => useMarketplaceSwitch(), { wrapper: shared });
    expect(second.result.current).toEqual({ enabled: true, known: true });
    expect(fetchMarketplaceStatus).toHaveBeenCalledTimes(1);
  });
});
