import { expect, test } from '@playwright/test';
import { completeEmulatorGooglePopup, installGoogleApiStub } from '../support/google-api-stub';
import { toast } from '../support/users';

test('Google sign-in through the Auth emulator popup', async ({ page, context }) => {
  await installGoogleApiStub(context);
  await page.goto('/auth');
  const email = `g.${Date.now().toString(36)}@example.com`;
  const popupPromise = context.waitForEvent('page');
  await page.getByRole('button', { name: 'Google' }).click();
  const popup = await popupPromise;
  await completeEmulatorGooglePopup(popup, { email, displayName: 'Grace Hopper' });

  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(toast(page, 'Google Sign-In successful', `Welcome, ${email}!`)).toBeVisible();
  const menu = page.getByRole('button', { name: /account menu/i });
  await expect(menu).toContainText('Grace Hopper');
  await expect(menu).toContainText('GH');
});

test('closing the Google popup shows the spec toast', async ({ page, context }) => {
  await installGoogleApiStub(context);
  await page.goto('/auth');
  const popupPromise = context.waitForEvent('page');
  await page.getByRole('button', { name: 'Google' }).click();
  const popup = await popupPromise;
  await popup.close();
  await expect(toast(page, 'Google Sign-In failed', 'Google Sign-In popup closed.')).toBeVisible({ timeout: 20_000 });
  await expect(page).toHaveURL(/\/auth$/);
});
