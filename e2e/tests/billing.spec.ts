import { readFile } from 'node:fs/promises';
import { expect, test, type Download, type Page } from '@playwright/test';
import { newUser, register, toast } from '../support/users';
import { chargeWallet, creditWallet, emulatorSignIn, topUp } from '../support/wallet';

// Issue #16 (web): spend controls, the CSV export of the Transaction History and the usage charts,
// against the real wallet and analytics services (docs/web-wallet.md "Billing"). A fresh user per test.
// Tests that need metered answers (a limit refusing answers, today's spend per agent in the chart,
// auto-recharge refilling the balance) are added with the chat flow.

const spendControls = (page: Page) => page.getByRole('region', { name: 'Spend controls' });
const usageCard = (page: Page) => page.getByRole('region', { name: 'Usage' });
const history = (page: Page) => page.getByRole('region', { name: 'Transaction History' });
const table = (page: Page) => page.getByRole('region', { name: 'Transactions' });
const rows = (page: Page) => table(page).locator('tbody tr');

async function openWallet(page: Page) {
  await page.goto('/dashboard/wallet');
  await expect(page.getByRole('heading', { level: 1, name: 'Wallet' })).toBeVisible();
}

async function pickType(page: Page, label: string) {
  await page.getByRole('combobox', { name: 'Filter by type' }).click();
  await page.locator(`.ant-select-item-option[title="${label}"]`).click();
}

/** RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF) → rows of fields. */
function parseCsv(text: string): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      row.push(field);
      out.push(row);
      row = [];
      field = '';
    } else {
      field += c;
    }
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    out.push(row);
  }
  return out.filter((r) => r.some((f) => f !== ''));
}

/** The CSV as objects keyed by its header (date,description,type,amount,provider,id). */
async function readCsv(download: Download): Promise<Record<string, string>[]> {
  const path = await download.path();
  const [header, ...body] = parseCsv((await readFile(path, 'utf8')).replace(/^\uFEFF/, ''));
  expect(header).toEqual(['date', 'description', 'type', 'amount', 'provider', 'id']);
  return body.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? ''])));
}

async function exportCsv(page: Page): Promise<Record<string, string>[]> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    history(page).getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('transactions.csv');
  return readCsv(download);
}

/** The visible table as {description, type, amount} with the amount's magnitude in dollars. */
async function tableRows(page: Page) {
  const out: { description: string; type: string; amount: number }[] = [];
  for (const row of await rows(page).all()) {
    const cells = await row.locator('td').allTextContents();
    out.push({ description: cells[3]!, type: cells[2]!.toLowerCase(), amount: Number(cells[1]!.replace(/[^0-9.]/g, '')) });
  }
  return out;
}

function csvRows(csv: Record<string, string>[]) {
  return csv.map((r) => ({ description: r.description!, type: r.type!.toLowerCase(), amount: Math.abs(Number(r.amount)) }));
}

const byDescription = <T extends { description: string }>(list: T[]) =>
  [...list].sort((a, b) => a.description.localeCompare(b.description));

test('set a monthly spending limit and see it saved', async ({ page, request }) => {
  const user = newUser('limit');
  await register(page, user);
  await openWallet(page);

  const limit = spendControls(page).getByRole('spinbutton', { name: 'Monthly spending limit' });
  await expect(limit).toHaveValue('');
  // The server's rule, checked before anything is sent.
  await limit.fill('0.3');
  await spendControls(page).getByRole('button', { name: 'Save spend controls' }).click();
  await expect(spendControls(page).getByText('Monthly spending limit must be at least $0.50')).toBeVisible();

  await limit.fill('25');
  await spendControls(page).getByRole('button', { name: 'Save spend controls' }).click();
  await expect(toast(page, 'Spend controls saved')).toBeVisible();

  // Saved on the server: the settings and the balance both carry it, and a reload shows it.
  const who = await emulatorSignIn(request, user.email, user.password);
  const res = await request.get('/api/user/billing-settings', { headers: { Authorization: `Bearer ${who.idToken}` } });
  expect(res.ok(), await res.text()).toBeTruthy();
  expect(((await res.json()) as { data: { monthlyLimit: number | null } }).data.monthlyLimit).toBe(25);

  await page.reload();
  await expect(spendControls(page).getByRole('spinbutton', { name: 'Monthly spending limit' })).toHaveValue('25.00');
  await expect(spendControls(page).getByText(/Used this month: \$0\.00/)).toBeVisible();
  // No warnings at $0.00 of $25.00.
  await expect(page.getByRole('group', { name: 'Billing notices' })).toHaveCount(0);
});

test("the CSV download has the table's rows, with the current filter", async ({ page, request }) => {
  const user = newUser('csv');
  await register(page, user);
  const who = { ...(await emulatorSignIn(request, user.email, user.password)), email: user.email };
  await topUp(request, who, 1250); // deposit $12.50
  await creditWallet(who.uid, 4, 'Referral bonus, "March"'); // income (a comma and quotes: CSV quoting)
  await chargeWallet(who.uid, 1.25, 'Agent interaction: Calculus Tutor'); // expense

  await openWallet(page);
  await expect(rows(page)).toHaveCount(3);
  const all = await exportCsv(page);
  expect(all).toHaveLength(3);
  expect(byDescription(csvRows(all))).toEqual(byDescription(await tableRows(page)));
  expect(new Set(all.map((r) => r.id)).size).toBe(3);
  expect(all.find((r) => r.type.toLowerCase() === 'deposit')?.provider).toBe('stripe');

  // The type filter and the search go with the export.
  await pickType(page, 'Expense');
  await expect(rows(page)).toHaveCount(1);
  const expenses = await exportCsv(page);
  expect(csvRows(expenses)).toEqual(await tableRows(page));
  expect(expenses[0]!.description).toBe('Agent interaction: Calculus Tutor');

  await pickType(page, 'All Types');
  await page.getByRole('textbox', { name: 'Search transactions' }).fill('referral');
  await expect(rows(page)).toHaveCount(1);
  const searched = await exportCsv(page);
  expect(csvRows(searched)).toEqual(await tableRows(page));
  expect(searched[0]!.description).toBe('Referral bonus, "March"');
});

test('the usage and interactions charts show their empty states for a new user', async ({ page }) => {
  const user = newUser('usage');
  await register(page, user);

  // Dashboard: answers per day.
  const interactions = page.getByRole('region', { name: 'Interactions per day' });
  await expect(interactions.getByText('No interactions in the last 30 days.')).toBeVisible();
  await expect(interactions.getByRole('alert')).toHaveCount(0);

  // Wallet: spend per day.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Wallet' }).click();
  await expect(usageCard(page).getByText('No usage in the last 30 days.')).toBeVisible();
  await expect(usageCard(page).getByRole('alert')).toHaveCount(0);
  await expect(usageCard(page).getByRole('img')).toHaveCount(0);
});
