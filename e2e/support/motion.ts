import type { Locator } from '@playwright/test';

/**
 * Waits until an element's own entrance animation has finished (antd dialogs zoom in over about 0.3 s).
 * Playwright waits for a button to hold still before it clicks it, but on a loaded machine a click
 * during the zoom has landed beside the Add Document button: the dialog stayed open and nothing was
 * sent. Endless animations (spinners) are not waited for.
 */
export async function untilStill(element: Locator): Promise<void> {
  await element.evaluate((el) =>
    Promise.all(
      el
        .getAnimations({ subtree: true })
        .filter((a) => a.effect?.getComputedTiming().iterations !== Infinity)
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
}
