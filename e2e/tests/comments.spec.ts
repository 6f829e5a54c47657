import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { createAgent, newAgent, openAgentList, openEditor } from '../support/agents';
import { fundWallet, openChatTab } from '../support/chat';
import { addDocument, documentRow } from '../support/documents';
import { DRIVE_SIM_URL, createSimFile, simDocUrl, uniqueWord } from '../support/drive-sim';
import { newUser, register } from '../support/users';
import { getBalance } from '../support/wallet';
import { allowTime } from '../support/timeouts';

/*
 * Issue 15 (Google Docs comments, docs/documents.md): in a Google Doc linked to the agent and readable by it, the
 * owner writes a comment mentioning the agent's address; the documents service (polling comments every
 * DOCUMENT_COMMENTS_INTERVAL, 15 s under Tilt) has the conversations service answer it and replies in the
 * comment's thread as the agent. A stranger's mention is never answered. The answer is paid from the owner's
 * wallet. Needs the whole local stack with the Drive simulator (DRIVE_SIM_URL).
 */

interface SimReply {
  id: string;
  author: { emailAddress: string };
  content: string;
}

interface SimComment {
  id: string;
  author: { emailAddress: string };
  content: string;
  replies: SimReply[] | null;
}

/** POST /_sim/files/{id}/comments: a person commenting in Google Docs. */
async function addSimComment(request: APIRequestContext, fileId: string, author: string, content: string): Promise<SimComment> {
  const res = await request.post(`${DRIVE_SIM_URL}/_sim/files/${encodeURIComponent(fileId)}/comments`, {
    data: { author, content },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as SimComment;
}

/** The replies in a comment's thread written by `author` (GET /_sim/files/{id}). */
async function repliesBy(request: APIRequestContext, fileId: string, commentId: string, author: string): Promise<SimReply[]> {
  const res = await request.get(`${DRIVE_SIM_URL}/_sim/files/${encodeURIComponent(fileId)}`);
  expect(res.ok(), await res.text()).toBeTruthy();
  const file = (await res.json()) as { comments: SimComment[] | null };
  const comment = (file.comments ?? []).find((c) => c.id === commentId);
  expect(comment, `comment ${commentId}`).toBeDefined();
  return (comment!.replies ?? []).filter((r) => r.author.emailAddress.toLowerCase() === author.toLowerCase());
}

const transactions = (page: Page) => page.getByRole('region', { name: 'Transactions' });

test('the owner mentions the agent in a Google Docs comment: the agent replies in the thread and the wallet pays', async ({
  page,
  request,
}) => {
  allowTime(240_000);
  const owner = newUser('cmt');
  await register(page, owner);
  // $25: an agent's first answer may also take its $10 monthly fee.
  const who = await fundWallet(request, owner.email, owner.password, 2500);

  await openAgentList(page);
  const agent = newAgent('Comments');
  await createAgent(page, agent);
  const editor = await openEditor(page, agent.name);
  const agentAddress = (await editor.getByTestId('agent-email').textContent())!.trim();
  expect(agentAddress).toContain('@');

  // A Google Doc anyone with the link can read, linked to the agent.
  const word = uniqueWord('lab');
  const file = await createSimFile(request, {
    title: `Chemistry lab safety rules ${word}`,
    anyoneWithLink: true,
    text:
      `Chemistry lab safety rules (${word}).\n\n` +
      'Safety goggles must be worn at all times while anyone in the lab is working with chemicals.\n\n' +
      'Spills are reported to the lab assistant at once; the eye-wash station is next to the north door.',
  });
  await addDocument(page, editor, { name: 'LabRules', url: simDocUrl(file.id) });
  await expect(documentRow(editor, 'LabRules').getByTestId('sync-status')).toHaveText('Shared', { timeout: 45_000 });

  const balanceBefore = await getBalance(request, who);

  // The owner asks in a comment; a stranger mentions the agent too, and a plain comment mentions nobody.
  const question = 'When must safety goggles be worn?';
  const asked = await addSimComment(request, file.id, owner.email, `@${agentAddress} ${question}`);
  const stranger = await addSimComment(request, file.id, newUser('stranger').email, `+${agentAddress} tell me everything you know`);
  const plain = await addSimComment(request, file.id, owner.email, 'Note to self: reorder goggles.');

  // The agent's reply appears in the owner's thread (one poll + one answer).
  await expect
    .poll(async () => (await repliesBy(request, file.id, asked.id, agentAddress)).length, { timeout: 90_000, intervals: [1_000] })
    .toBe(1);
  const [reply] = await repliesBy(request, file.id, asked.id, agentAddress);
  expect(reply.content.trim()).not.toBe('');
  expect(reply.content).not.toContain('cannot answer right now');
  // Plain text for Docs, signed with the agent's name as its owner wrote it (issue 29 item 15).
  expect(reply.content.trimEnd().endsWith(`— ${agent.name}`)).toBe(true);
  expect(reply.content).not.toMatch(/\*\*|`|^#{1,6} /m);

  // Strangers and comments without a mention get nothing; the owner's comment is answered once even after more
  // polls (15 s apart under Tilt).
  await page.waitForTimeout(20_000);
  expect(await repliesBy(request, file.id, asked.id, agentAddress)).toHaveLength(1);
  expect(await repliesBy(request, file.id, stranger.id, agentAddress)).toHaveLength(0);
  expect(await repliesBy(request, file.id, plain.id, agentAddress)).toHaveLength(0);

  // In the app: a conversation marked "Docs comment", titled with the document's name.
  const panel = await openChatTab(editor);
  const item = panel.getByRole('button', { name: 'LabRules Docs comment', exact: true });
  await expect(item).toBeVisible({ timeout: 20_000 });
  await item.click();
  await expect(panel.locator('[data-testid="chat-message"][data-role="user"]').first()).toContainText(question);

  // Paid from the owner's wallet: the balance dropped and Transaction History lists the expense.
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
});
