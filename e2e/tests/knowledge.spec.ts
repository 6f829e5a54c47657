import { expect, test, type Locator, type Page } from '@playwright/test';
import { createAgent, newAgent, openAgentList, openEditor } from '../support/agents';
import { addDocument, documentRow } from '../support/documents';
import { createSimFile, shareSimFile, simDocUrl, uniqueWord } from '../support/drive-sim';
import { newUser, register, toast } from '../support/users';

/*
 * Knowledge (issue 13): linked Google Docs are read through the Drive API as the agent (here the
 * Drive simulator, DRIVE_SIM_URL), their status shows in the Documents table, Sync now re-reads
 * one, and Test retrieval shows the passages the agent would use. Needs the whole local stack.
 */

// A sync is a queued job: allow it time, but never sleep (the list polls while syncing).
const SYNC_TIMEOUT = 30_000;

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

let dlg: Locator;
let agentName: string;
let agentEmail: string;

test.beforeEach(async ({ page }) => {
  await register(page, newUser('know'));
  await openAgentList(page);
  const agent = newAgent('Knowledge');
  agentName = agent.name;
  await createAgent(page, agent);
  dlg = await openEditor(page, agent.name);
  agentEmail = (await dlg.getByTestId('agent-email').textContent())!.trim();
  expect(agentEmail).toContain('@');
});

const syncStatus = (row: Locator) => row.getByTestId('sync-status');
const retrievalInput = (editor: Locator) => editor.getByLabel('Test retrieval');
const searchButton = (editor: Locator) => editor.getByRole('button', { name: 'Search', exact: true });
const passages = (editor: Locator) => editor.getByRole('list', { name: 'Retrieved passages' }).getByRole('listitem');

/** Asks the Test retrieval box until a passage containing `text` shows (indexing may trail the status by a moment). */
async function expectPassage(editor: Locator, question: string, text: string) {
  await retrievalInput(editor).fill(question);
  const passage = passages(editor).filter({ hasText: text }).first();
  await expect(async () => {
    await expect(searchButton(editor)).toBeEnabled();
    await searchButton(editor).click();
    await expect(passage).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: SYNC_TIMEOUT });
  return passage;
}

async function readClipboard(page: Page) {
  return page.evaluate(() => navigator.clipboard.readText());
}

test('a document anyone with the link can read: Shared, with its Google Docs title, size and sync time', async ({ page, request }) => {
  const word = uniqueWord('syl');
  const title = `Biology 101 Syllabus ${word}`;
  const file = await createSimFile(request, {
    title,
    anyoneWithLink: true,
    text:
      `Biology 101 syllabus (${word}).\n\n` +
      'Week 1 covers cell structure and the microscope lab. Lab reports are due every Friday at noon.\n\n' +
      'Grading: labs 30%, midterm 30%, final exam 40%. Late lab reports lose ten percent per day.',
  });

  // The name the creator types differs from the title in Google Docs; it stays the document's name.
  await addDocument(page, dlg, { name: 'BioSyllabus', url: simDocUrl(file.id), labels: ['week1'] });
  const row = documentRow(dlg, 'BioSyllabus');
  await expect(syncStatus(row)).toHaveText('Shared', { timeout: SYNC_TIMEOUT });
  await expect(row.getByTestId('drive-title')).toHaveText(`Google Docs title: ${title}`);
  await expect(row.getByRole('link', { name: 'BioSyllabus', exact: true })).toHaveAttribute('href', simDocUrl(file.id));
  await expect(row.getByText(/^[1-9]\d{0,2}(,\d{3})* tokens?$/)).toBeVisible();
  await expect(row.getByText(/^Synced .+ ago$/)).toBeVisible();
  await expect(row.getByRole('button', { name: 'Copy address' })).toHaveCount(0);
  await expect(row.getByRole('button', { name: 'Sync now BioSyllabus' })).toBeEnabled();
  await expect(row).toContainText('week1');

  // Test retrieval: the client refuses an empty question; a question nothing matches says so.
  await searchButton(dlg).click();
  await expect(dlg.getByText("Enter a question to search the agent's documents.")).toBeVisible();
  await expect(retrievalInput(dlg)).toHaveAttribute('aria-invalid', 'true');
  const passage = await expectPassage(dlg, 'When are lab reports due?', 'Lab reports are due every Friday at noon.');
  await expect(passage.getByRole('link', { name: 'BioSyllabus' })).toHaveAttribute('href', simDocUrl(file.id));
  await expect(passage).toContainText('week1');
  await expect(passage.getByTestId('passage-score')).toHaveText(/^Score \d+\.\d{2}$/);

  await retrievalInput(dlg).fill(`quasar xylophone ${uniqueWord('none')}`);
  await searchButton(dlg).click();
  await expect(dlg.getByText('No passages match this question.')).toBeVisible();
  await expect(passages(dlg)).toHaveCount(0);
});

test('a document shared with nobody: Not shared and Copy address; shared later, Sync now makes it Shared and searchable', async ({
  page,
  request,
}) => {
  test.slow();
  const word = uniqueWord('lab');
  const title = `Zebrafish facility handbook ${word}`;
  const sentence = 'The zebrafish colony in room 4B is fed brine shrimp at 7:30 every morning.';
  const file = await createSimFile(request, {
    title,
    text: `${sentence}\n\nVisitors must sign the facility log (${word}) and wear a lab coat. Water temperature is kept at 28 degrees.`,
  });

  await addDocument(page, dlg, { name: 'FishHandbook', url: simDocUrl(file.id), labels: ['husbandry'] });
  const row = documentRow(dlg, 'FishHandbook');
  await expect(syncStatus(row)).toHaveText('Not shared', { timeout: SYNC_TIMEOUT });
  await expect(row.getByText(`Share this document with ${agentEmail} so the agent can read it.`)).toBeVisible();
  await expect(row.getByTestId('drive-title')).toHaveCount(0);

  // Copy address puts the agent's address on the clipboard.
  await row.getByRole('button', { name: 'Copy address' }).click();
  await expect(toast(page, 'Address copied', agentEmail)).toBeVisible();
  expect(await readClipboard(page)).toBe(agentEmail);

  // Nothing of it is searchable yet.
  await retrievalInput(dlg).fill('What is the zebrafish colony fed?');
  await searchButton(dlg).click();
  await expect(dlg.getByText('No passages match this question.')).toBeVisible();

  // Share it with the agent in "Google Drive", then Sync now.
  await shareSimFile(request, file.id, agentEmail);
  const syncNow = row.getByRole('button', { name: 'Sync now FishHandbook' });
  await expect(syncNow).toBeEnabled();
  await syncNow.click();
  await expect(syncStatus(row)).toHaveText('Shared', { timeout: SYNC_TIMEOUT });
  await expect(row.getByTestId('drive-title')).toHaveText(`Google Docs title: ${title}`);
  await expect(row.getByText(/^[1-9]\d{0,2}(,\d{3})* tokens?$/)).toBeVisible();
  await expect(row.getByRole('button', { name: 'Copy address' })).toHaveCount(0);
  await expect(syncNow).toBeEnabled();

  const passage = await expectPassage(dlg, 'What is the zebrafish colony fed?', sentence);
  await expect(passage.getByRole('link', { name: 'FishHandbook' })).toHaveAttribute('href', simDocUrl(file.id));
  await expect(passage).toContainText('husbandry');

  // The state is the service's: it survives a reload.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Your Agentic Users' })).toBeVisible();
  const reopened = await openEditor(page, agentName);
  await expect(syncStatus(documentRow(reopened, 'FishHandbook'))).toHaveText('Shared');
});
