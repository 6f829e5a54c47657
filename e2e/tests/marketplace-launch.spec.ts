import { expect, test } from '@playwright/test';
import { createAgent, createDialog, newAgent, openAgentList, openCreateDialog, openEditor } from '../support/agents';
import { forceMarketplace } from '../support/marketplace';
import { newUser, register, toast } from '../support/users';

// Issue 27, the marketplace open (MARKETPLACE_ENABLED on, the stack's default): the landing page's buttons,
// the public /marketplace, the dashboard's marketplace, and publishing settings in the Create dialog and the
// editor's Settings tab. The web app's switch is forced on here too, so the screens are checked even if the
// status route answered otherwise; the first test checks that route itself.

test('GET /api/marketplace/status is public and says the marketplace is open', async ({ request }) => {
  const res = await request.get('/api/marketplace/status');
  expect(res.status()).toBe(200);
  expect(await res.json()).toEqual({ enabled: true });
});

test.describe('with the marketplace open', () => {
  test.beforeEach(async ({ page }) => {
    await forceMarketplace(page, true);
  });

  test('landing: Browse the Marketplace and Publish an Agent, no "coming soon" for the marketplace', async ({ page }) => {
    await page.goto('/');
    const browse = page.getByRole('link', { name: 'Browse the Marketplace' });
    await expect(browse).toBeVisible();
    await expect(page.getByRole('button', { name: 'Join Waitlist for Marketplace' })).toHaveCount(0);
    const pricing = page.locator('#pricing');
    await expect(pricing.getByRole('link', { name: 'Publish an Agent' })).toHaveAttribute('href', '/auth');
    await expect(pricing.getByRole('button', { name: 'Join Waitlist' })).toHaveCount(0);
    await expect(pricing.getByText('Coming soon')).toHaveCount(0);
    await expect(page.locator('#features').getByRole('heading', { name: 'New Revenue Streams' })).not.toContainText('Coming soon');
    // Everything else of the spec stays.
    await expect(page.getByRole('heading', { name: 'Access Expert Knowledge, On Demand' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Create Private Agent' })).toHaveAttribute('href', '/auth');

    await pricing.getByRole('link', { name: 'Publish an Agent' }).click();
    await expect(page).toHaveURL(/\/auth$/);
    await page.goto('/');
    await browse.click();
    await expect(page).toHaveURL(/\/marketplace$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Marketplace' })).toBeVisible();
  });

  test('landing, signed in: Publish an Agent leads to the agent list', async ({ page }) => {
    await register(page, newUser('mpub'));
    await page.goto('/');
    const publish = page.locator('#pricing').getByRole('link', { name: 'Publish an Agent' });
    // The link follows the user once the session is restored.
    await expect(publish).toHaveAttribute('href', '/dashboard/agentic-users');
    await publish.click();
    await expect(page).toHaveURL(/\/dashboard\/agentic-users$/);
  });

  test('/marketplace signed out: search in the address, filters, and the empty state or cards', async ({ page }) => {
    const requests: { url: URL; authorization: string | undefined }[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname === '/api/marketplace/agents') requests.push({ url, authorization: r.headers()['authorization'] });
    });
    await page.goto('/marketplace');
    await expect(page.getByRole('heading', { level: 1, name: 'Marketplace' })).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
    await expect(page.getByRole('link', { name: 'Sign In' })).toBeVisible();
    await expect(page.getByLabel('Category')).toBeVisible();
    await expect(page.getByLabel('Sort by')).toHaveValue('popular');
    // Whatever is listed right now: cards, or the empty state.
    await expect(page.getByTestId('marketplace-card').first().or(page.getByText('No agents are listed yet.'))).toBeVisible();

    const query = `nothing-matches-${Date.now().toString(36)}`;
    await page.getByRole('searchbox', { name: 'Search the marketplace' }).fill(query);
    await expect(page).toHaveURL(new RegExp(`\\?q=${query}$`));
    await expect(page.getByText('No agents match your search.')).toBeVisible();
    await expect.poll(() => requests.some((r) => r.url.searchParams.get('q') === query)).toBe(true);
    // A search is sorted by best match unless another order is chosen.
    await expect(page.getByLabel('Sort by')).toHaveValue('relevance');
    expect(requests.find((r) => r.url.searchParams.get('q') === query)?.url.searchParams.get('sort')).toBe('relevance');
    expect(requests.every((r) => r.authorization === undefined)).toBe(true);

    await page.getByLabel('Sort by').selectOption('newest');
    await expect(page).toHaveURL(/sort=newest/);
    // A reload keeps the search.
    await page.reload();
    await expect(page.getByRole('searchbox', { name: 'Search the marketplace' })).toHaveValue(query);
  });

  test('an unknown profile is a not-found state; the phone layout has no sideways scrolling', async ({ page }) => {
    await page.goto('/marketplace/no-such-agent-anywhere');
    await expect(page.getByRole('heading', { level: 1, name: 'Agent not found' })).toBeVisible();
    await page.getByRole('link', { name: 'Browse the marketplace' }).click();
    await expect(page).toHaveURL(/\/marketplace$/);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/marketplace');
    await expect(page.getByRole('searchbox', { name: 'Search the marketplace' })).toBeVisible();
    await expect(page.getByLabel('Category')).toBeInViewport();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });

  test('the dashboard Marketplace is the marketplace itself', async ({ page }) => {
    await register(page, newUser('mdash'));
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Marketplace' }).click();
    await expect(page).toHaveURL(/\/dashboard\/marketplace$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Marketplace' })).toBeVisible();
    await expect(page.getByRole('searchbox', { name: 'Search the marketplace' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Marketplace Coming Soon' })).toHaveCount(0);
  });

  test('Create dialog and Settings tab: Visibility is open; choosing Public shows the Marketplace section', async ({ page }) => {
    await register(page, newUser('mset'));
    await openAgentList(page);

    const dialog = await openCreateDialog(page);
    await expect(dialog.getByRole('switch', { name: /^Visibility/ })).toBeEnabled();
    await expect(dialog.getByText('Public agents are coming soon')).toHaveCount(0);
    await expect(dialog.getByRole('button', { name: 'Express Interest' })).toHaveCount(0);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(createDialog(page)).toBeHidden();

    const agent = newAgent('Listing');
    await createAgent(page, agent);
    const dlg = await openEditor(page, agent.name);
    await dlg.getByRole('tab', { name: 'Settings' }).click();
    const publicButton = dlg.getByRole('button', { name: 'Public', exact: true });
    await expect(publicButton).toBeEnabled();
    await expect(dlg.getByText('Public agents are coming soon')).toHaveCount(0);
    const section = dlg.getByRole('region', { name: 'Marketplace' });
    await expect(section).toHaveCount(0);

    await publicButton.click();
    await expect(publicButton).toHaveAttribute('aria-pressed', 'true');
    await expect(section).toBeVisible();
    await expect(section.getByTestId('agent-slug')).toHaveText('Assigned when you publish');
    await expect(section.getByLabel('Markup (%)')).toHaveValue('20');
    await expect(section.getByLabel('Greeting cost')).toHaveValue('0.00');
    await expect(section.getByLabel('Memory (tokens)')).toHaveValue('4000');
    await expect(section.getByRole('switch', { name: 'Show sources' })).toHaveAttribute('aria-checked', 'true');

    // Out of bounds: said at the field, nothing sent.
    await section.getByLabel('Markup (%)').fill('301');
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await expect(section.getByText('Markup must be a whole number from 0 to 300 percent.')).toBeVisible();

    // A new agent has no shared document: the catalog refuses to publish it, and the message is at Visibility.
    await section.getByLabel('Markup (%)').fill('25');
    await section.getByLabel('Greeting', { exact: true }).fill('Hello! Ask me anything.');
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await expect(dlg.getByText('Link and share at least one document before publishing.')).toBeVisible();
    await expect(toast(page, 'Error')).toBeVisible();

    // Private again hides the section; Private saves.
    await dlg.getByRole('button', { name: 'Private', exact: true }).click();
    await expect(section).toHaveCount(0);
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await expect(toast(page, 'Agent Updated')).toBeVisible();
  });
});
