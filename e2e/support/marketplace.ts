import type { Page } from '@playwright/test';

/**
 * Forces the web app's view of the marketplace launch switch (GET /api/marketplace/status, issue 27) for this
 * page, whatever the stack runs with. Call it before the first navigation: the app asks once per session.
 * Specs of the spec's "coming soon" screens force it off; marketplace-launch.spec.ts forces it on.
 */
export async function forceMarketplace(page: Page, enabled: boolean) {
  await page.route('**/api/marketplace/status', (route) => route.fulfill({ json: { enabled } }));
}
