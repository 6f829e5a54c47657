import { expect, test, type Page } from '@playwright/test';
import {
  agentRow,
  createAgent,
  createDialog,
  editor,
  editorAgentId,
  fillCreateForm,
  newAgent,
  openAgentList,
  openCreateDialog,
  openEditor,
  type NewAgent,
} from '../support/agents';
import { expectAccessible } from '../support/axe';
import { forceMarketplace } from '../support/marketplace';
import { untilStill } from '../support/motion';
import { newUser, register, toast } from '../support/users';
import { allowTime } from '../support/timeouts';

// Issue 29 items 1, 2, 4 and 9 (UI): the agent editor never loses work ("Discard unsaved changes?", a local
// draft offered back after a reload), has an address per tab (/dashboard/agentic-users/{id}/{tab}: reload and
// Back work), opens by itself on a new agent's Instructions & Documents tab, and its Settings tab renames,
// re-icons, re-colours and deletes the agent. The spec's "coming soon" Visibility: the marketplace switch off.


const editorUrl = (id: string, tab?: string) =>
  new RegExp(`/dashboard/agentic-users/${id}${tab ? `/${tab}` : ''}$`);

/** Creates an agent through the dialog and stays in the editor that opens; returns the agent's id. */
async function createAndStay(page: Page, agent: NewAgent): Promise<string> {
  await openCreateDialog(page);
  await fillCreateForm(page, agent);
  await createDialog(page).getByRole('button', { name: 'Create Agent' }).click();
  await expect(createDialog(page)).toBeHidden();
  await expect(page).toHaveURL(/\/dashboard\/agentic-users\/[^/]+\/instructions$/);
  const dlg = editor(page, agent.name);
  await expect(dlg).toBeVisible();
  await untilStill(dlg);
  return editorAgentId(page);
}

test.describe('the agent editor (desktop)', () => {
  test.beforeEach(async ({ page }) => {
    await forceMarketplace(page, false);
    await register(page, newUser('editor'));
    await openAgentList(page);
  });

  test('a new agent opens on Instructions; unsaved instructions are asked about, kept and restored; tabs have addresses', async ({
    page,
  }) => {
    allowTime(90_000);
    const agent = newAgent('Draft');
    const id = await createAndStay(page, agent);
    const dlg = editor(page, agent.name);
    await expect(dlg.getByRole('tab', { name: 'Instructions & Documents' })).toHaveAttribute('aria-selected', 'true');

    // Escape with unsaved instructions: asked; Keep editing keeps the text.
    const text = dlg.getByLabel('Agent Instructions');
    await text.fill('Answer in short sentences and cite the syllabus.');
    await page.keyboard.press('Escape');
    const ask = page.getByRole('dialog', { name: 'Discard unsaved changes?' });
    await expect(ask).toBeVisible();
    await expectAccessible(page, 'editor: Discard unsaved changes?');
    await ask.getByRole('button', { name: 'Keep editing' }).click();
    await expect(ask).toBeHidden();
    await expect(page).toHaveURL(editorUrl(id, 'instructions'));
    await expect(text).toHaveValue('Answer in short sentences and cite the syllabus.');

    // A reload: the browser asks first (beforeunload), then the kept draft is offered back.
    page.once('dialog', (dialog) => {
      expect(dialog.type()).toBe('beforeunload');
      void dialog.accept();
    });
    await page.reload();
    const reopened = editor(page, agent.name);
    await expect(reopened).toBeVisible({ timeout: 20_000 });
    const offer = reopened.getByRole('region', { name: 'Restore your unsaved draft?' });
    await expect(offer).toBeVisible();
    await expectAccessible(page, 'editor: Restore your unsaved draft?');
    await offer.getByRole('button', { name: 'Restore' }).click();
    await expect(offer).toBeHidden();
    await expect(reopened.getByLabel('Agent Instructions')).toHaveValue('Answer in short sentences and cite the syllabus.');

    // Each tab has its address; Back returns to the previous tab. Save Changes shows only where it saves.
    await reopened.getByRole('tab', { name: 'Settings', exact: true }).click();
    await expect(page).toHaveURL(editorUrl(id, 'settings'));
    await expect(page.getByRole('button', { name: 'Save Changes' })).toBeVisible();
    await reopened.getByRole('tab', { name: 'Channels', exact: true }).click();
    await expect(page).toHaveURL(editorUrl(id, 'channels'));
    await expect(page.getByRole('button', { name: 'Save Changes' })).toHaveCount(0);
    await page.goBack();
    await expect(page).toHaveURL(editorUrl(id, 'settings'));
    await expect(reopened.getByRole('tab', { name: 'Settings', exact: true })).toHaveAttribute('aria-selected', 'true');

    // Saved: the editor closes without a question and the draft is not offered again.
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await expect(toast(page, 'Agent Updated')).toBeVisible();
    await reopened.getByRole('button', { name: 'Close', exact: true }).click();
    await expect(reopened).toBeHidden();
    await expect(page).toHaveURL(/\/dashboard\/agentic-users$/);
    await page.goto(`/dashboard/agentic-users/${id}/instructions`);
    const again = editor(page, agent.name);
    await expect(again.getByLabel('Agent Instructions')).toHaveValue('Answer in short sentences and cite the syllabus.', {
      timeout: 20_000,
    });
    await expect(again.getByRole('region', { name: 'Restore your unsaved draft?' })).toHaveCount(0);
  });

  test('Settings: rename, re-icon and re-colour the agent, then delete it with its name typed', async ({ page }) => {
    allowTime(90_000);
    const agent = newAgent('Rename');
    await createAgent(page, agent);
    const dlg = await openEditor(page, agent.name);
    const id = editorAgentId(page);
    await expect(page).toHaveURL(editorUrl(id));
    await dlg.getByRole('tab', { name: 'Settings', exact: true }).click();
    await expect(page).toHaveURL(editorUrl(id, 'settings'));

    const renamed = `${agent.name} Coach`;
    await dlg.getByLabel('Name', { exact: true }).fill(renamed);
    for (const choice of ['Code', 'Green']) {
      const radio = dlg.getByRole('radio', { name: choice, exact: true });
      await radio.locator('xpath=ancestor::label[1]').click();
      await expect(radio).toBeChecked();
    }
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await expect(toast(page, 'Agent Updated')).toBeVisible();
    const after = editor(page, renamed);
    await expect(after).toBeVisible();
    await expect(after.getByRole('heading', { name: renamed })).toBeVisible();

    const zone = after.getByRole('region', { name: 'Delete agent' });
    await zone.getByRole('button', { name: 'Delete agent' }).click();
    const confirm = page.getByRole('dialog', { name: `Delete ${renamed}?` });
    await expect(confirm).toBeVisible();
    const remove = confirm.getByRole('button', { name: 'Delete agent' });
    await expect(remove).toBeDisabled();
    await expectAccessible(page, 'editor: Delete agent confirmation');
    await confirm.getByLabel(`Type ${renamed} to confirm`).fill(renamed);
    await expect(remove).toBeEnabled();
    await remove.click();

    await expect(toast(page, 'Agent deleted', `${renamed} has been deleted.`)).toBeVisible();
    await expect(page).toHaveURL(/\/dashboard\/agentic-users$/);
    await expect(page.getByRole('heading', { name: 'No Agentic Users Yet' })).toBeVisible();
    await expect(agentRow(page, renamed)).toHaveCount(0);

    // Its address now leads back to the list, saying so.
    await page.goto(`/dashboard/agentic-users/${id}/settings`);
    await expect(toast(page, 'Agent not found')).toBeVisible({ timeout: 20_000 });
    await expect(page).toHaveURL(/\/dashboard\/agentic-users$/);
  });
});

test.describe('the agent editor on a phone (390×844)', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true });

  test('every tab switches with one tap and gets its address', async ({ page }) => {
    allowTime(90_000);
    await forceMarketplace(page, false);
    await register(page, newUser('editorphone'));
    // On a phone the main navigation is behind its menu button: go straight to the list.
    await page.goto('/dashboard/agentic-users');
    await expect(page.getByRole('heading', { level: 1, name: 'Your Agentic Users' })).toBeVisible();
    const agent = newAgent('Tap');
    const id = await createAndStay(page, agent);
    const dlg = editor(page, agent.name);

    const tabs: [string, string][] = [
      ['Users', 'users'],
      ['Settings', 'settings'],
      ['Chat', 'chat'],
      ['Channels', 'channels'],
      ['API', 'api'],
      ['Instructions & Documents', 'instructions'],
    ];
    for (const [name, slug] of tabs) {
      const tab = dlg.getByRole('tab', { name, exact: true });
      await tab.tap();
      await expect(tab).toHaveAttribute('aria-selected', 'true');
      await expect(page).toHaveURL(editorUrl(id, slug));
    }
    await page.goBack();
    await expect(page).toHaveURL(editorUrl(id, 'api'));
    await expect(dlg.getByRole('tab', { name: 'API', exact: true })).toHaveAttribute('aria-selected', 'true');
  });

  test('a new agent opens on Instructions; unsaved instructions are asked about; Settings deletes it', async ({ page }) => {
    allowTime(90_000);
    await forceMarketplace(page, false);
    await register(page, newUser('editorphone'));
    await page.goto('/dashboard/agentic-users');
    await expect(page.getByRole('heading', { level: 1, name: 'Your Agentic Users' })).toBeVisible();
    const agent = newAgent('PhoneDel');
    const id = await createAndStay(page, agent);
    const dlg = editor(page, agent.name);
    await expect(dlg.getByRole('tab', { name: 'Instructions & Documents' })).toHaveAttribute('aria-selected', 'true');

    // Closing with unsaved instructions asks; Discard closes without saving.
    await dlg.getByLabel('Agent Instructions').fill('Keep it short.');
    await dlg.getByRole('button', { name: 'Close', exact: true }).tap();
    const ask = page.getByRole('dialog', { name: 'Discard unsaved changes?' });
    await expect(ask).toBeVisible();
    await ask.getByRole('button', { name: 'Discard' }).tap();
    await expect(dlg).toBeHidden();
    await expect(page).toHaveURL(/\/dashboard\/agentic-users$/);

    // Settings → Delete agent, with its name typed.
    await page.goto(`/dashboard/agentic-users/${id}/settings`);
    const again = editor(page, agent.name);
    await expect(again).toBeVisible({ timeout: 20_000 });
    const zone = again.getByRole('region', { name: 'Delete agent' });
    await zone.getByRole('button', { name: 'Delete agent' }).tap();
    const confirm = page.getByRole('dialog', { name: `Delete ${agent.name}?` });
    await expect(confirm).toBeVisible();
    await confirm.getByLabel(`Type ${agent.name} to confirm`).fill(agent.name);
    await confirm.getByRole('button', { name: 'Delete agent' }).tap();
    await expect(toast(page, 'Agent deleted', `${agent.name} has been deleted.`)).toBeVisible();
    await expect(page).toHaveURL(/\/dashboard\/agentic-users$/);
    await expect(agentRow(page, agent.name)).toHaveCount(0);
  });
});
