import { expect, test, type Locator, type Page } from '@playwright/test';
import { execFile } from 'node:child_process';
import OpenAI from 'openai';
import { createAgent, newAgent, openAgentList, openEditor } from '../support/agents';
import { fundWallet } from '../support/chat';
import { newUser, register } from '../support/users';
import { getBalance } from '../support/wallet';
import { allowTime } from '../support/timeouts';

// Issue #17: the agent API. Runs against the whole stack (gateway on :8080, the conversations service with
// the LLM simulator, the wallet funded through the Stripe simulator). The key is created in the editor's API
// tab; the shown curl runs as is, then the official `openai` npm package talks to the gateway with it.

/** Runs a shell command (the curl example exactly as shown, plus output flags) and returns its stdout. */
function sh(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('sh', ['-c', command], { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** Runs the shown curl, returning the HTTP status and the parsed body. */
async function runCurl(curl: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const out = await sh(`${curl.trim()} -sS -w '\\n%{http_code}'`);
  const lines = out.trimEnd().split('\n');
  const status = Number(lines.pop());
  return { status, body: JSON.parse(lines.join('\n')) as Record<string, unknown> };
}

async function openApiTab(page: Page, agentName: string): Promise<Locator> {
  const editor = await openEditor(page, agentName);
  const panel = editor.getByTestId('api-keys-panel');
  // A click on the tab right after a reload was once lost (the editor stayed on its first tab, with no
  // error): clicking a tab again is harmless, so click until its panel shows.
  await expect(async () => {
    await editor.getByRole('tab', { name: 'API', exact: true }).click();
    await expect(panel).toBeVisible({ timeout: 4_000 });
  }).toPass({ timeout: 20_000 });
  return panel;
}

test('the owner creates an API key, calls the agent with curl and the openai package, and revokes it', async ({
  page,
  request,
  context,
  baseURL,
}) => {
  allowTime(240_000);
  const origin = baseURL ?? 'http://localhost:8080';
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const owner = newUser('api');
  await register(page, owner);
  // $25: an agent's first answer may start its monthly fee (see chat.spec.ts).
  const ownerId = await fundWallet(request, owner.email, owner.password, 2500);

  await openAgentList(page);
  const agent = newAgent('Api');
  await createAgent(page, agent);
  let panel = await openApiTab(page, agent.name);
  await expect(panel.getByText('No API keys yet')).toBeVisible();
  const model = ((await panel.getByTestId('api-model').textContent()) ?? '').trim();
  expect(model).toMatch(/^agentic\/[0-9a-f-]{36}$/);
  await expect(panel.getByTestId('api-base-url')).toHaveText(`${origin}/api/v1`);

  // Create: the key is shown once, with a copy button.
  await panel.getByLabel('Key name').fill('E2E script');
  await panel.getByLabel('Monthly limit in $ (optional)').fill('5');
  await panel.getByRole('button', { name: 'Create API key' }).click();
  const shown = panel.getByTestId('api-key-created');
  await expect(shown).toBeVisible();
  await expect(shown).toContainText('shown only once');
  const key = ((await shown.getByTestId('api-key-secret').textContent()) ?? '').trim();
  expect(key).toMatch(/^agk_[0-9A-Za-z]{32}$/);
  await shown.getByTestId('api-key-copy').click();
  await expect(shown.getByTestId('api-key-copy')).toHaveText(/Copied/);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

  const row = panel.getByRole('row').filter({ hasText: 'E2E script' });
  await expect(row).toContainText(`${key.slice(0, 10)}…`);
  await expect(row).toContainText('$0.00 of $5.00');
  await expect(panel.locator('table')).not.toContainText(key);

  // The shown curl, run as it is: an answer from the agent with its cost.
  const curl = (await panel.getByTestId('api-example-curl').textContent()) ?? '';
  expect(curl).toContain(`Bearer ${key}`);
  expect(curl).toContain(`"model":"${model}"`);
  const first = await runCurl(curl);
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  const choices = first.body.choices as { message: { content: string } }[];
  expect(choices[0].message.content.length).toBeGreaterThan(0);
  expect((first.body.usage as { cost: number }).cost).toBeGreaterThan(0);

  // Once dismissed, the key is never shown again (the list has only its prefix).
  await shown.getByRole('button', { name: 'I have copied it' }).click();
  await expect(shown).toBeHidden();
  await page.reload();
  panel = await openApiTab(page, agent.name);
  await expect(panel.getByRole('row').filter({ hasText: 'E2E script' })).toBeVisible();
  await expect(panel).not.toContainText(key);

  // The official openai package, pointed at the gateway: not streamed, then streamed.
  const before = await getBalance(request, ownerId);
  const client = new OpenAI({ baseURL: `${origin}/api/v1`, apiKey: key, maxRetries: 0 });
  const models = await client.models.list();
  expect(models.data.map((m) => m.id)).toEqual([model]);
  const completion = await client.chat.completions.create({
    model,
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What can you help me with?' },
    ],
  });
  expect(completion.object).toBe('chat.completion');
  expect(completion.choices[0].message.content?.length).toBeGreaterThan(0);
  expect(completion.choices[0].finish_reason).toBe('stop');
  expect(completion.usage?.total_tokens).toBeGreaterThan(0);
  expect((completion.usage as unknown as { cost: number }).cost).toBeGreaterThan(0);

  const stream = await client.chat.completions.create({
    model,
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'What can you help me with?' }],
  });
  let text = '';
  let chunks = 0;
  let usage: (OpenAI.CompletionUsage & { cost?: number }) | undefined;
  for await (const chunk of stream) {
    chunks += 1;
    text += chunk.choices[0]?.delta?.content ?? '';
    if (chunk.usage) usage = chunk.usage;
  }
  expect(chunks).toBeGreaterThan(3);
  expect(text).toBe(completion.choices[0].message.content);
  expect(usage?.cost).toBeGreaterThan(0);

  // Paid from the owner's wallet; the key's spend and last use show in the tab.
  await expect.poll(() => getBalance(request, ownerId), { timeout: 30_000 }).toBeLessThan(before);
  await page.reload();
  panel = await openApiTab(page, agent.name);
  const used = panel.getByRole('row').filter({ hasText: 'E2E script' });
  await expect(used).not.toContainText('$0.00 of $5.00');
  // Columns: Name, Key, Created, Last used, This month, Expires.
  await expect(used.getByRole('cell').nth(3)).toHaveText(
    new Date().toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' }),
  );

  // The key reaches no other route, and a sign-in token is not an API key.
  const onOther = await request.get(`/api/agents/${model.slice('agentic/'.length)}/api-keys`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  expect(onOther.status()).toBe(401);
  const withToken = await request.get('/api/v1/models', { headers: { Authorization: `Bearer ${ownerId.idToken}` } });
  expect(withToken.status()).toBe(401);
  expect(((await withToken.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');

  // Revoke (with confirmation): the same curl now gets 401, and so does the SDK.
  await used.getByRole('button', { name: 'Revoke E2E script' }).click();
  await page.getByRole('button', { name: 'Revoke', exact: true }).click();
  await expect(panel.getByText('No API keys yet')).toBeVisible();
  const after = await runCurl(curl);
  expect(after.status).toBe(401);
  expect((after.body.error as { code: string }).code).toBe('invalid_api_key');
  const refused = await client.chat.completions
    .create({ model, messages: [{ role: 'user', content: 'Still there?' }] })
    .then(
      () => null,
      (error: unknown) => error,
    );
  expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
});
