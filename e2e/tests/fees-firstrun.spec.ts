import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { createAgent, createDialog, newAgent, openAgentList, openCreateDialog, openEditor } from '../support/agents';
import { openChatTab } from '../support/chat';
import { newUser, register } from '../support/users';
import { allowTime } from '../support/timeouts';

// Issue 29, items 5 and 12: the $10/month agent fee is disclosed before it is due (the Create dialog, the Chat
// tab before the first answer of a period), and a new user's dashboard shows a first-run checklist whose steps
// tick themselves off.

const checklist = (page: Page) => page.getByTestId('first-run-checklist');
const step = (page: Page, id: string) => checklist(page).locator(`[data-step="${id}"]`);

async function expectNoSeriousViolations(page: Page, scope: string) {
  const { violations } = await new AxeBuilder({ page })
    .include(scope)
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
  expect(serious).toEqual([]);
}

test('a new user is told about the agent fee before it is due, and the checklist ticks off creating an agent', async ({
  page,
}) => {
  allowTime(90_000);
  await register(page, newUser('firstrun'));
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();

  // The checklist: four steps, none done.
  await expect(checklist(page)).toBeVisible({ timeout: 15_000 });
  await expect(checklist(page).getByRole('heading', { name: 'Get started' })).toBeVisible();
  await expect(checklist(page).getByTestId('first-run-progress')).toHaveText('0 of 4 done');
  await expect(checklist(page).getByRole('listitem')).toHaveText([
    /Create an agent/,
    /Link and share a document/,
    /Ask it a question/,
    /Add funds/,
  ]);
  await expect(step(page, 'agent')).toHaveAttribute('data-done', 'false');
  await expectNoSeriousViolations(page, '[data-testid="first-run-checklist"]');

  // The Create dialog says what an agent costs.
  await openAgentList(page);
  await openCreateDialog(page);
  await expect(createDialog(page).getByText('$10/month per agent, charged with its first answer, plus usage')).toBeVisible();
  await createDialog(page).getByRole('button', { name: 'Cancel' }).click();
  await expect(createDialog(page)).toBeHidden();
  const agent = newAgent('Fees');
  await createAgent(page, agent);

  // Before its first answer, the Chat tab says the first answer starts the monthly fee.
  const dlg = await openEditor(page, agent.name);
  await openChatTab(dlg);
  await expect(dlg.getByTestId('agent-fee-first-answer')).toHaveText("The first answer starts this agent's $10.00 monthly fee.");
  await dlg.getByRole('button', { name: 'Close', exact: true }).click();
  await expect(dlg).toBeHidden();

  // Back on the dashboard, the first step is ticked off (from the agents list).
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(step(page, 'agent')).toHaveAttribute('data-done', 'true', { timeout: 15_000 });
  await expect(checklist(page).getByTestId('first-run-progress')).toHaveText('1 of 4 done');
  await expect(step(page, 'document')).toHaveAttribute('data-done', 'false');
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the checklist and the fee line fit a 390×844 screen', async ({ page }) => {
    allowTime(60_000);
    await register(page, newUser('firstrunphone'));
    await expect(checklist(page)).toBeVisible({ timeout: 15_000 });
    // No horizontal scrolling: the checklist is no wider than the viewport.
    const box = await checklist(page).boundingBox();
    expect(box && box.x + box.width).toBeLessThanOrEqual(390);
    await expectNoSeriousViolations(page, '[data-testid="first-run-checklist"]');

    // The header navigation may be folded on a phone: go to the list by its address.
    await page.goto('/dashboard/agentic-users');
    await expect(page.getByRole('heading', { level: 1, name: 'Your Agentic Users' })).toBeVisible();
    await openCreateDialog(page);
    const line = createDialog(page).getByText('$10/month per agent, charged with its first answer, plus usage');
    await line.scrollIntoViewIfNeeded();
    await expect(line).toBeVisible();
  });
});
