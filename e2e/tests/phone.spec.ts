import { expect, test, type Locator, type Page } from '@playwright/test';
import { agentRow, createAgent, editor, newAgent, openEditor } from '../support/agents';
import { expectAccessible as axeCheck } from '../support/axe';
import { fundWallet, messageBox, sendChatMessage, waitForAnswer } from '../support/chat';
import { addDialog, docUrl, openAddDialog } from '../support/documents';
import { untilStill } from '../support/motion';
import { newUser, register } from '../support/users';
import { allowTime } from '../support/timeouts';

// Issue 29 item 11: a phone that works (390×844). The chat's message box is at the bottom of the screen and the
// conversations are a drawer; the editor's tabs switch with one tap; the documents are a list whose actions are
// reachable; the agent list and the wallet fit the screen's width; axe stays clean on those screens.


/** axe at the phone's size (the shared check, its message naming the size). */
const expectAccessible = (page: Page, screen: string) => axeCheck(page, `${screen} at 390×844`);

/** The page does not scroll sideways. */
async function expectNoSidewaysScroll(page: Page) {
  await expect
    .poll(() => page.evaluate(() => (document.scrollingElement?.scrollWidth ?? 0) - window.innerWidth))
    .toBeLessThanOrEqual(0);
}

/**
 * The element lies within the screen's width, once the layout has settled (measured again until it does: under CI
 * load a tab was once measured at 423 px while the editor was still opening).
 */
async function expectWithinWidth(element: Locator) {
  await expect
    .poll(async () => {
      const box = await element.boundingBox();
      return box !== null && box.x >= 0 && box.x + box.width <= 390 ? 'within' : JSON.stringify(box);
    })
    .toBe('within');
}

async function openAgents(page: Page) {
  // On a phone the main navigation is behind its menu button: go straight to the list.
  await page.goto('/dashboard/agentic-users');
  await expect(page.getByRole('heading', { level: 1, name: 'Your Agentic Users' })).toBeVisible();
}

test.describe('on a phone (390×844)', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true });

  test('the editor: one-tap tabs, documents as a list with its actions, the chat with its message box at the bottom and the conversations in a drawer', async ({
    page,
    request,
  }) => {
    allowTime(150_000);
    const owner = newUser('phone');
    await register(page, owner);
    // The first answer pays the $10.00 monthly fee plus its usage.
    await fundWallet(request, owner.email, owner.password, 1100);
    await openAgents(page);
    const agent = newAgent('Phone');
    await createAgent(page, agent);
    // Creating may already open the editor (issue 29 item 4): start from the list either way.
    await openAgents(page);
    const dlg = await openEditor(page, agent.name);

    // Every tab is on screen: one tap switches (no "more" menu).
    for (const name of ['Instructions & Documents', 'Users', 'Settings', 'Chat', 'Channels', 'API']) {
      const tab = dlg.getByRole('tab', { name, exact: true });
      await expect(tab).toBeVisible();
      await expectWithinWidth(tab);
    }
    await dlg.getByRole('tab', { name: 'Settings', exact: true }).tap();
    await expect(dlg.getByRole('tab', { name: 'Settings', exact: true })).toHaveAttribute('aria-selected', 'true');
    await dlg.getByRole('tab', { name: 'Instructions & Documents', exact: true }).tap();

    // The documents: a list whose actions are on screen.
    const dialog = await openAddDialog(page, dlg);
    await dialog.getByLabel('Document URL').fill(docUrl());
    await dialog.getByLabel('Document Name').fill('PhoneDoc');
    await dialog.getByRole('button', { name: 'Add Document' }).click();
    await expect(addDialog(page)).toBeHidden();
    for (const action of ['Sync now', 'Edit', 'Delete']) {
      const button = dlg.getByRole('button', { name: `${action} PhoneDoc`, exact: true });
      await button.scrollIntoViewIfNeeded();
      await expect(button).toBeVisible();
      await expectWithinWidth(button);
    }
    await expectAccessible(page, 'Instructions & Documents');

    // The chat: the message box at the bottom of the screen, before and after an answer.
    await dlg.getByRole('tab', { name: 'Chat', exact: true }).tap();
    const panel = dlg.getByTestId('chat-panel');
    await expect(panel).toBeVisible({ timeout: 20_000 });
    const expectBoxAtBottom = async () => {
      await expect(async () => {
        const box = await panel.locator('.chat-sender').boundingBox();
        expect(box).not.toBeNull();
        expect(box!.y).toBeGreaterThanOrEqual(0);
        expect(box!.y + box!.height).toBeLessThanOrEqual(844);
        // In the lower part of the screen (below it only the "charged to your wallet" line and margins).
        expect(box!.y + box!.height).toBeGreaterThan(844 - 160);
      }).toPass({ timeout: 10_000 });
    };
    await expect(messageBox(panel)).toBeVisible();
    await expectBoxAtBottom();
    await sendChatMessage(panel, 'Hello from my phone, what can you do?');
    await waitForAnswer(panel);
    await expectBoxAtBottom();
    await expectAccessible(page, 'Chat');

    // The conversations: a drawer opened by its button.
    await panel.getByRole('button', { name: 'Conversations' }).tap();
    const drawer = page.getByRole('dialog', { name: 'Conversations' });
    await expect(drawer).toBeVisible();
    await untilStill(drawer);
    await expect(drawer.getByTestId('conversation-item')).toHaveCount(1);
    await expect(drawer.getByRole('button', { name: 'New conversation' })).toBeVisible();
    await expectAccessible(page, 'Conversations drawer');
    await drawer.getByTestId('conversation-item').first().tap();
    await expect(drawer).toBeHidden();
    await expect(editor(page, agent.name)).toBeVisible();
  });

  test('the agent list and the wallet fit the screen without sideways scrolling', async ({ page, request }) => {
    allowTime(90_000);
    const owner = newUser('phonewallet');
    await register(page, owner);
    await fundWallet(request, owner.email, owner.password, 500);
    await openAgents(page);
    const agent = newAgent('Narrow');
    await createAgent(page, agent);
    await openAgents(page);

    const row = agentRow(page, agent.name);
    await expect(row).toBeVisible();
    await expect(page.getByRole('columnheader', { name: 'Agent' })).toBeVisible();
    await expect(page.getByRole('columnheader', { name: 'Status' })).toBeVisible();
    await expectWithinWidth(row.getByRole('cell').last());
    await expectNoSidewaysScroll(page);
    await expectAccessible(page, 'Your Agentic Users');

    await page.goto('/dashboard/wallet');
    await expect(page.getByRole('heading', { level: 1, name: 'Wallet' })).toBeVisible();
    const transactions = page.getByRole('region', { name: 'Transactions' });
    await expect(transactions.getByText('$5.00').first()).toBeVisible({ timeout: 20_000 });
    await expectWithinWidth(transactions.getByText('$5.00').first());
    await expectNoSidewaysScroll(page);
    expect(await transactions.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    await expectAccessible(page, 'Wallet');
  });
});
