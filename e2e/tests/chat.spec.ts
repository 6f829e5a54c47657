import { expect, test } from '@playwright/test';
import { createAgent, newAgent, openAgentList, openEditor } from '../support/agents';
import {
  SIM_MODEL_TAG,
  fundWallet,
  inviteFromUsersTab,
  verifyEmailThroughBanner,
  lastAnswer,
  openChatTab,
  openSharedAgent,
  questionAbout,
  sendChatMessage,
  sharedDocument,
  waitForAnswer,
} from '../support/chat';
import { addDocument } from '../support/documents';
import { newUser, register } from '../support/users';
import { emulatorSignIn, getBalance } from '../support/wallet';
import { allowTime } from '../support/timeouts';

// Issue #14 (web): talking to an agent. Runs against the whole stack: the conversations service with the
// LLM simulator (model agentic-sim), the Drive simulator's seeded documents and wallets funded through
// the Stripe simulator. Answers are metered against the paying wallet (the owner's, also for subscribers).

test('the owner chats in the editor: a streamed, cited answer with its tokens and cost', async ({ page, request }) => {
  allowTime(180_000);
  const owner = newUser('chat');
  await register(page, owner);
  await fundWallet(request, owner.email, owner.password, 2500);
  const doc = await sharedDocument(request);

  await openAgentList(page);
  const agent = newAgent('Chat');
  await createAgent(page, agent);
  const editor = await openEditor(page, agent.name);
  await addDocument(page, editor, { name: 'AlgebraSyllabus', url: doc.url });

  const panel = await openChatTab(editor);
  await expect(panel.getByRole('heading', { name: `Chat with ${agent.name}` })).toBeVisible();
  await expect(panel.getByTestId('chat-model')).toHaveText(SIM_MODEL_TAG);
  await expect(panel.getByText('Answers are charged to your wallet.')).toBeVisible();

  // The linked document is indexed in the background: ask again until an answer cites it.
  const question = questionAbout(doc);
  await expect(async () => {
    await sendChatMessage(panel, question);
    const answer = await waitForAnswer(panel);
    await expect(answer.locator('.chat-markdown')).not.toBeEmpty();
    const chip = answer.getByTestId('citation-chip').first();
    await expect(chip).toBeVisible({ timeout: 2_000 });
    // Named after the linked document (our name for it, or the Doc's title: both say Algebra for the seed).
    if (/algebra/i.test(doc.title)) await expect(chip).toHaveText(/Algebra/);
    await expect(chip).toHaveAttribute('href', new RegExp(doc.id));
    await expect(chip).toHaveAttribute('target', '_blank');
  }).toPass({ timeout: 120_000, intervals: [3_000, 5_000, 10_000] });

  // The conversation is listed, titled after the first message, and survives a reload.
  await expect(panel.getByRole('button', { name: question, exact: true })).toHaveAttribute('aria-current', 'true');
  await page.reload();
  const again = await openChatTab(await openEditor(page, agent.name));
  await expect(lastAnswer(again).getByTestId('answer-usage')).toBeVisible({ timeout: 20_000 });
  await expect(lastAnswer(again).getByTestId('citation-chip').first()).toBeVisible();
});

test('with an empty wallet the owner sees the 402 message naming the agent fee, and Add Funds', async ({ page }) => {
  allowTime(120_000);
  await register(page, newUser('chat402'));
  await openAgentList(page);
  const agent = newAgent('Broke');
  await createAgent(page, agent);
  const panel = await openChatTab(await openEditor(page, agent.name));

  await sendChatMessage(panel, 'Hello, are you there?');
  const alert = lastAnswer(panel).getByRole('alert');
  // A new agent's first answer starts its $10 monthly fee: the refusal names it and what to add (the fee and
  // this answer's worst case, rounded up to the cent).
  await expect(alert).toContainText(/This agent's monthly fee of \$10\.00 is due: add \$10\.\d\d to your wallet to continue\./, {
    timeout: 30_000,
  });
  await expect(lastAnswer(panel).getByTestId('answer-usage')).toHaveCount(0);
  const addFunds = alert.getByRole('link', { name: 'Add Funds' });
  await expect(addFunds).toHaveAttribute('href', '/dashboard/wallet');
  await addFunds.click();
  await expect(page).toHaveURL(/\/dashboard\/wallet$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Wallet' })).toBeVisible();
});

test("an invited user chats under Shared with me and the owner's balance drops", async ({ page, browser, request }) => {
  allowTime(180_000);
  const owner = newUser('chatown');
  await register(page, owner);
  const ownerId = await fundWallet(request, owner.email, owner.password, 2500);

  // The invitee signs up first and verifies the address: an invitation activates only for a verified
  // address, on the invitee's next visit (docs/catalog.md).
  const guest = newUser('chatguest');
  const context = await browser.newContext();
  const guestPage = await context.newPage();
  await register(guestPage, guest);
  await verifyEmailThroughBanner(guestPage, request, guest.email);
  await guestPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Shared with me' }).click();
  await expect(guestPage).toHaveURL(/\/dashboard\/shared$/);
  await expect(guestPage.getByText('No agents have been shared with you yet.')).toBeVisible();

  await openAgentList(page);
  const agent = newAgent('Shared');
  await createAgent(page, agent);
  const editor = await openEditor(page, agent.name);
  await inviteFromUsersTab(page, editor, guest.email);

  const before = await getBalance(request, ownerId);
  const panel = await openSharedAgent(guestPage, agent.name);
  await expect(panel.getByRole('heading', { name: `Chat with ${agent.name}` })).toBeVisible();
  await expect(panel.getByTestId('chat-model')).toHaveText(SIM_MODEL_TAG);
  await expect(panel.getByText("Answers are paid for by the agent's owner.")).toBeVisible();

  await sendChatMessage(panel, 'What can you help me with?');
  await waitForAnswer(panel);

  // Paid from the owner's wallet, not the subscriber's.
  await expect.poll(() => getBalance(request, ownerId), { timeout: 30_000 }).toBeLessThan(before);
  const guestId = await emulatorSignIn(request, guest.email, guest.password);
  expect(await getBalance(request, guestId)).toBe(0);
  await context.close();
});
