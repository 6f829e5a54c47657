import { expect, test } from '@playwright/test';
import { fundWallet, sendChatMessage, waitForAnswer } from '../support/chat';
import { listAgentByApi } from '../support/marketplace';
import { login, newUser, register, registerByApi, toast } from '../support/users';
import { emulatorSignIn, getBalance, type Identity } from '../support/wallet';
import { allowTime } from '../support/timeouts';

// Issue 28, "Exactness and faults": a consumer chats with a listed agent from their own wallet and sees the price
// of each answer in parts; the creator sees Total Revenue and the Earnings page move, onboards a payout account in
// the Stripe simulator and withdraws. The stack runs EARNINGS_HOLD=1m (tilt/lib.tilt): earnings become available
// a minute after each answer.

const GREETING = 'Welcome to the observatory desk. Ask me about visiting rules.';

/** Sends a message in a new conversation of the consumer's through the API (JSON answer) and returns its usage. */
async function answerByApi(request: import('@playwright/test').APIRequestContext, who: Identity, agentId: string, text: string) {
  const auth = { Authorization: `Bearer ${who.idToken}` };
  const conv = await request.post(`/api/agents/${agentId}/conversations`, { headers: auth, data: { title: 'Second visit' } });
  expect(conv.status(), await conv.text()).toBe(201);
  const { id } = (await conv.json()) as { id: string };
  const res = await request.post(`/api/conversations/${id}/messages`, {
    headers: { ...auth, Accept: 'application/json' },
    data: { content: text, clientMessageId: `e2e-${Date.now()}` },
  });
  expect(res.status(), await res.text()).toBe(200);
  const body = (await res.json()) as { assistantMessage: { usage: Record<string, number> } };
  return body.assistantMessage.usage;
}

test('a consumer pays per answer; the creator earns, sees it, onboards payouts and withdraws', async ({ page, browser, request }) => {
  allowTime(240_000);

  // --- The creator lists an agent: 50% markup, $5.00 to start a conversation. ----------------------------------
  const creatorUser = newUser('mkcreator');
  await registerByApi(request, creatorUser);
  // The agent's $10.00 monthly fee is the creator's, charged with the first consumer answer.
  const creator = await fundWallet(request, creatorUser.email, creatorUser.password, 1100);
  const listed = await listAgentByApi(request, creator, 'Observatory', {
    markupPercent: 50,
    greetingCostCents: 500,
    greeting: GREETING,
  });

  // --- A consumer with $12.00 opens the agent's chat from the marketplace. --------------------------------------
  const consumerUser = newUser('mkconsumer');
  await register(page, consumerUser);
  const consumer = await fundWallet(request, consumerUser.email, consumerUser.password, 1200);
  await page.goto(`/marketplace/${listed.slug}/chat`);
  await expect(page.getByRole('heading', { level: 1, name: `Chat with ${listed.name}` })).toBeVisible();
  const notice = page.getByTestId('consumer-price-notice');
  await expect(notice).toContainText(
    "You pay per answer from your wallet: the model's usage, a 3% service fee and the creator's 50% markup.",
  );
  await expect(notice).toContainText('Starting a conversation costs $5.00, charged with its first answer.');
  await expect(page.getByTestId('consumer-balance')).toHaveText('$12.00');
  // The greeting is the agent's first message, free: shown before the first question, then kept in the conversation.
  await expect(page.getByTestId('chat-greeting')).toContainText(GREETING);

  const panel = page.getByTestId('chat-panel');
  await sendChatMessage(panel, `How long may visitors use the telescope at the ${listed.word} observatory?`);
  const answer = await waitForAnswer(panel);
  await expect(answer.locator('.chat-markdown')).toContainText(/forty minutes/i);
  await expect(panel.getByText(GREETING)).toBeVisible();
  const parts = answer.getByTestId('answer-price-parts');
  await expect(parts).toContainText(/^usage \$0\.\d+ \+ service fee \$0\.\d+ \+ markup \$0\.\d+ \+ greeting \$5\.00/);
  const firstTotal = 12 - (await getBalance(request, consumer));
  expect(firstTotal).toBeGreaterThan(5);
  expect(firstTotal).toBeLessThan(5.1);

  // A second conversation (through the API) costs its greeting once more; its parts add up to its total.
  const second = await answerByApi(request, consumer, listed.id, 'Where are tickets sold?');
  expect(second.greetingMicros).toBe(5_000_000);
  expect(second.markupMicros).toBe(Math.ceil((second.costMicros * 50) / 100));
  expect(second.feeMicros).toBe(Math.ceil((second.costMicros * 3) / 100));
  expect(second.totalMicros).toBe(second.costMicros + second.feeMicros + second.markupMicros + second.greetingMicros);
  await expect.poll(() => getBalance(request, consumer)).toBeLessThan(2);

  // --- The creator: Total Revenue and the Earnings page. ---------------------------------------------------------
  const creatorContext = await browser.newContext();
  const creatorPage = await creatorContext.newPage();
  await login(creatorPage, creatorUser.email, creatorUser.password);
  await expect(creatorPage.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
  // $10.00 of greetings plus the markups, in cents: "$10.00" or a little more.
  await expect(async () => {
    await creatorPage.reload();
    await expect(creatorPage.getByRole('article', { name: 'Total Revenue' })).toContainText(/\$10\.0\d/, { timeout: 3_000 });
  }).toPass({ timeout: 30_000, intervals: [1_000, 2_000, 3_000] });

  await creatorPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Earnings' }).click();
  await expect(creatorPage).toHaveURL(/\/dashboard\/earnings$/);
  await expect(creatorPage.getByRole('heading', { level: 1, name: 'Earnings' })).toBeVisible();
  await expect(creatorPage.getByTestId('earnings-hold')).toContainText('1 minute');
  const agents = creatorPage.getByTestId('earnings-agents');
  await expect(agents).toContainText(listed.name);
  // Pending first; available once the hold has passed (a minute, matured within the next tick).
  await expect(creatorPage.getByTestId('earnings-pending')).toContainText(/\$10\.0\d/);
  await expect(async () => {
    await creatorPage.reload();
    await expect(creatorPage.getByTestId('earnings-available')).toContainText(/\$10\.0\d/, { timeout: 3_000 });
  }).toPass({ timeout: 120_000, intervals: [5_000] });

  // --- Payouts: onboarding in the Stripe simulator, then a $10.00 withdrawal. ----------------------------------
  const account = creatorPage.getByTestId('payout-account-state');
  await expect(account).toHaveAttribute('data-status', 'none');
  await creatorPage.getByRole('button', { name: 'Set up payouts' }).click();
  await expect(creatorPage.getByRole('heading', { level: 1, name: 'Set up payouts' })).toBeVisible();
  await creatorPage.getByRole('button', { name: 'Complete onboarding' }).click();
  await expect(creatorPage).toHaveURL(/\/dashboard\/earnings\?payouts=return$/);
  await expect(async () => {
    await creatorPage.reload();
    await expect(account).toHaveAttribute('data-status', 'enabled', { timeout: 3_000 });
  }).toPass({ timeout: 30_000, intervals: [1_000, 2_000] });
  await expect(account).toContainText('Your payout account is ready: you can withdraw available earnings.');

  // Below the minimum: the form says so, nothing is sent.
  const amount = creatorPage.getByRole('spinbutton', { name: 'Amount to withdraw' });
  await amount.fill('9.99');
  await creatorPage.getByRole('button', { name: 'Withdraw', exact: true }).click();
  await expect(creatorPage.getByText('The minimum withdrawal is $10.00.')).toBeVisible();

  await amount.fill('10');
  await creatorPage.getByRole('button', { name: 'Withdraw', exact: true }).click();
  const confirm = creatorPage.getByRole('dialog', { name: 'Withdraw $10.00?' });
  await confirm.getByRole('button', { name: 'Withdraw $10.00' }).click();
  await expect(toast(creatorPage, 'Payout on its way')).toBeVisible();
  const payout = creatorPage.getByTestId('payout-row').first();
  await expect(payout).toBeVisible();
  // transfer.created settles it: Paid (the list refetches).
  await expect(async () => {
    await creatorPage.reload();
    await expect(creatorPage.getByTestId('payout-row').first()).toHaveAttribute('data-status', 'paid', { timeout: 3_000 });
  }).toPass({ timeout: 30_000, intervals: [1_000, 2_000] });
  await expect(creatorPage.getByTestId('earnings-paid-out')).toContainText('$10.00');
  await expect(creatorPage.getByTestId('earnings-available')).toContainText(/\$0\.0\d/);

  // The consumer cannot see the creator's earnings: their own are zero.
  const mine = await emulatorSignIn(request, consumerUser.email, consumerUser.password);
  const theirs = await request.get('/api/user/earnings', { headers: { Authorization: `Bearer ${mine.idToken}` } });
  expect(theirs.status()).toBe(200);
  expect(await theirs.json()).toMatchObject({ pending: 0, available: 0, paidOut: 0 });
  await creatorContext.close();
});
