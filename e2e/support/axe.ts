import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

// Issue 18 (accessibility): axe-core with the WCAG 2.0/2.1 A and AA rules finds no serious or critical violation.
// One check for every spec that runs axe (a11y, editor-url, phone).

const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** Waits until no finite CSS animation or transition runs (antd dialogs and drawers fade and slide in; a
 *  half-transparent frame would fail colour contrast). */
export async function untilAnimationsEnd(page: Page) {
  await page.waitForFunction(
    () =>
      document
        .getAnimations()
        .every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity),
    undefined,
    { timeout: 10_000 },
  );
}

export interface AxeOptions {
  /** Only inside this selector. */
  scope?: string;
  /** Also wait until no "Loading" spinner is left (a11y.spec walks screens as they load). */
  waitForLoading?: boolean;
}

/** Runs axe on the page (or only inside `scope`) once it is still and expects no serious or critical violation. */
export async function expectAccessible(page: Page, screen: string, options: AxeOptions = {}) {
  if (options.waitForLoading) {
    await expect(page.getByRole('status', { name: 'Loading', exact: true })).toHaveCount(0, { timeout: 20_000 });
  }
  await untilAnimationsEnd(page);
  // label-content-name-mismatch (WCAG 2.5.3) is tagged "experimental", so axe skips it unless enabled.
  let builder = new AxeBuilder({ page })
    .options({ rules: { 'label-content-name-mismatch': { enabled: true } } })
    .withTags(WCAG_TAGS);
  if (options.scope) builder = builder.include(options.scope);
  const { violations } = await builder.analyze();
  const serious = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help}\n` +
        v.nodes
          .slice(0, 5)
          .map((n) => `    ${n.target.join(' ')}: ${n.failureSummary?.replace(/\s+/g, ' ') ?? ''}`)
          .join('\n'),
    );
  expect(serious, `axe on ${screen}:\n${serious.join('\n')}`).toEqual([]);
}
