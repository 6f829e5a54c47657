import { defineConfig } from '@playwright/test';

// The suite runs against the whole local stack (gateway on :8080, services,
// Auth emulator), started by `make dev` or by `tilt ci` (make e2e-ci).
export default defineConfig({
  testDir: './tests',
  // Under CI the whole stack, two browsers and the suite share two cores. In
  // the CI runs of 2026-11-29 the suite ran about three times slower than on
  // a quiet machine, and the longest tests went past their bounds with
  // nothing wrong in them. Locally 60 s stays the bound; tests that set
  // their own use allowTime (support/timeouts.ts), scaled the same way.
  timeout: process.env.CI ? 180_000 : 60_000,
  expect: { timeout: process.env.CI ? 15_000 : 10_000 },
  fullyParallel: true,
  workers: process.env.E2E_WORKERS ? Number(process.env.E2E_WORKERS) : 2,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : 'list',
  use: {
    baseURL: process.env.E2E_BASE_URL ?? 'http://localhost:8080',
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      // Playwright cannot download its own browsers here: use Debian's.
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
});
