import { expect, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { emulatorSignIn, getBalance, topUp, type Identity } from './wallet';

/**
 * Helpers for the chat (editor's Chat tab, /dashboard/shared); see docs/web-chat.md.
 * The stack runs the LLM simulator (model `agentic-sim`) and the Drive simulator with seeded documents.
 */

export const DRIVE_SIM_URL = process.env.E2E_DRIVE_SIM_URL ?? 'http://127.0.0.1:8111';
export const SIM_MODEL_TAG = 'Simulated model (agentic-sim)';
/** "812 tokens · $0.0009" (4 decimals, up to 6 below $0.0001). */
export const USAGE_LINE = /^\d[\d,]* tokens? · \$\d[\d,]*\.\d{4,6}$/;

export interface SimFile {
  id: string;
  title: string;
  text: string;
  mimeType: string;
  anyoneWithLink: boolean;
  url: string;
}

/** The seeded Algebra syllabus, else any seeded Google Doc shared with anyone who has the link. */
export async function sharedDocument(request: APIRequestContext): Promise<SimFile> {
  const res = await request.get(`${DRIVE_SIM_URL}/_sim/files`);
  expect(res.ok(), `Drive simulator at ${DRIVE_SIM_URL}: ${res.status()}`).toBeTruthy();
  const files = (await res.json()) as SimFile[];
  const docs = files.filter((f) => f.anyoneWithLink && f.text.trim() && f.url.includes('docs.google.com/document/'));
  expect(docs.length, 'the Drive simulator has no document shared with anyone').toBeGreaterThan(0);
  return docs.find((f) => /syllabus/i.test(f.title)) ?? docs[0];
}

/** A question the simulator can match to a passage of `doc`: a sentence of its body. */
export function questionAbout(doc: SimFile): string {
  if (/syllabus/i.test(doc.title) && /office hours/i.test(doc.text)) return 'When are the office hours of the instructor?';
  const lines = doc.text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.split(/\s+/).length >= 8);
  const words = (lines[0] ?? doc.title).split(/\s+/).slice(0, 12).join(' ');
  return `What does the document say about: ${words}?`;
}

/** Tops up the signed-up user's wallet through the Stripe simulator and waits for the balance. */
export async function fundWallet(request: APIRequestContext, email: string, password: string, cents: number): Promise<Identity> {
  const who = await emulatorSignIn(request, email, password);
  await topUp(request, { ...who, email }, cents);
  await expect.poll(() => getBalance(request, who), { timeout: 30_000 }).toBeGreaterThanOrEqual(cents / 100);
  return who;
}

/** Opens the editor's Chat tab and returns the chat panel. */
export async function openChatTab(editor: Locator): Promise<Locator> {
  await editor.getByRole('tab', { name: 'Chat', exact: true }).click();
  const panel = editor.getByTestId('chat-panel');
  await expect(panel).toBeVisible({ timeout: 20_000 });
  return panel;
}

export function messageBox(panel: Locator) {
  return panel.getByRole('textbox', { name: 'Message' });
}

/** Types a message and presses Enter (the Sender sends on Enter). */
export async function sendChatMessage(panel: Locator, text: string) {
  const box = messageBox(panel);
  await expect(box).toBeEnabled();
  await box.fill(text);
  await box.press('Enter');
  await expect(box).toHaveValue('');
}

export function answers(panel: Locator) {
  return panel.locator('[data-testid="chat-message"][data-role="assistant"]');
}

export function lastAnswer(panel: Locator) {
  return answers(panel).last();
}

/** Waits until the last answer has finished (its cost line is shown) and returns it. */
export async function waitForAnswer(panel: Locator, timeout = 45_000): Promise<Locator> {
  const answer = lastAnswer(panel);
  await expect(answer).toHaveAttribute('data-status', /^(done|complete)$/, { timeout });
  await expect(answer.getByTestId('answer-usage')).toHaveText(USAGE_LINE);
  return answer;
}

/** Invites an e-mail address from the editor's Users tab. */
export async function inviteFromUsersTab(page: Page, editor: Locator, email: string) {
  await editor.getByRole('tab', { name: 'Users' }).click();
  await editor.getByLabel('Invite by email').fill(email);
  await editor.getByRole('button', { name: 'Invite', exact: true }).click();
  await expect(editor.getByRole('row').filter({ hasText: email })).toBeVisible();
}

const AUTH_EMULATOR = process.env.E2E_AUTH_EMULATOR_URL ?? 'http://127.0.0.1:9099';
const FIREBASE_API_KEY = process.env.E2E_FIREBASE_API_KEY ?? 'demo-api-key';
const FIREBASE_PROJECT = process.env.E2E_FIREBASE_PROJECT_ID ?? 'demo-agentic';

/**
 * Verifies the signed-in user's address the way a person would: the dashboard's banner sends the
 * verification e-mail, the link's out-of-band code (read from the Auth emulator) is applied, and
 * "I've verified my address" reloads the user. Invitations activate only for verified addresses.
 */
export async function verifyEmailThroughBanner(page: Page, request: APIRequestContext, email: string) {
  const banner = page.getByRole('region', { name: 'E-mail verification' });
  await expect(banner).toContainText('Verify your e-mail address to accept invitations');
  await banner.getByRole('button', { name: 'Send verification e-mail' }).click();
  await expect(banner.getByRole('status')).toContainText('Verification e-mail sent');
  let oobCode = '';
  await expect(async () => {
    const res = await request.get(`${AUTH_EMULATOR}/emulator/v1/projects/${FIREBASE_PROJECT}/oobCodes`);
    const body = (await res.json()) as { oobCodes?: { email: string; oobCode: string; requestType: string }[] };
    const code = (body.oobCodes ?? []).filter((c) => c.email === email && c.requestType === 'VERIFY_EMAIL').pop();
    expect(code).toBeTruthy();
    oobCode = code!.oobCode;
  }).toPass({ timeout: 15_000 });
  const applied = await request.post(`${AUTH_EMULATOR}/identitytoolkit.googleapis.com/v1/accounts:update?key=${FIREBASE_API_KEY}`, {
    data: { oobCode },
  });
  expect(applied.ok(), await applied.text()).toBeTruthy();
  await banner.getByRole('button', { name: "I've verified my address" }).click();
  await expect(banner).toBeHidden();
}

/** Shared with me, reloading until the agent is listed (activation on the invitee's verified visit). */
export async function openSharedAgent(page: Page, agentName: string) {
  await page.goto('/dashboard/shared');
  await expect(page.getByRole('heading', { level: 1, name: 'Shared with me' })).toBeVisible();
  const card = page.getByTestId('shared-agent').filter({ hasText: agentName });
  await expect(async () => {
    if (!(await card.isVisible())) {
      await page.reload();
      await expect(page.getByRole('heading', { level: 1, name: 'Shared with me' })).toBeVisible();
    }
    await expect(card).toBeVisible({ timeout: 5_000 });
  }).toPass({ timeout: 60_000 });
  await card.click();
  await expect(page).toHaveURL(/\/dashboard\/shared\?agent=/);
  const panel = page.getByTestId('chat-panel');
  await expect(panel).toBeVisible({ timeout: 20_000 });
  return panel;
}
