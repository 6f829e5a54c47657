import { test } from '@playwright/test';

/**
 * How much longer a test may take under CI than locally. CI runs the whole stack, two browsers and the suite on
 * two shared cores: on 2026-11-29 it ran the suite about three times slower than a quiet machine (the long
 * marketplace tests took over four minutes there and 1.4 minutes here), with nothing wrong in them.
 */
export const CI_SLOWDOWN = process.env.CI ? 3 : 1;

/** Sets the current test's timeout: ms on a quiet machine, CI_SLOWDOWN times that under CI. */
export function allowTime(ms: number) {
  test.setTimeout(ms * CI_SLOWDOWN);
}
