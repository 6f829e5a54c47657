import { expect, type Locator, type Page } from '@playwright/test';
import { untilStill } from './motion';

/** Helpers for the editor's Instructions & Documents tab; see docs/web-documents.md. */

export const DRIVE_ID = '1aBcD_eFgH-iJkLmNoPqRsTuVwXyZ0123456789abcde';
export const docUrl = (id = DRIVE_ID) => `https://docs.google.com/document/d/${id}/edit`;

/** Highlight colours of docs/web-documents.md (computed `color`). */
export const COLOURS = {
  blue: 'rgb(29, 78, 216)',
  green: 'rgb(21, 128, 61)',
  red: 'rgb(185, 28, 28)',
} as const;

export function addDialog(page: Page) {
  return page.getByRole('dialog', { name: 'Add Google Docs Document' });
}

export function editDialog(page: Page) {
  return page.getByRole('dialog', { name: 'Edit Document' });
}

export async function openAddDialog(page: Page, editor: Locator) {
  await editor.getByRole('button', { name: 'Add Document' }).click();
  await expect(addDialog(page)).toBeVisible();
  await untilStill(addDialog(page));
  return addDialog(page);
}

/** Enters labels with Enter (the dialog's Labels input). */
export async function enterLabels(dialog: Locator, labels: readonly string[]) {
  const input = dialog.getByLabel('Labels', { exact: true });
  for (const label of labels) {
    await input.fill(label);
    await input.press('Enter');
  }
}

/** Adds a document through the dialog and waits for its row. */
export async function addDocument(page: Page, editor: Locator, doc: { name: string; url?: string; labels?: string[] }) {
  const dialog = await openAddDialog(page, editor);
  await dialog.getByLabel('Document Name').fill(doc.name);
  await dialog.getByLabel('Document URL').fill(doc.url ?? docUrl());
  await enterLabels(dialog, doc.labels ?? []);
  await dialog.getByRole('button', { name: 'Add Document' }).click();
  await expect(addDialog(page)).toBeHidden();
  await expect(documentRow(editor, doc.name)).toBeVisible();
}

export function documentRow(editor: Locator, name: string) {
  return editor.getByRole('row').filter({ has: editor.page().getByRole('link', { name, exact: true }) });
}

export function instructions(editor: Locator) {
  return editor.getByLabel('Agent Instructions');
}

/** The highlight layer's reference spans (`data-ref` document|label, `data-known` true|false). */
export function highlight(editor: Locator, text: string) {
  return editor.getByTestId('instructions-highlight').locator('[data-ref]', { hasText: text });
}
