import { expect, type APIRequestContext, type Page } from '@playwright/test';
import type { Identity } from './wallet';

const AUTH_EMULATOR = process.env.E2E_AUTH_EMULATOR_URL ?? 'http://127.0.0.1:9099';
const FIREBASE_API_KEY = process.env.E2E_FIREBASE_API_KEY ?? 'demo-api-key';

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

/**
 * Signs up without the browser, as the register form does: the account on the Auth emulator's REST API,
 * then `POST /api/user/onboarding` with the username (the profile the web app creates on first sign-in).
 * For API-only specs; returns the uid and an ID token the services accept.
 */
export async function registerByApi(request: APIRequestContext, user: ReturnType<typeof newUser>): Promise<Identity> {
  const res = await request.post(`${AUTH_EMULATOR}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=${FIREBASE_API_KEY}`, {
    data: { email: user.email, password: user.password, displayName: user.username, returnSecureToken: true },
  });
  expect(res.ok(), await res.text()).toBeTruthy();
  const body = (await res.json()) as { localId: string; idToken: string };
  const who: Identity = { uid: body.localId, idToken: body.idToken };
  const onboarding = await request.post('/api/user/onboarding', {
    headers: { Authorization: `Bearer ${who.idToken}` },
    data: { displayName: user.username },
  });
  expect(onboarding.status(), await onboarding.text()).toBe(200);
  return who;
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
