import { expect, test, type Page } from '@playwright/test';
import { newUser, register } from '../support/users';
import { allowTime } from '../support/timeouts';

// Issue 30 item 3: security headers on every response of the gateway, and the SPA working under its
// Content-Security-Policy (no violation while a user signs up and goes through the dashboard's screens).

const REQUIRED = {
  'x-content-type-options': /^nosniff$/,
  'referrer-policy': /^strict-origin-when-cross-origin$/,
  'permissions-policy': /camera=\(\)/,
  'content-security-policy': /frame-ancestors 'none'.*object-src 'none'.*base-uri 'self'/,
};

test('every kind of response carries the security headers', async ({ request }) => {
  for (const path of ['/', '/auth', '/dashboard/wallet', '/favicon.svg', '/api/v1/models', '/api/nope', '/api/agents']) {
    const res = await request.get(path);
    const headers = res.headers();
    for (const [name, pattern] of Object.entries(REQUIRED)) {
      expect(headers[name], `${path} (${res.status()}): ${name}`).toMatch(pattern);
    }
    // Images only from the app itself, data: and blob: (never a remote image).
    expect(headers['content-security-policy']).toContain("img-src 'self' data: blob:;");
  }
});

/** Records every CSP violation the page reports (from before its first script). */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __csp: string[] }).__csp = seen;
    document.addEventListener('securitypolicyviolation', (e) => {
      seen.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const fromConsole: string[] = [];
  page.on('console', (msg) => {
    if (msg.text().includes('Content Security Policy')) fromConsole.push(msg.text());
  });
  return async () => [...fromConsole, ...(await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp ?? []))];
}

test('the app works under its Content-Security-Policy', async ({ page }) => {
  allowTime(120_000);
  const violations = await watchViolations(page);
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  expect(await violations()).toEqual([]);

  const user = newUser('csp');
  await register(page, user); // the Auth emulator through connect-src
  for (const [path, heading] of [
    ['/dashboard', /Dashboard|Welcome/],
    ['/dashboard/agentic-users', /Your Agentic Users/],
    ['/dashboard/wallet', /Wallet/],
    ['/dashboard/shared', /Shared with me/],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
    expect(await violations(), path).toEqual([]);
  }
});
