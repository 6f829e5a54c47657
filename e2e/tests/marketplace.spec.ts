import { expect, test, type Page } from '@playwright/test';
import { forceMarketplace } from '../support/marketplace';
import { newUser, register, toast } from '../support/users';

// The spec's teaser and waitlist: the marketplace launch switch off (issue 27), whatever the stack runs with.
test.beforeEach(async ({ page }) => {
  await forceMarketplace(page, false);
});

const RECORDED = "Your interest has been recorded. We'll notify you!";

async function openMarketplace(page: Page) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Marketplace' }).click();
  await expect(page).toHaveURL(/\/dashboard\/marketplace$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Marketplace Coming Soon' })).toBeVisible();
}

test('Notify Me registers the interest, and the recorded state survives a reload', async ({ page }) => {
  await register(page, newUser('market'));
  await openMarketplace(page);
  await expect(page.getByRole('list', { name: 'Coming features' }).getByRole('listitem')).toHaveCount(6);
  await expect(page.getByText(RECORDED)).toHaveCount(0);

  const request = page.waitForRequest(
    (r) => r.url().endsWith('/api/user/public-agent-interest') && r.method() === 'POST',
  );
  await page.getByRole('button', { name: 'Notify Me When Available' }).click();
  const sent = await request;
  expect(sent.postData()).toBeNull();
  expect(sent.headers()['authorization']).toMatch(/^Bearer /);

  await expect(toast(page, 'Interest Registered', "We'll notify you when the marketplace is available!")).toBeVisible();
  await expect(page.getByText(RECORDED)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Notify Me When Available' })).toHaveCount(0);

  // Persisted: it comes back from the onboarding response after a reload.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Marketplace Coming Soon' })).toBeVisible();
  await expect(page.getByText(RECORDED)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Notify Me When Available' })).toHaveCount(0);
});

test('the button reads "Registering Interest..." while pending, and a failure shows the Error toast', async ({ page }) => {
  await register(page, newUser('mfail'));
  await openMarketplace(page);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/api/user/public-agent-interest', async (route) => {
    await held;
    await route.fulfill({ status: 503, contentType: 'text/plain', body: 'unavailable' });
  });
  await page.getByRole('button', { name: 'Notify Me When Available' }).click();
  await expect(page.getByRole('button', { name: 'Registering Interest...' })).toBeDisabled();
  release();
  const error = page.getByRole('alert', { name: 'Error' });
  await expect(error).toBeVisible();
  await expect(error).toContainText('Failed to register interest.');
  await expect(page.getByRole('button', { name: 'Notify Me When Available' })).toBeEnabled();
  await expect(page.getByText(RECORDED)).toHaveCount(0);
});

test('signing up from the waitlist dialog (/auth?interest=marketplace) registers the interest', async ({ page }) => {
  const user = newUser('wait');
  await page.goto('/');
  await page.getByRole('button', { name: 'Join Waitlist for Marketplace' }).click();
  await page.getByRole('dialog', { name: 'Marketplace Coming Soon!' }).getByRole('link', { name: 'Create Account' }).click();
  await expect(page).toHaveURL(/\/auth\?interest=marketplace$/);

  await page.getByRole('tab', { name: 'Register' }).click();
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByLabel('Confirm Password').fill(user.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(toast(page, 'Interest Registered')).toBeVisible();

  await openMarketplace(page);
  await expect(page.getByText(RECORDED)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Notify Me When Available' })).toHaveCount(0);
});

test('signing in from /auth?interest=marketplace registers the interest too', async ({ page }) => {
  const user = newUser('wlogin');
  await register(page, user);
  await page.getByRole('button', { name: /account menu/i }).click();
  await page.getByRole('menuitem', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/auth$/);

  await page.goto('/auth?interest=marketplace');
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await openMarketplace(page);
  await expect(page.getByText(RECORDED)).toBeVisible();
});
