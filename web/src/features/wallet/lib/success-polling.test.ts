import { describe, expect, it, vi } from 'vitest';
import { pollAfterPayment } from './success-polling';

describe('pollAfterPayment', () => {
  it('refreshes 5 times 2 s apart, then once more', async () => {
    const log: string[] = [];
    const refresh = vi.fn(async () => void log.push('refresh'));
    const sleep = vi.fn(async (ms: number) => void log.push(`sleep ${ms}`));
    await expect(pollAfterPayment({ refresh, sleep })).resolves.toBe(true);
    expect(refresh).toHaveBeenCalledTimes(6);
    expect(log).toEqual([
      ...Array.from({ length: 5 }, () => ['refresh', 'sleep 2000']).flat(),
      'refresh',
    ]);
  });

  it('keeps going when a refresh fails', async () => {
    const refresh = vi.fn(async () => {
      throw new Error('boom');
    });
    await expect(pollAfterPayment({ refresh, sleep: async () => {} })).resolves.toBe(true);
    expect(refresh).toHaveBeenCalledTimes(6);
  });

  it('stops once the screen is gone', async () => {
    let active = true;
    const refresh = vi.fn(async () => {
      if (refresh.mock.calls.length === 2) active = false;
    });
    await expect(pollAfterPayment({ refresh, sleep: async () => {}, isActive: () => active })).resolves.toBe(false);
    expect(refresh).toHaveBeenCalledTimes(2);
  });
});
