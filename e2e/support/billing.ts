import { expect, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { createAgent, newAgent, openAgentList, openEditor, type NewAgent } from './agents';
import { lastAnswer, openChatTab, sendChatMessage, USAGE_LINE } from './chat';
import type { Identity } from './wallet';

/**
 * Billing helpers (issue 16; docs/billing-api.md): the wallet's billing reads without the browser, and a chat
 * turn that may be refused by a money rule.
 */

const auth = (who: Identity) => ({ Authorization: `Bearer ${who.idToken}` });

export interface BalanceDetails {
  balance: number;
  held: number;
  available: number;
  debt: number;
  monthUsage: number;
  monthlyLimit: number | null;
  lowBalanceThreshold: number | null;
  lowBalance: boolean;
  limitWarning: null | 'limit_80' | 'limit_100';
  autoRecharge: {
    enabled: boolean;
    threshold: number | null;
    amount: number | null;
    hasCard: boolean;
    cardLabel: string | null;
    disabledReason: string | null;
    lastFailure: string | null;
    inFlight: boolean;
  };
}

/** GET /api/user/balance: the whole billing view (held, debt, this month's usage, limits, auto-recharge). */
export async function getBalanceDetails(request: APIRequestContext, who: Identity): Promise<BalanceDetails> {
  const res = await request.get('/api/user/balance', { headers: auth(who) });
  expect(res.ok(), await res.text()).toBeTruthy();
  return ((await res.json()) as { data: BalanceDetails }).data;
}

export interface HistoryRow {
  id: string;
  date: string;
  amount: number;
  type: string;
  provider: string;
  description: string;
}

/** Every row of GET /api/user/transactions (newest first), following the pages with their snapshot. */
export async function getTransactions(request: APIRequestContext, who: Identity): Promise<HistoryRow[]> {
  const rows: HistoryRow[] = [];
  let snapshot = '';
  for (let page = 0; page < 50; page += 1) {
    const query = new URLSearchParams({ limit: '100', offset: String(rows.length) });
    if (snapshot) query.set('snapshot', snapshot);
    const res = await request.get(`/api/user/transactions?${query}`, { headers: auth(who) });
    expect(res.ok(), await res.text()).toBeTruthy();
    const body = (await res.json()) as { data: { items: HistoryRow[]; meta?: { hasMore?: boolean; snapshot?: string } } };
    rows.push(...body.data.items);
    snapshot = body.data.meta?.snapshot ?? snapshot;
    if (!body.data.meta?.hasMore || body.data.items.length === 0) break;
  }
  return rows;
}

export interface AgentFee {
  agentId: string;
  agentName: string;
  periodStart: string;
  periodEnd: string;
  status: 'paid' | 'paused';
}

/** GET /api/user/agent-fees. */
export async function getAgentFees(request: APIRequestContext, who: Identity): Promise<AgentFee[]> {
  const res = await request.get('/api/user/agent-fees', { headers: auth(who) });
  expect(res.ok(), await res.text()).toBeTruthy();
  return ((await res.json()) as { data: AgentFee[] }).data;
}

/** PUT /api/user/billing-settings (the whole object; dollars). */
export async function putBillingSettings(
  request: APIRequestContext,
  who: Identity,
  settings: {
    monthlyLimit?: number | null;
    lowBalanceThreshold?: number | null;
    autoRecharge?: { enabled: boolean; threshold: number | null; amount: number | null };
  },
) {
  const res = await request.put('/api/user/billing-settings', {
    headers: auth(who),
    data: { monthlyLimit: null, lowBalanceThreshold: null, autoRecharge: { enabled: false, threshold: null, amount: null }, ...settings },
  });
  expect(res.ok(), await res.text()).toBeTruthy();
}

/** The description prefix of an agent's monthly fee in the history: "Agentic User fee · Math Tutor · Dec 1 – Dec 30". */
export const feeDescription = (agentName: string) => `Agentic User fee · ${agentName} · `;

/** Today's UTC date as the usage API keys its days (YYYY-MM-DD). */
export const todayUtc = () => new Date().toISOString().slice(0, 10);

/** 'Mar 9' for a YYYY-MM-DD day, as the Usage card's table labels it. */
export function usageDayLabel(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y!, m! - 1, d!)).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** Creates an agent from the list and opens its editor's Chat tab. */
export async function agentWithChat(page: Page, prefix: string): Promise<{ agent: NewAgent; editor: Locator; panel: Locator }> {
  await openAgentList(page);
  const agent = newAgent(prefix);
  await createAgent(page, agent);
  const editor = await openEditor(page, agent.name);
  const panel = await openChatTab(editor);
  return { agent, editor, panel };
}

export type TurnOutcome = 'answered' | 'refused';

/**
 * Sends one message and waits until its turn settles: 'answered' (done, with its cost line) or 'refused'
 * (an error alert on the turn, e.g. a 402). Any other end fails the test.
 */
export async function chatTurn(panel: Locator, text: string, timeout = 45_000): Promise<{ outcome: TurnOutcome; answer: Locator }> {
  const turns = panel.locator('[data-testid="chat-message"][data-role="assistant"]');
  const before = await turns.count();
  await sendChatMessage(panel, text);
  await expect(turns).toHaveCount(before + 1, { timeout });
  const answer = lastAnswer(panel);
  await expect(answer).toHaveAttribute('data-status', /^(done|complete|error)$/, { timeout });
  if ((await answer.getAttribute('data-status')) === 'error') {
    await expect(answer.getByRole('alert')).toBeVisible();
    return { outcome: 'refused', answer };
  }
  await expect(answer.getByTestId('answer-usage')).toHaveText(USAGE_LINE);
  return { outcome: 'answered', answer };
}
