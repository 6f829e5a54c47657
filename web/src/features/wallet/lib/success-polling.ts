import { SUCCESS_POLL_INTERVAL_MS, SUCCESS_POLL_ROUNDS } from './constants';

export interface SuccessPollingOptions {
  /** Reloads the balance and the first transactions page; failures are swallowed by the caller. */
  refresh: () => Promise<unknown>;
  /** Resolves after `ms`. */
  sleep?: (ms: number) => Promise<void>;
  /** False once the screen is gone: polling stops and no toast is shown. */
  isActive?: () => boolean;
  rounds?: number;
  intervalMs?: number;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * After a successful payment the webhook may land a little later than the redirect:
 * refresh `rounds` times, `intervalMs` apart, then once more (spec §4). Resolves true when
 * it ran to the end (the caller then shows the success toast), false when stopped.
 */
export async function pollAfterPayment({
  refresh,
  sleep: wait = sleep,
  isActive = () => true,
  rounds = SUCCESS_POLL_ROUNDS,
  intervalMs = SUCCESS_POLL_INTERVAL_MS,
}: SuccessPollingOptions): Promise<boolean> {
  for (let round = 0; round < rounds; round += 1) {
    if (!isActive()) return false;
    await refresh().catch(() => undefined);
    await wait(intervalMs);
  }
  if (!isActive()) return false;
  await refresh().catch(() => undefined);
  return isActive();
}
