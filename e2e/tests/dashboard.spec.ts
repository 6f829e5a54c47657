import { expect, test, type Page } from '@playwright/test';
import { createAgent, newAgent, openAgentList } from '../support/agents';
import { newUser, register } from '../support/users';
import { allowTime } from '../support/timeouts';

/** The stat card (an <article> named by its title). */
function statCard(page: Page, title: string) {
  return page.getByRole('article', { name: title });
}

function recentActivity(page: Page) {
  return page.getByRole('list', { name: 'Recent activity' });
}

test('a new user sees zeros and no recent activity', async ({ page }) => {
  await register(page, newUser('dash'));
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
  await expect(page.getByText(/^Last updated: \d\d\/\d\d\/\d{4}, /)).toBeVisible();

  const users = statCard(page, 'Total Agentic Users');
  await expect(users).toContainText('0');
  await expect(users).toContainText('+0.0% from last month');
  await expect(users.locator('[data-direction="up"][data-color="green"]')).toBeVisible();
  await expect(statCard(page, 'Total Revenue')).toContainText('$0.00');
  await expect(statCard(page, 'Interactions')).toContainText('0');

  await expect(page.getByText('No recent activity')).toBeVisible();
  await expect(page.getByRole('button', { name: 'View all activity' })).toHaveCount(0);
});

test('creating an agent and adding a document show up on the dashboard', async ({ page }) => {
  allowTime(120_000);
  await register(page, newUser('dash'));
  await openAgentList(page);

  const agent = { ...newAgent('Tutor'), color: 'Purple' };
  const created = page.waitForResponse((r) => r.url().endsWith('/api/agents') && r.request().method() === 'POST');
  await createAgent(page, agent);
  const res = await created;
  expect(res.status()).toBe(201);
  const { id } = (await res.json()) as { id: string };
  const authorization = res.request().headers()['authorization'];
  expect(authorization).toMatch(/^Bearer /);

  const doc = await page.request.post(`/api/agents/${id}/documents`, {
    headers: { authorization },
    data: {
      name: 'Syllabus',
      url: 'https://docs.google.com/document/d/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789/edit',
      driveFileId: '1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
      labels: [],
      sharingStatus: 'shared',
    },
  });
  expect(doc.ok(), await doc.text()).toBeTruthy();

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  // Events flow asynchronously (catalog/documents outbox → Kafka → analytics): reload until they arrived.
  const upload = recentActivity(page).getByRole('listitem').filter({ hasText: `Document "Syllabus" added to ${agent.name}` });
  await expect(async () => {
    await page.reload();
    // A reloaded dashboard restores the session, then asks for stats and activities: on a loaded machine that
    // takes more than 2 s, so each reload gets 10 s to show them.
    await expect(upload).toBeVisible({ timeout: 10_000 });
    await expect(statCard(page, 'Total Agentic Users')).toContainText('1', { timeout: 10_000 });
  }).toPass({ timeout: 75_000 });

  // Against an empty last month the growth is "New", not "+100%" (issue 29).
  const users = statCard(page, 'Total Agentic Users');
  await expect(users).toContainText('New this month');
  await expect(users).not.toContainText('+100.0%');
  await expect(users.locator('[data-direction="new"]')).toBeVisible();

  // The upload row: file-upload/purple icon, agent tag in the agent's colour, 'Documents: Google Docs' in blue.
  await expect(upload.locator('[data-icon="file-upload"][data-color="purple"]')).toHaveCount(1);
  await expect(upload.locator('[data-tag="agent"]')).toHaveText(agent.name);
  await expect(upload.locator('[data-tag="agent"]')).toHaveAttribute('data-color', '#6767EC');
  await expect(upload.locator('[data-tag="documents"]')).toHaveText('Documents: Google Docs');
  await expect(upload.locator('[data-tag="documents"]')).toHaveAttribute('data-color', 'blue');

  // The creation row: info/gray.
  const create = recentActivity(page).getByRole('listitem').filter({ hasText: `Created agent ${agent.name}` });
  await expect(create).toBeVisible();
  await expect(create.locator('[data-icon="info"][data-color="gray"]')).toHaveCount(1);
  await expect(create).toContainText(/less than a minute ago|1 minute ago|minutes ago/);

  // Newest first.
  await expect(recentActivity(page).getByRole('listitem').first()).toContainText('Document "Syllabus"');
  await expect(page.getByRole('button', { name: 'View all activity' })).toBeVisible();
  await expect(page.getByText('No recent activity')).toHaveCount(0);
});

test('the dashboard API answers only for the caller and validates its parameters', async ({ page, request }) => {
  const anonymous = await request.get('/api/dashboard/stats');
  expect(anonymous.status()).toBe(401);

  await register(page, newUser('dash'));
  const statsCall = page.waitForRequest((r) => r.url().endsWith('/api/dashboard/stats'));
  await page.reload();
  const authorization = (await statsCall).headers()['authorization'];
  const bad = await page.request.get('/api/activities?limit=0', { headers: { authorization } });
  expect(bad.status()).toBe(400);
  expect(await bad.json()).toMatchObject({ error: 'invalid_query' });
  const ok = await page.request.get('/api/activities?limit=50', { headers: { authorization } });
  expect(ok.status()).toBe(200);
  expect(await ok.json()).toEqual([]);
});
