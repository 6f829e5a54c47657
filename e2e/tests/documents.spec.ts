import { expect, test, type Locator, type Page } from '@playwright/test';
import { createAgent, editor as editorOf, newAgent, openAgentList, openEditor } from '../support/agents';
import {
  COLOURS,
  DRIVE_ID,
  addDialog,
  addDocument,
  docUrl,
  documentRow,
  editDialog,
  enterLabels,
  highlight,
  instructions,
  openAddDialog,
} from '../support/documents';
import { newUser, register, toast } from '../support/users';

// Each test registers a fresh user and creates one agent, then opens its editor.
let agentName: string;
let dlg: Locator;

test.beforeEach(async ({ page }) => {
  await register(page, newUser('docs'));
  await openAgentList(page);
  const agent = newAgent('Docs');
  agentName = agent.name;
  await createAgent(page, agent);
  dlg = await openEditor(page, agent.name);
});

async function reopenEditor(page: Page) {
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Your Agentic Users' })).toBeVisible();
  dlg = await openEditor(page, agentName);
  return dlg;
}

test('add a document: every validation error, then success', async ({ page }) => {
  await expect(dlg.getByRole('tab', { name: 'Instructions & Documents' })).toHaveAttribute('aria-selected', 'true');
  await expect(dlg.getByText('No documents linked')).toBeVisible();
  await expect(dlg.getByText('Add documents shared from Google Drive to give this agent its knowledge.')).toBeVisible();
  const email = (await dlg.getByTestId('agent-email').textContent())!.trim();
  await expect(dlg.getByTestId('documents-share-note')).toContainText(`shared with this agent's e-mail address, ${email}`);

  const dialog = await openAddDialog(page, dlg);
  await expect(dialog.getByText('Only Google Docs documents are supported.')).toBeVisible();
  const name = dialog.getByLabel('Document Name');
  const url = dialog.getByLabel('Document URL');
  const submit = dialog.getByRole('button', { name: 'Add Document' });

  await submit.click();
  await expect(dialog.getByText('Document name is required')).toBeVisible();
  await expect(dialog.getByText('Document URL is required')).toBeVisible();
  await expect(name).toHaveAttribute('aria-invalid', 'true');

  await name.fill('My Syllabus');
  await url.fill('not a url');
  await submit.click();
  await expect(dialog.getByText('Document name cannot contain spaces.')).toBeVisible();
  await expect(dialog.getByText('Please enter a valid URL')).toBeVisible();

  await name.fill('Syllabus');
  await url.fill('https://example.com/some/file');
  await submit.click();
  await expect(dialog.getByText('URL must be a document URL (docs.google.com/document/...)')).toBeVisible();
  await expect(dialog.getByText('Document name cannot contain spaces.')).toHaveCount(0);

  await url.fill('https://docs.google.com/document/d/too-short/edit');
  await submit.click();
  await expect(
    dialog.getByText('Invalid Google Docs URL: Could not extract document ID from the provided URL.'),
  ).toBeVisible();

  await url.fill(`https://evil.example/docs.google.com/document/d/${DRIVE_ID}/edit`);
  await submit.click();
  await expect(
    dialog.getByText('Invalid URL: Only Google Docs URLs (docs.google.com/document/) are supported.'),
  ).toBeVisible();

  // Labels: a space is rejected, blanks and duplicates are ignored, badges are removable.
  await enterLabels(dialog, ['two words']);
  await expect(dialog.getByText('Invalid label: Labels cannot contain spaces.')).toBeVisible();
  await enterLabels(dialog, ['  week1  ', '   ']);
  await dialog.getByLabel('Labels', { exact: true }).fill('week1');
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await enterLabels(dialog, ['draft']);
  await expect(dialog.getByRole('button', { name: /^Remove label / })).toHaveCount(2);
  await dialog.getByRole('button', { name: 'Remove label draft' }).click();
  // A label typed but not added yet is added on submit.
  await dialog.getByLabel('Labels', { exact: true }).fill('exam');

  await url.fill(`  ${docUrl()}  `);
  await submit.click();
  await expect(toast(page, 'Document added', 'The document was successfully added to the agent.')).toBeVisible();
  await expect(addDialog(page)).toBeHidden();

  const row = documentRow(dlg, 'Syllabus');
  await expect(row).toContainText('week1');
  await expect(row).toContainText('exam');
  await expect(row).not.toContainText('draft');
  await expect(row.getByText('Referenced')).toHaveCount(0);
  const link = row.getByRole('link', { name: 'Syllabus' });
  await expect(link).toHaveAttribute('href', docUrl());
  await expect(link).toHaveAttribute('target', '_blank');
  await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
  await expect(dlg.getByRole('columnheader')).toHaveText(['Name', 'Labels', 'Status', 'Actions']);
  await expect(dlg.getByTestId('documents-table-scroll')).toHaveCSS('max-height', '192px');
  await expect(dlg.getByTestId('documents-table-scroll')).toHaveCSS('overflow-y', 'auto');

  // The same name (any case) is refused by the server; its message is shown.
  const again = await openAddDialog(page, dlg);
  await again.getByLabel('Document Name').fill('SYLLABUS');
  await again.getByLabel('Document URL').fill(docUrl());
  await again.getByRole('button', { name: 'Add Document' }).click();
  await expect(toast(page, 'Error adding document', 'A document with this name already exists for this agent.')).toBeVisible();
  await again.getByRole('button', { name: 'Cancel' }).click();
  await expect(addDialog(page)).toBeHidden();
  await expect(editorOf(page, agentName)).toBeVisible();
});

test('instructions: suggestions, highlighting, Referenced, token count, saved', async ({ page }) => {
  await addDocument(page, dlg, { name: 'Syllabus', labels: ['week1'] });
  await addDocument(page, dlg, { name: 'Lab_2', labels: ['week2', 'lab'] });
  await addDocument(page, dlg, { name: 'Rubric' });

  const text = instructions(dlg);
  await text.click();
  await text.pressSequentially('Read @');
  const docs = dlg.getByRole('listbox', { name: 'Document suggestions' });
  await expect(docs).toBeVisible();
  await expect(docs.getByRole('option')).toHaveText(['Syllabus', 'Lab_2', 'Rubric']);
  const popup = docs.locator('xpath=..'); // the list's box: 16rem wide, at most 200px high
  await expect(popup).toHaveCSS('width', '256px');
  await expect(popup).toHaveCSS('max-height', '200px');
  await expect(docs.getByRole('option', { name: 'Syllabus' })).toHaveAttribute('aria-selected', 'true');
  await text.press('ArrowDown');
  const lab = docs.getByRole('option', { name: 'Lab_2' });
  await expect(lab).toHaveAttribute('aria-selected', 'true');
  await expect(text).toHaveAttribute('aria-activedescendant', (await lab.getAttribute('id'))!);
  await text.press('ArrowUp');
  await text.press('ArrowUp'); // wraps to the last option
  await expect(docs.getByRole('option', { name: 'Rubric' })).toHaveAttribute('aria-selected', 'true');
  await text.pressSequentially('sy'); // prefix, case-insensitive
  await expect(docs.getByRole('option')).toHaveText(['Syllabus']);
  await text.press('Enter');
  await expect(text).toHaveValue('Read @Syllabus ');
  await expect(docs).toBeHidden();

  // No match, then Escape closes the list but not the editor.
  await text.pressSequentially('and @zz');
  await expect(dlg.getByText('No documents found')).toBeVisible();
  await text.press('Escape');
  await expect(dlg.getByText('No documents found')).toBeHidden();
  await expect(editorOf(page, agentName)).toBeVisible();

  await text.pressSequentially(', then #we');
  const labels = dlg.getByRole('listbox', { name: 'Label suggestions' });
  await expect(labels.getByRole('option')).toHaveText(['week1', 'week2']);
  await text.press('ArrowDown');
  await text.press('Enter');
  await text.pressSequentially('and #nope');
  await expect(dlg.getByText('No labels found')).toBeVisible();
  await text.press('Escape');
  await text.pressSequentially('.');
  const value = 'Read @Syllabus and @zz, then #week2 and #nope.';
  await expect(text).toHaveValue(value);

  // Highlight layer: @known blue, @unknown red, #known green, #unknown red.
  await expect(highlight(dlg, '@Syllabus')).toHaveAttribute('data-known', 'true');
  await expect(highlight(dlg, '@Syllabus')).toHaveCSS('color', COLOURS.blue);
  await expect(highlight(dlg, '@zz')).toHaveAttribute('data-known', 'false');
  await expect(highlight(dlg, '@zz')).toHaveCSS('color', COLOURS.red);
  await expect(highlight(dlg, '#week2')).toHaveCSS('color', COLOURS.green);
  await expect(highlight(dlg, '#nope')).toHaveCSS('color', COLOURS.red);
  await expect(dlg.getByTestId('instructions-highlight')).toHaveAttribute('aria-hidden', 'true');
  await expect(dlg.getByTestId('instructions-highlight')).toHaveText(`${value}\u200b`);

  // Referenced: Syllabus by name, Lab_2 through its label, Rubric not at all.
  await expect(documentRow(dlg, 'Syllabus').getByText('Referenced')).toBeVisible();
  await expect(documentRow(dlg, 'Lab_2').getByText('Referenced')).toBeVisible();
  await expect(documentRow(dlg, 'Rubric').getByText('Referenced')).toHaveCount(0);
  await expect(dlg.getByTestId('token-count')).toHaveText(`~${Math.ceil(value.length / 4)} tokens`);
  await expect(dlg.getByRole('note', { name: 'Reference syntax' })).toContainText('@');

  await page.getByRole('button', { name: 'Save Changes' }).click();
  await expect(toast(page, 'Agent Updated')).toBeVisible();

  await reopenEditor(page);
  await expect(instructions(dlg)).toHaveValue(value);
  await expect(documentRow(dlg, 'Syllabus').getByText('Referenced')).toBeVisible();
  await expect(documentRow(dlg, 'Lab_2').getByText('Referenced')).toBeVisible();
  await expect(documentRow(dlg, 'Rubric').getByText('Referenced')).toHaveCount(0);
  await expect(highlight(dlg, '@Syllabus')).toHaveCSS('color', COLOURS.blue);
  await expect(dlg.getByTestId('token-count')).toHaveText(`~${Math.ceil(value.length / 4)} tokens`);
});

test('edit a document (name and labels), then delete it', async ({ page }) => {
  await addDocument(page, dlg, { name: 'Syllabus', labels: ['week1', 'exam'] });
  await instructions(dlg).fill('Use #final only.');
  await expect(documentRow(dlg, 'Syllabus').getByText('Referenced')).toHaveCount(0);

  // Escape closes only the dialog, not the editor behind it.
  await dlg.getByRole('button', { name: 'Edit Syllabus' }).click();
  await expect(editDialog(page)).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(editDialog(page)).toBeHidden();
  await expect(editorOf(page, agentName)).toBeVisible();

  await dlg.getByRole('button', { name: 'Edit Syllabus' }).click();
  const dialog = editDialog(page);
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel('Document Name')).toHaveValue('Syllabus');
  await expect(dialog.getByRole('button', { name: 'Remove label exam' })).toBeVisible();
  const url = dialog.getByLabel('Document URL');
  await expect(url).toHaveValue(docUrl());
  await expect(url).not.toBeEditable();
  await dialog.getByLabel('Document Name').fill('Course Syllabus');
  await dialog.getByRole('button', { name: 'Save Changes' }).click();
  await expect(dialog.getByText('Document name cannot contain spaces.')).toBeVisible();

  await dialog.getByLabel('Document Name').fill('CourseSyllabus');
  await dialog.getByRole('button', { name: 'Remove label week1' }).click();
  await enterLabels(dialog, ['final']);
  await dialog.getByRole('button', { name: 'Save Changes' }).click();
  await expect(toast(page, 'Document updated', 'The document was successfully updated.')).toBeVisible();
  await expect(editDialog(page)).toBeHidden();

  const row = documentRow(dlg, 'CourseSyllabus');
  await expect(row).toContainText('exam');
  await expect(row).toContainText('final');
  await expect(row).not.toContainText('week1');
  await expect(documentRow(dlg, 'Syllabus')).toHaveCount(0);
  await expect(row.getByText('Referenced')).toBeVisible();

  // Persisted by the documents service (no Save Changes needed for documents).
  await reopenEditor(page);
  await expect(documentRow(dlg, 'CourseSyllabus')).toContainText('final');

  await dlg.getByRole('button', { name: 'Delete CourseSyllabus' }).click();
  await expect(documentRow(dlg, 'CourseSyllabus')).toHaveCount(0);
  await expect(dlg.getByText('No documents linked')).toBeVisible();
  await reopenEditor(page);
  await expect(dlg.getByText('No documents linked')).toBeVisible();
});
