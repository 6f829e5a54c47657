import { expect, test } from '@playwright/test';
import { login, newUser, openRegister, register, toast } from '../support/users';

test('register, land on the dashboard, log out and log in again', async ({ page }) => {
  const user = newUser();
  await register(page, user);
  await expect(toast(page, 'Registration successful', `Welcome, ${user.email}!`)).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' })).toHaveAttribute('aria-current', 'page');

  // The account menu shows the username (set as displayName right after sign-up).
  const menu = page.getByRole('button', { name: /account menu/i });
  await expect(menu).toContainText(user.username);
  await menu.click();
  await expect(page.getByText('My Account')).toBeVisible();
  // Chosen again should the click land while the menu is still opening (seen once under CI load).
  await expect(async () => {
    if (!(await page.getByRole('menuitem', { name: 'Log out' }).isVisible())) await menu.click();
    await page.getByRole('menuitem', { name: 'Log out' }).click({ timeout: 2_000 });
    await expect(page).toHaveURL(/\/auth$/, { timeout: 5_000 });
  }).toPass({ timeout: 30_000 });
  await expect(toast(page, 'Logged out', 'You have been successfully logged out.')).toBeVisible();

  await login(page, user.email, user.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(toast(page, 'Login successful', `Welcome back, ${user.email}!`)).toBeVisible();
  await expect(page.getByRole('button', { name: /account menu/i })).toContainText(user.username);

  // The session survives a reload.
  await page.reload();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole('button', { name: /account menu/i })).toContainText(user.username);
});

test('a wrong password shows the Login failed toast and stays on /auth', async ({ page }) => {
  const user = newUser('wrongpw');
  await register(page, user);
  await page.getByRole('button', { name: /account menu/i }).click();
  await page.getByRole('menuitem', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/auth$/);

  await login(page, user.email, 'not-the-password');
  await expect(toast(page, 'Login failed')).toBeVisible();
  await expect(page).toHaveURL(/\/auth$/);
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
});

test('registering an e-mail that is already in use shows the spec message', async ({ page, browser }) => {
  const user = newUser('dup');
  await register(page, user);
  const other = await browser.newPage();
  await openRegister(other);
  await other.getByLabel('Username').fill('someoneelse');
  await other.getByLabel('Email').fill(user.email);
  await other.getByLabel('Password', { exact: true }).fill(user.password);
  await other.getByLabel('Confirm Password').fill(user.password);
  await other.getByRole('button', { name: 'Create account' }).click();
  await expect(toast(other, 'Registration failed', 'This email address is already in use.')).toBeVisible();
  await other.close();
});

test('login form validation messages', async ({ page }) => {
  await page.goto('/auth');
  await expect(page.getByText('Sign in to your account')).toBeVisible();
  await page.getByLabel('Email').fill('not-an-email');
  await page.getByLabel('Password', { exact: true }).fill('12345');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('Please enter a valid email address')).toBeVisible();
  await expect(page.getByText('Password must be at least 6 characters')).toBeVisible();
  await expect(page).toHaveURL(/\/auth$/);
});

test('register form validation messages', async ({ page }) => {
  await openRegister(page);
  await expect(page.getByText('Create your account')).toBeVisible();
  await page.getByLabel('Username').fill('ab');
  await page.getByLabel('Email').fill('nope');
  await page.getByLabel('Password', { exact: true }).fill('123');
  await page.getByLabel('Confirm Password').fill('different');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByText('Username must be at least 3 characters')).toBeVisible();
  await expect(page.getByText('Please enter a valid email address')).toBeVisible();
  await expect(page.getByText('Password must be at least 6 characters')).toBeVisible();

  await page.getByLabel('Password', { exact: true }).fill('123456');
  await page.getByLabel('Confirm Password').fill('1234567');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByText('Passwords do not match')).toBeVisible();
  await expect(page).toHaveURL(/\/auth$/);
});

test('the back arrow leads to the landing page', async ({ page }) => {
  await page.goto('/auth');
  await page.getByRole('link', { name: 'Back to home' }).click();
  await expect(page).toHaveURL(/\/$/);
});

test('a signed-in user visiting /auth is sent to /dashboard', async ({ page }) => {
  await register(page, newUser('redir'));
  await page.goto('/auth');
  await expect(page).toHaveURL(/\/dashboard$/);
});
