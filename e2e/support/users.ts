import { expect, type Page } from '@playwright/test';

/** A fresh, unique account for one test (the emulator keeps accounts). */
export function newUser(prefix = 'user') {
  const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  return { username: `${prefix}${id}`.slice(0, 24), email: `${prefix}.${id}@example.com`, password: 'secret123' };
}

export async function openRegister(page: Page) {
  await page.goto('/auth');
  await page.getByRole('tab', { name: 'Register' }).click();
}

export async function register(page: Page, user: ReturnType<typeof newUser>) {
  await openRegister(page);
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByLabel('Confirm Password').fill(user.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

export async function login(page: Page, email: string, password: string) {
  await page.goto('/auth');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Toasts render their title and description as text; match both. */
export function toast(page: Page, title: string, description?: string) {
  const t = page.getByRole('alert').or(page.getByRole('status')).filter({ hasText: title });
  return description ? t.filter({ hasText: description }) : t;
}
