import { expect, test } from '@playwright/test';
import { newUser, register } from '../support/users';

const protectedRoutes = ['/dashboard', '/dashboard/agentic-users', '/dashboard/marketplace', '/dashboard/wallet', '/wallet'];

for (const route of protectedRoutes) {
  test(`signed-out visit to ${route} redirects to /auth`, async ({ page }) => {
    await page.goto(route);
    await expect(page).toHaveURL(/\/auth$/);
    await expect(page.getByRole('tab', { name: 'Login' })).toBeVisible();
  });
}

test('unknown paths show the 404 screen', async ({ page }) => {
  await page.goto('/this/page/does-not-exist');
  await expect(page.getByRole('heading', { name: '404 Page Not Found' })).toBeVisible();
  await expect(page.getByText('Did you forget to add the page to the router?')).toBeVisible();
});

test('dashboard navigation marks the active item by the spec rules', async ({ page }) => {
  await register(page, newUser('nav'));
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Your Agentic Users' }).click();
  await expect(page).toHaveURL(/\/dashboard\/agentic-users$/);
  await expect(nav.getByRole('link', { name: 'Your Agentic Users' })).toHaveAttribute('aria-current', 'page');
  // Dashboard is active only on an exact match.
  await expect(nav.getByRole('link', { name: 'Dashboard' })).not.toHaveAttribute('aria-current', 'page');
  await nav.getByRole('link', { name: 'Wallet' }).click();
  await expect(page).toHaveURL(/\/dashboard\/wallet$/);
  await expect(nav.getByRole('link', { name: 'Wallet' })).toHaveAttribute('aria-current', 'page');
  await page.getByRole('link', { name: 'Agentic' }).first().click();
  await expect(page).toHaveURL(/\/dashboard$/);
});

test('the API refuses calls without a token with the spec message', async ({ request }) => {
  const res = await request.post('/api/user/onboarding', { data: {} });
  expect(res.status()).toBe(401);
  expect(await res.json()).toMatchObject({
    error: 'unauthenticated',
    message: 'Authentication token not available. User must be logged in.',
  });
});

test('unknown API paths get a JSON 404 from the gateway', async ({ request }) => {
  const res = await request.get('/api/no-such-thing');
  expect(res.status()).toBe(404);
  expect(await res.json()).toMatchObject({ error: 'not_found' });
});
