import { expect, test, type Page } from '@playwright/test';
import { login, newUser, register, registerByApi, toast } from '../support/users';

// Issue 29, item 10: Forgot password? on /auth, and the account page (/dashboard/account): e-mail and
// verification state, change password, delete account.

const AUTH_EMULATOR = process.env.E2E_AUTH_EMULATOR_URL ?? 'http://127.0.0.1:9099';
const FIREBASE_API_KEY = process.env.E2E_FIREBASE_API_KEY ?? 'demo-api-key';
const FIREBASE_PROJECT = process.env.E2E_FIREBASE_PROJECT_ID ?? 'demo-agentic';

interface OobCode {
  email: string;
  requestType: string;
  oobCode: string;
  oobLink: string;
}

async function openAccountPage(page: Page) {
  await page.getByRole('button', { name: /account menu/i }).click();
  await page.getByRole('menuitem', { name: 'Account' }).click();
  await expect(page).toHaveURL(/\/dashboard\/account$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Account' })).toBeVisible();
}

test('Forgot password? sends a reset e-mail whose link sets a new password', async ({ page, request }) => {
  const user = newUser('reset');
  await registerByApi(request, user);

  await page.goto('/auth');
  await page.getByLabel('Email').fill(user.email);
  await page.getByRole('button', { name: 'Forgot password?' }).click();
  const dialog = page.getByRole('dialog', { name: 'Reset your password' });
  await expect(dialog.getByLabel('Email')).toHaveValue(user.email);
  await dialog.getByRole('button', { name: 'Send reset link' }).click();
  await expect(dialog.getByRole('status')).toContainText(`If an account uses ${user.email}, we have sent it a link`);

  // The emulator keeps the e-mails it would send: the reset link is there.
  let reset: OobCode | undefined;
  await expect
    .poll(async () => {
      const res = await request.get(`${AUTH_EMULATOR}/emulator/v1/projects/${FIREBASE_PROJECT}/oobCodes`);
      const { oobCodes } = (await res.json()) as { oobCodes: OobCode[] };
      reset = oobCodes.find((c) => c.email === user.email && c.requestType === 'PASSWORD_RESET');
      return reset?.oobLink ?? '';
    })
    .toContain('oobCode=');

  // What the link's page does: the code sets the new password.
  const done = await request.post(`${AUTH_EMULATOR}/identitytoolkit.googleapis.com/v1/accounts:resetPassword?key=${FIREBASE_API_KEY}`, {
    data: { oobCode: reset!.oobCode, newPassword: 'brand-new-1' },
  });
  expect(done.ok(), await done.text()).toBeTruthy();

  // The footer's Close (the × in the corner is named Close too).
  await dialog.getByRole('button', { name: 'Close' }).last().click();
  await login(page, user.email, 'brand-new-1');
  await expect(page).toHaveURL(/\/dashboard$/);
});

test('the account page shows the e-mail and its state, and changes the password', async ({ page }) => {
  const user = newUser('acct');
  await register(page, user);
  await openAccountPage(page);

  await expect(page.getByTestId('account-email')).toContainText(user.email);
  await expect(page.getByTestId('account-verification')).toHaveText('Not verified');
  await expect(page.getByRole('button', { name: 'Send verification e-mail' })).toBeVisible();
  await expect(page.getByLabel('Display name')).toHaveValue(user.username);

  const form = page.getByRole('form', { name: 'Change password' });
  await form.getByLabel('Current password').fill('not-my-password');
  await form.getByLabel('New password', { exact: true }).fill('changed-456');
  await form.getByLabel('Confirm new password').fill('changed-456');
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByText('Incorrect password.')).toBeVisible();
  await expect(form.getByLabel('Current password')).toHaveAttribute('aria-invalid', 'true');

  await form.getByLabel('Current password').fill(user.password);
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(toast(page, 'Password changed')).toBeVisible();

  await page.getByRole('button', { name: /account menu/i }).click();
  await page.getByRole('menuitem', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/auth$/);
  await login(page, user.email, 'changed-456');
  await expect(page).toHaveURL(/\/dashboard$/);
});

test('deleting an empty account signs out, and the account cannot sign in again', async ({ page }) => {
  const user = newUser('gone');
  await register(page, user);
  await openAccountPage(page);

  await page.getByRole('button', { name: 'Delete account' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
  const confirm = dialog.getByRole('button', { name: 'Delete account' });
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel(`Type ${user.email} to confirm`).fill(user.email);
  await confirm.click();
  await expect(page).toHaveURL(/\/auth$/);
  await expect(toast(page, 'Account deleted')).toBeVisible();

  await login(page, user.email, user.password);
  await expect(toast(page, 'Login failed')).toBeVisible();
  await expect(page).toHaveURL(/\/auth$/);
});

test.describe('phone (390×844)', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the account page fits the phone; Sign out everywhere signs out', async ({ page }) => {
    const user = newUser('acctp');
    await register(page, user);
    await page.goto('/dashboard/account');
    await expect(page.getByTestId('account-email')).toContainText(user.email);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);

    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await expect(page).toHaveURL(/\/auth$/);
    await expect(toast(page, 'Signed out everywhere')).toBeVisible();
  });
});
