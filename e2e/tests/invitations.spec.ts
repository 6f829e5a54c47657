import { expect, test, type APIRequestContext, type Locator } from '@playwright/test';
import { createAgent, createAgentByApi, newAgent, openAgentList, openEditor } from '../support/agents';
import { inviteFromUsersTab } from '../support/chat';
import { mailsTo, type MaildevEmail } from '../support/mail';
import { newUser, register, registerByApi, toast } from '../support/users';
import { allowTime } from '../support/timeouts';

// Issue 29 item 7, "Invitations that arrive": inviting an address e-mails the invitee through the relay
// (maildev locally) — who invited them, to which agent, a link that signs them in and opens Shared with me;
// the Users tab says "Invitation e-mailed" and can resend; an invitee whose address is not verified sees,
// under Shared with me, how many invitations wait for it, with the Send verification e-mail button.

const AUTH_EMULATOR = process.env.E2E_AUTH_EMULATOR_URL ?? 'http://127.0.0.1:9099';
const FIREBASE_API_KEY = process.env.E2E_FIREBASE_API_KEY ?? 'demo-api-key';
const FIREBASE_PROJECT = process.env.E2E_FIREBASE_PROJECT_ID ?? 'demo-agentic';

const invitationSubject = (inviter: string, agent: string) => `${inviter} shared the agent “${agent}” with you`;

/** Waits until maildev holds `n` invitation e-mails to `address` with `subject`, and returns them. */
async function invitations(request: APIRequestContext, address: string, subject: string, n: number): Promise<MaildevEmail[]> {
  const matching = async () => (await mailsTo(request, address)).filter((m) => m.subject === subject);
  await expect
    .poll(async () => (await matching()).length, {
      timeout: 60_000,
      intervals: [500, 1_000, 2_000],
      message: `${n} invitation e-mail(s) to ${address} in maildev`,
    })
    .toBe(n);
  return matching();
}

/** The invited row of the Users tab. */
const invitedRow = (scope: Locator, email: string) =>
  scope.getByRole('row').filter({ hasText: email });

test('an invitation is e-mailed, can be resent, and its link signs the invitee in to Shared with me', async ({
  page,
  browser,
  request,
}) => {
  allowTime(180_000);
  const owner = newUser('invown');
  await register(page, owner);
  await openAgentList(page);
  const agent = newAgent('Invited');
  await createAgent(page, agent);
  const editor = await openEditor(page, agent.name);

  const guest = newUser('invguest'); // no account yet
  await inviteFromUsersTab(page, editor, guest.email);
  const row = invitedRow(editor, guest.email);
  await expect(row.getByText('Invitation e-mailed')).toBeVisible();

  // The e-mail: from the platform, naming the inviter and the agent, with the sign-in link to Shared with me.
  const subject = invitationSubject(owner.username, agent.name);
  const [mail] = await invitations(request, guest.email, subject, 1);
  expect(mail.text).toContain(`${owner.username} shared the agent “${agent.name}” with you on Agentic.`);
  expect(mail.text).toContain('/auth?next=/dashboard/shared');
  expect(mail.html).toContain('/auth?next=/dashboard/shared');

  // Resend: a second e-mail.
  await row.getByRole('button', { name: /^Resend/ }).click();
  await expect(toast(page, 'Invitation Sent', `The invitation was e-mailed to ${guest.email} again.`)).toBeVisible();
  await invitations(request, guest.email, subject, 2);

  // The invitee follows the link (its path: the e-mail's origin is APP_BASE_URL) and registers there: the app
  // opens Shared with me, where the unverified address's pending invitation is counted.
  const context = await browser.newContext();
  const guestPage = await context.newPage();
  const link = new URL(/https?:\/\/\S+\/auth\?next=\S+/.exec(mail.text ?? '')![0]);
  await guestPage.goto(`${link.pathname}${link.search}`);
  await guestPage.getByRole('tab', { name: 'Register' }).click();
  await guestPage.getByLabel('Username').fill(guest.username);
  await guestPage.getByLabel('Email').fill(guest.email);
  await guestPage.getByLabel('Password', { exact: true }).fill(guest.password);
  await guestPage.getByLabel('Confirm Password').fill(guest.password);
  await guestPage.getByRole('button', { name: 'Create account' }).click();
  await expect(guestPage).toHaveURL(/\/dashboard\/shared$/);
  const banner = guestPage.getByRole('region', { name: 'E-mail verification' });
  await expect(banner).toHaveCount(1);
  await expect(banner).toContainText('You have 1 pending invitation: verify your e-mail to accept it');

  // Verifying through that button accepts it: the agent is listed, saying who shared it.
  await banner.getByRole('button', { name: 'Send verification e-mail' }).click();
  await expect(banner.getByRole('status')).toContainText('Verification e-mail sent');
  let oobCode = '';
  await expect(async () => {
    const res = await request.get(`${AUTH_EMULATOR}/emulator/v1/projects/${FIREBASE_PROJECT}/oobCodes`);
    const body = (await res.json()) as { oobCodes?: { email: string; oobCode: string; requestType: string }[] };
    const code = (body.oobCodes ?? []).filter((c) => c.email === guest.email && c.requestType === 'VERIFY_EMAIL').pop();
    expect(code).toBeTruthy();
    oobCode = code!.oobCode;
  }).toPass({ timeout: 15_000 });
  const applied = await request.post(`${AUTH_EMULATOR}/identitytoolkit.googleapis.com/v1/accounts:update?key=${FIREBASE_API_KEY}`, {
    data: { oobCode },
  });
  expect(applied.ok(), await applied.text()).toBeTruthy();
  await banner.getByRole('button', { name: "I've verified my address" }).click();
  await expect(banner).toBeHidden();
  const card = guestPage.getByTestId('shared-agent').filter({ hasText: agent.name });
  await expect(card).toBeVisible({ timeout: 15_000 });
  await expect(card).toContainText(`Shared by ${owner.username}`);
  await context.close();

  // The owner's Users tab shows the invitee active now, without the invitation's note.
  await page.reload();
  const again = await openEditor(page, agent.name);
  await again.getByRole('tab', { name: 'Users' }).click();
  await expect(invitedRow(again, guest.email).getByText('active')).toBeVisible();
  await expect(invitedRow(again, guest.email).getByText('Invitation e-mailed')).toHaveCount(0);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the invited row shows "Invitation e-mailed" and Resend works', async ({ page, request }) => {
    allowTime(120_000);
    const owner = newUser('invphone');
    const who = await registerByApi(request, owner);
    const agent = await createAgentByApi(request, who, newAgent('PhoneInvite'));
    const guest = newUser('invphoneguest');
    const invited = await request.post(`/api/agents/${agent.id}/subscribers`, {
      headers: { Authorization: `Bearer ${who.idToken}` },
      data: { email: guest.email },
    });
    expect(invited.status(), await invited.text()).toBe(201);
    const subject = invitationSubject(owner.username, agent.name);
    await invitations(request, guest.email, subject, 1);

    await page.goto('/auth');
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password', { exact: true }).fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.goto('/dashboard/agentic-users');
    const editor = await openEditor(page, agent.name);
    await editor.getByRole('tab', { name: 'Users' }).click();
    const row = invitedRow(editor, guest.email);
    await expect(row.getByText('Invitation e-mailed')).toBeVisible();
    const resend = row.getByRole('button', { name: /^Resend/ });
    await resend.scrollIntoViewIfNeeded();
    await resend.click();
    await expect(toast(page, 'Invitation Sent')).toBeVisible();
    await invitations(request, guest.email, subject, 2);
  });
});
