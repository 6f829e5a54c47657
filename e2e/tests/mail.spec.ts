import { expect, test, type Locator, type Page } from '@playwright/test';
import { createAgent, newAgent, openAgentList, openEditor } from '../support/agents';
import { SIM_MODEL_TAG, fundWallet, openChatTab, sharedDocument } from '../support/chat';
import { addDocument } from '../support/documents';
import { mailsTo, referencesOf, smtpSend, waitForReply } from '../support/mail';
import { newUser, register, toast } from '../support/users';
import { getBalance } from '../support/wallet';
import { allowTime } from '../support/timeouts';

/*
 * Issue 15 (web + the mail service end to end): the agent's e-mail address in the editor's Channels tab,
 * an e-mail from the owner answered as a reply in the thread (maildev is the relay and the mailbox), the
 * exchange shown in the app as a conversation marked "E-mail" and paid from the owner's wallet, and a
 * stranger refused during the SMTP session. Needs the whole local stack (docs/mail.md, APP_ENV=development).
 */

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

async function openChannelsTab(editor: Locator): Promise<Locator> {
  await editor.getByRole('tab', { name: 'Channels', exact: true }).click();
  const email = editor.getByRole('region', { name: 'E-mail' });
  await expect(email).toBeVisible();
  return email;
}

const transactions = (page: Page) => page.getByRole('region', { name: 'Transactions' });

test('the owner e-mails the agent: a threaded reply, an E-mail conversation in the app and the charge in the wallet', async ({
  page,
  request,
}) => {
  allowTime(240_000);
  const owner = newUser('mail');
  await register(page, owner);
  // $25: an agent's first answer may also take its $10 monthly fee.
  const who = await fundWallet(request, owner.email, owner.password, 2500);

  await openAgentList(page);
  const agent = newAgent('Mail');
  await createAgent(page, agent);
  const editor = await openEditor(page, agent.name);
  const headerAddress = (await editor.getByTestId('agent-email').textContent())!.trim();
  expect(headerAddress).toContain('@');

  // --- Channels: the address with Copy, the hint, and the Google Docs watched for mentions.
  const doc = await sharedDocument(request);
  await addDocument(page, editor, { name: 'AlgebraSyllabus', url: doc.url });
  await addDocument(page, editor, {
    name: 'PricingNotes',
    url: 'https://docs.google.com/document/d/1SimConfidentialPricingNotes_000000000000001/edit',
  });
  const email = await openChannelsTab(editor);
  const agentAddress = (await email.getByTestId('channels-email').textContent())!.trim();
  expect(agentAddress).toBe(headerAddress);
  await expect(email.getByTestId('channels-email')).toHaveAttribute('href', `mailto:${agentAddress}`);
  await expect(email.getByText('Send it an e-mail to try it.')).toBeVisible();
  await expect(email).toContainText("You and the agent's active subscribers can write to this address");
  await email.getByRole('button', { name: 'Copy', exact: true }).click();
  await expect(toast(page, 'Address copied', agentAddress)).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(agentAddress);

  const comments = editor.getByRole('region', { name: 'Google Docs comments' });
  await expect(comments.getByTestId('channels-mention-hint')).toHaveText(`Mention ${agentAddress} in a comment to ask the agent.`);
  const docItem = (name: string) => comments.getByTestId('channel-document').filter({ hasText: name });
  // Each document's access is checked by a background sync; the list polls meanwhile.
  await expect(docItem('AlgebraSyllabus').getByTestId('watch-status')).toHaveText('Watched for mentions', { timeout: 45_000 });
  await expect(docItem('PricingNotes').getByTestId('watch-status')).toHaveText('Not watched', { timeout: 45_000 });
  await expect(docItem('PricingNotes')).toContainText(`Share this document with ${agentAddress}`);
  await expect(comments.getByTestId('channels-watched-count')).toHaveText('1 of 2 linked documents are watched for mentions.');

  // --- A stranger (no account) is refused during the session: 550 5.7.1 at RCPT TO, nothing accepted.
  const stranger = newUser('stranger').email;
  const refused = await smtpSend({ from: stranger, to: agentAddress, subject: 'Let me in', text: 'Answer me please.' });
  expect(refused.greeting.code, refused.transcript.join('\n')).toBe(220);
  expect(refused.rcptTo.code, refused.transcript.join('\n')).toBe(550);
  expect(refused.rcptTo.text).toMatch(/^5\.7\.1\b/);
  expect(refused.data).toBeUndefined();
  // An address that is no agent's: 550 5.1.1.
  const unknown = await smtpSend({ from: owner.email, to: `nobody-${Date.now()}@${agentAddress.split('@')[1]}`, subject: 'Hi', text: 'Hi' });
  expect(unknown.rcptTo.code, unknown.transcript.join('\n')).toBe(550);
  expect(unknown.rcptTo.text).toMatch(/^5\.1\.1\b/);

  // --- The owner writes from their own address: accepted (stored before 250) and answered as a reply.
  const balanceBefore = await getBalance(request, who);
  const subject = `Office hours ${Date.now().toString(36)}`;
  const question = 'When are the office hours of the instructor?';
  const sent = await smtpSend({ from: owner.email, to: agentAddress, subject, text: `${question}\n\nThanks!\n` });
  expect(sent.rcptTo.code, sent.transcript.join('\n')).toBe(250);
  expect(sent.data?.code, sent.transcript.join('\n')).toBe(250);

  const reply = await waitForReply(request, owner.email, sent.messageId, 90_000);
  expect(reply.subject).toBe(`Re: ${subject}`);
  expect(reply.from.map((a) => a.address.toLowerCase())).toEqual([agentAddress.toLowerCase()]);
  expect(referencesOf(reply)).toContain(sent.messageId);
  // A plain-text and an HTML part.
  expect(reply.text?.trim() ?? '').not.toBe('');
  expect(reply.html?.trim() ?? '').not.toBe('');
  expect(reply.text).not.toContain('cannot answer right now');

  // The stranger got nothing back (no backscatter).
  expect(await mailsTo(request, stranger)).toHaveLength(0);

  // --- In the app: the exchange is a conversation marked E-mail in the Chat tab.
  const panel = await openChatTab(editor);
  await expect(panel.getByTestId('chat-model')).toHaveText(SIM_MODEL_TAG);
  const item = panel.getByRole('button', { name: `${subject} E-mail`, exact: true });
  await expect(item).toBeVisible({ timeout: 20_000 });
  await expect(item.getByTestId('conversation-channel')).toHaveText('E-mail');
  await item.click();
  await expect(panel.getByTestId('chat-conversation-title')).toHaveText(subject);
  await expect(panel.locator('.chat-panel__header').getByTestId('conversation-channel')).toHaveText('E-mail');
  await expect(panel.getByTestId('chat-channel-note')).toContainText('This conversation started by e-mail.');
  await expect(panel.locator('[data-testid="chat-message"][data-role="user"]').first()).toContainText(question);
  const answer = panel.locator('[data-testid="chat-message"][data-role="assistant"]').first();
  await expect(answer).toHaveAttribute('data-status', 'complete');
  await expect(answer.getByTestId('answer-usage')).toBeVisible();

  // --- Paid from the owner's wallet: the balance dropped and Transaction History lists the expense.
  await expect.poll(() => getBalance(request, who), { timeout: 30_000 }).toBeLessThan(balanceBefore);
  await page.goto('/dashboard/wallet');
  await expect(page.getByRole('heading', { level: 1, name: 'Wallet' })).toBeVisible();
  const charge = transactions(page).locator('tbody tr').filter({ hasText: agent.name }).filter({ hasText: /tokens/ });
  await expect(async () => {
    if (!(await charge.first().isVisible())) {
      await page.reload();
      await expect(page.getByRole('heading', { level: 1, name: 'Wallet' })).toBeVisible();
    }
    await expect(charge.first()).toBeVisible({ timeout: 5_000 });
  }).toPass({ timeout: 45_000 });
  await expect(charge.first()).toContainText('Expense');
  await expect(charge.first()).toContainText(/-\$\d/);
});
