import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { removeToast } from '@/components/toast/toast-store';
import { type FakeApi, fakeApi, json, type Routes, text } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { authValue, renderApp } from '@/test/render';
import type { AutoRechargeStatus, BalanceDetails } from '../api/billing';
import type { Usage } from '../api/usage';
import type { UsageColumnRow } from '../lib/usage-chart';

// The billing parts of the wallet screen (docs/web-wallet.md "Billing"): notices, the Usage chart,
// spend controls, saving a card and the CSV export, with fetch mocked.
vi.setConfig({ testTimeout: 30_000 });

const identity = fakeIdentity({ uid: 'u1', email: 'ada@example.com' });
vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => ({ auth: { currentUser: identity } })) }));
const redirectTo = vi.fn();
vi.mock('../lib/redirect', () => ({ redirectTo: (url: string) => redirectTo(url) }));
const saveBlob = vi.fn();
vi.mock('../lib/download', () => ({ saveBlob: (blob: Blob, name: string) => saveBlob(blob, name) }));
vi.mock('../lib/success-polling', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../lib/success-polling')>()),
  sleep: async () => {},
}));
// jsdom has no canvas: the chart itself is replaced by a stand-in that shows what it was given.
vi.mock('../components/UsageColumnChart', () => ({
  default: ({ rows }: { rows: UsageColumnRow[] }) => (
    <div data-testid="usage-column-chart" data-rows={rows.length}>
      {[...new Set(rows.map((r) => r.agent))].join(', ')}
    </div>
  ),
}));

const signedIn = { uid: 'u1', email: 'ada@example.com', displayName: 'Ada', username: 'ada' };

const autoRecharge: AutoRechargeStatus = {
  enabled: false,
  threshold: null,
  amount: null,
  hasCard: false,
  cardLabel: null,
  disabledReason: null,
  lastFailure: null,
  inFlight: false,
};
const balanceData: BalanceDetails = {
  balance: 20,
  held: 0,
  available: 20,
  debt: 0,
  monthUsage: 0,
  monthlyLimit: null,
  lowBalanceThreshold: null,
  lowBalance: false,
  limitWarning: null,
  autoRecharge,
};
const settingsData = {
  monthlyLimit: null as number | null,
  lowBalanceThreshold: null as number | null,
  autoRecharge: { enabled: false, threshold: null as number | null, amount: null as number | null },
};

function usageBody(days = 30, spend = true): Usage {
  const out: Usage = { from: '2026-02-09', to: '2026-03-10', total: 0, days: [], agents: [] };
  for (let i = 0; i < days; i += 1) {
    const date = new Date(Date.UTC(2026, 1, 9 + i)).toISOString().slice(0, 10);
    out.days.push({ date, total: 0, interactions: 0, agents: [] });
  }
  if (spend) {
    const last = out.days[days - 1]!;
    last.agents = [
      { agentId: 'a1', agentName: 'Math Tutor', amount: 12, interactions: 3 },
      { agentId: 'a2', agentName: 'Essay Coach', amount: 0.5, interactions: 1 },
    ];
    last.total = 12.5;
    last.interactions = 4;
    out.total = 12.5;
    out.agents = last.agents;
  }
  return out;
}

let api: FakeApi;
const calls = (method: string, path: string) => api.callsTo(`${method} ${path}`);

function defaultRoutes(overrides: Partial<BalanceDetails> = {}): Routes {
  return {
    'GET /api/user/balance': () => json({ success: true, data: { ...balanceData, ...overrides } }),
    'GET /api/user/transactions': () =>
      json({
        success: true,
        data: {
          items: [{ id: 't1', date: '2026-03-01T10:00:00Z', amount: 25, type: 'deposit', provider: 'stripe', description: 'Wallet top-up via Stripe' }],
          meta: { hasMore: false },
        },
      }),
    'GET /api/usage': () => json(usageBody()),
    'GET /api/user/billing-settings': () => json({ success: true, data: settingsData }),
    // The navigation asks for the user's agents (for the Earnings link).
    'GET /api/agents': [],
  };
}

beforeEach(() => {
  redirectTo.mockReset();
  saveBlob.mockReset();
  api = fakeApi(defaultRoutes());
  vi.spyOn(console, 'error').mockImplementation(() => {});
  vi.spyOn(HTMLElement.prototype, 'scrollHeight', 'get').mockReturnValue(1000);
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(500);
});
afterEach(() => {
  vi.unstubAllGlobals();
  removeToast();
});

async function renderWallet(path = '/dashboard/wallet') {
  const utils = renderApp(path, authValue({ user: signedIn }));
  await screen.findByRole('heading', { level: 1, name: 'Wallet' }, { timeout: 15_000 });
  return utils;
}
const usageCard = () => screen.getByRole('region', { name: 'Usage' });
const spendCard = () => screen.getByRole('region', { name: 'Spend controls' });
const limitInput = () => within(spendCard()).getByRole('spinbutton', { name: 'Monthly spending limit' });

describe('wallet billing', () => {
  it('shows the usage chart stacked by agent, with the total and the per-agent list', async () => {
    await renderWallet();
    const chart = await within(usageCard()).findByTestId('usage-column-chart', {}, { timeout: 10_000 });
    // 30 days × 2 agents: a continuous axis.
    expect(chart).toHaveAttribute('data-rows', '60');
    expect(chart).toHaveTextContent('Math Tutor, Essay Coach');
    expect(within(usageCard()).getByTestId('usage-total')).toHaveTextContent('$12.50');
    const list = within(usageCard()).getByRole('list', { name: 'Spend by agent' });
    expect(within(list).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Math Tutor$12.003 answers',
      'Essay Coach$0.501 answer',
    ]);
    expect(within(usageCard()).getByRole('img').getAttribute('aria-label')).toBe(
      'Spend per day for the last 30 days, stacked by agent. Total $12.50: Math Tutor $12.00, Essay Coach $0.50.',
    );
    expect(calls('GET', '/api/usage')[0]!.input).toBe('/api/usage?groupBy=day');
  });

  it('lists the agent fees apart from usage (issue 29)', async () => {
    api.routes['GET /api/usage'] = () => {
      const body = usageBody();
      const tutor = { agentId: 'a1', agentName: 'Math Tutor', amount: 10.0003, interactions: 1, fees: 10 };
      body.days[29]!.agents = [tutor];
      body.days[29]!.total = 10.0003;
      body.agents = [tutor];
      body.total = 10.0003;
      return json({ ...body, fees: 10 });
    };
    await renderWallet();
    const split = await within(usageCard()).findByTestId('usage-split', {}, { timeout: 10_000 });
    expect(split).toHaveTextContent('Usage $0.0003 · Agent fees $10.00');
    const list = within(usageCard()).getByRole('list', { name: 'Spend by agent' });
    expect(within(list).getByRole('listitem')).toHaveTextContent('Math Tutor$0.00031 answer + agent fee $10.00');
  });

  it('saves the monthly spending limit on its own when the field is left, and says so', async () => {
    let saved: unknown = null;
    api.routes['PUT /api/user/billing-settings'] = (req) => {
      saved = req.body;
      return json({ success: true, data: saved });
    };
    const user = userEvent.setup();
    await renderWallet();
    const input = await within(spendCard()).findByRole('spinbutton', { name: 'Monthly spending limit' }, { timeout: 10_000 });
    expect(within(spendCard()).getByText(/Agent fees \(\$10\.00 per agent per month\) count within it too\./)).toBeInTheDocument();
    // The auto-recharge fields show greyed examples, not values.
    expect(within(spendCard()).getByRole('spinbutton', { name: 'Auto-recharge threshold' })).toHaveAttribute('placeholder', 'e.g. 5.00');
    expect(within(spendCard()).getByRole('spinbutton', { name: 'Auto-recharge top-up' })).toHaveAttribute('placeholder', 'e.g. 20.00');

    // An invalid value is not saved; the reason shows.
    await user.type(input, '0.3');
    await user.tab();
    expect(await within(spendCard()).findByText('Monthly spending limit must be at least $0.50')).toBeInTheDocument();
    expect(calls('PUT', '/api/user/billing-settings')).toHaveLength(0);

    await user.clear(input);
    await user.type(input, '40');
    await user.tab();
    await waitFor(() => expect(within(spendCard()).getByTestId('limit-autosave')).toHaveTextContent('Saved'));
    expect(saved).toEqual({ monthlyLimit: 40, lowBalanceThreshold: null, autoRecharge: { enabled: false, threshold: null, amount: null } });
    expect(calls('PUT', '/api/user/billing-settings')).toHaveLength(1);
    expect(within(spendCard()).queryByRole('button', { name: 'Save spend controls' })).toBeInTheDocument();
  });

  it('shows why the monthly limit could not be saved on its own', async () => {
    api.routes['PUT /api/user/billing-settings'] = () => json({ error: 'invalid_settings', message: 'monthlyLimit is too high' }, 400);
    const user = userEvent.setup();
    await renderWallet();
    const input = await within(spendCard()).findByRole('spinbutton', { name: 'Monthly spending limit' }, { timeout: 10_000 });
    await user.type(input, '30');
    await user.tab();
    expect(await within(spendCard()).findByTestId('limit-autosave-error')).toHaveTextContent(
      'Monthly spending limit not saved: monthlyLimit is too high',
    );
  });

  it('shows the loading, empty and error states of the usage chart', async () => {
    let answer: () => Response | Promise<Response> = () => new Promise(() => {});
    api.routes['GET /api/usage'] = () => answer();
    const { queryClient } = await renderWallet();
    expect(await within(usageCard()).findByRole('status', { name: 'Loading usage' })).toBeInTheDocument();

    answer = () => json(usageBody(30, false));
    await queryClient.resetQueries({ queryKey: ['/api/usage?groupBy=day'] });
    expect(await within(usageCard()).findByText('No usage in the last 30 days.')).toBeInTheDocument();
    expect(within(usageCard()).queryByTestId('usage-column-chart')).not.toBeInTheDocument();

    answer = () => text('down', 503);
    await queryClient.resetQueries({ queryKey: ['/api/usage?groupBy=day'] });
    const alert = await within(usageCard()).findByRole('alert');
    expect(alert).toHaveTextContent('Failed to load usage.');
    answer = () => json(usageBody());
    await userEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await within(usageCard()).findByTestId('usage-column-chart')).toBeInTheDocument();
  });

  it('shows low balance, limit and debt notices from the balance', async () => {
    api.use(defaultRoutes({
      balance: 0,
      available: 0,
      debt: 7.5,
      lowBalance: true,
      lowBalanceThreshold: 5,
      monthUsage: 8.5,
      monthlyLimit: 10,
      limitWarning: 'limit_80',
    }));
    await renderWallet();
    const notices = await screen.findByRole('group', { name: 'Billing notices' });
    const alerts = within(notices).getAllByRole('alert');
    expect(alerts.map((a) => a.getAttribute('data-notice'))).toEqual(['debt', 'limit_80', 'low_balance']);
    expect(alerts[0]).toHaveTextContent('You owe $7.50 after a refund; your next top-up pays it first.');
    expect(alerts[1]).toHaveTextContent('You have used 85% of your monthly spending limit ($8.50 of $10.00).');
    expect(alerts[2]).toHaveTextContent('Your balance is low: $0.00 available, below your $5.00 threshold.');
  });

  it('has no notices for an older wallet that sends only the balance', async () => {
    api.routes['GET /api/user/balance'] = () => json({ success: true, data: { balance: 3 } });
    await renderWallet();
    expect(await within(screen.getByRole('region', { name: 'Current Balance' })).findByText('$3.00')).toBeInTheDocument();
    expect(await within(spendCard()).findByText('No card saved yet.')).toBeInTheDocument();
    expect(screen.queryByRole('group', { name: 'Billing notices' })).not.toBeInTheDocument();
  });

  it('validates and saves the spend controls with PUT', async () => {
    let saved: unknown = null;
    api.routes['PUT /api/user/billing-settings'] = (req) => {
      saved = req.body;
      return json({ success: true, data: saved });
    };
    const user = userEvent.setup();
    await renderWallet();
    const input = await within(spendCard()).findByRole('spinbutton', { name: 'Monthly spending limit' }, { timeout: 10_000 });
    await user.type(input, '0.3');
    await user.click(within(spendCard()).getByRole('button', { name: 'Save spend controls' }));
    expect(await within(spendCard()).findByText('Monthly spending limit must be at least $0.50')).toBeInTheDocument();
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(calls('PUT', '/api/user/billing-settings')).toHaveLength(0);

    await user.clear(input);
    await user.type(input, '25');
    await user.click(within(spendCard()).getByRole('button', { name: 'Save spend controls' }));
    expect(await screen.findByText('Spend controls saved')).toBeInTheDocument();
    expect(saved).toEqual({ monthlyLimit: 25, lowBalanceThreshold: null, autoRecharge: { enabled: false, threshold: null, amount: null } });
    expect(calls('PUT', '/api/user/billing-settings')[0]!.headers.get('Authorization')).toBe('Bearer token-123');
    // The balance (limits, notices) is reloaded.
    await waitFor(() => expect(calls('GET', '/api/user/balance').length).toBeGreaterThanOrEqual(2));
    expect(limitInput()).toHaveValue('25.00');
  });

  it("shows the server's message when saving fails", async () => {
    api.routes['PUT /api/user/billing-settings'] = () =>
      json({ error: 'invalid_settings', message: 'lowBalanceThreshold must be at most 10000' }, 400);
    const user = userEvent.setup();
    await renderWallet();
    const input = await within(spendCard()).findByRole('spinbutton', { name: 'Low-balance threshold' }, { timeout: 10_000 });
    await user.type(input, '5');
    await user.click(within(spendCard()).getByRole('button', { name: 'Save spend controls' }));
    const alert = await within(spendCard()).findByRole('alert');
    expect(alert).toHaveTextContent('Spend controls not saved');
    expect(alert).toHaveTextContent('lowBalanceThreshold must be at most 10000');
  });

  it('needs a saved card for auto-recharge; Save a card goes to Stripe', async () => {
    api.routes['POST /api/stripe/setup-session'] = () =>
      json({ success: true, data: { url: 'http://127.0.0.1:8110/setup/cs_9', sessionId: 'cs_9' } });
    const user = userEvent.setup();
    await renderWallet();
    const toggle = await within(spendCard()).findByRole('switch', { name: 'Auto-recharge' }, { timeout: 10_000 });
    await user.click(toggle);
    await user.click(within(spendCard()).getByRole('button', { name: 'Save spend controls' }));
    expect(await within(spendCard()).findByText('Save a card to turn on auto-recharge.')).toBeInTheDocument();
    expect(within(spendCard()).getByText('Enter the balance that starts a recharge.')).toBeInTheDocument();
    expect(within(spendCard()).getByText('Enter how much to add.')).toBeInTheDocument();

    await user.click(within(spendCard()).getByRole('button', { name: 'Save a card' }));
    await waitFor(() => expect(redirectTo).toHaveBeenCalledWith('http://127.0.0.1:8110/setup/cs_9'));
    expect(calls('POST', '/api/stripe/setup-session')).toHaveLength(1);
  });

  it('turns auto-recharge on with a saved card, and shows why it was turned off', async () => {
    let saved: unknown = null;
    api.use(defaultRoutes({
      autoRecharge: { ...autoRecharge, hasCard: true, cardLabel: 'Visa •••• 4242', disabledReason: 'Your card was declined 3 times in a row.' },
    }));
    api.routes['PUT /api/user/billing-settings'] = (req) => {
      saved = req.body;
      return json({ success: true, data: saved });
    };
    const user = userEvent.setup();
    await renderWallet();
    expect(await within(spendCard()).findByTestId('saved-card', {}, { timeout: 10_000 })).toHaveTextContent('Visa •••• 4242');
    expect(within(spendCard()).getByRole('button', { name: 'Replace card' })).toBeInTheDocument();
    const off = within(spendCard()).getByRole('alert');
    expect(off).toHaveTextContent('Auto-recharge was turned off.');
    expect(off).toHaveTextContent('Your card was declined 3 times in a row.');

    await user.click(within(spendCard()).getByRole('switch', { name: 'Auto-recharge' }));
    await user.type(within(spendCard()).getByRole('spinbutton', { name: 'Auto-recharge threshold' }), '5');
    await user.type(within(spendCard()).getByRole('spinbutton', { name: 'Auto-recharge top-up' }), '20');
    await user.click(within(spendCard()).getByRole('button', { name: 'Save spend controls' }));
    await screen.findByText('Spend controls saved');
    expect(saved).toEqual({ monthlyLimit: null, lowBalanceThreshold: null, autoRecharge: { enabled: true, threshold: 5, amount: 20 } });
  });

  it('shows an error with a retry when the settings cannot load (older wallet)', async () => {
    // An older wallet does not have the route.
    api.routes['GET /api/user/billing-settings'] = () => text('not found', 404);
    await renderWallet();
    const alert = await within(spendCard()).findByRole('alert', {}, { timeout: 10_000 });
    expect(alert).toHaveTextContent('Failed to load spend controls.');
    api.routes['GET /api/user/billing-settings'] = () => json({ success: true, data: settingsData });
    await userEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await within(spendCard()).findByRole('spinbutton', { name: 'Monthly spending limit' })).toBeInTheDocument();
  });

  it('exports the transactions as CSV with the current filter', async () => {
    api.routes['GET /api/user/transactions.csv'] = () =>
      text('date,description,type,amount,provider,id\n', 200, { headers: { 'Content-Type': 'text/csv' } });
    const user = userEvent.setup();
    await renderWallet();
    const history = screen.getByRole('region', { name: 'Transaction History' });
    await within(history).findByText('Wallet top-up via Stripe');
    await user.type(within(history).getByRole('textbox', { name: 'Search transactions' }), 'top-up');
    await user.click(within(history).getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(saveBlob).toHaveBeenCalledTimes(1));
    const [csv] = calls('GET', '/api/user/transactions.csv');
    expect(csv!.input).toBe('/api/user/transactions.csv?search=top-up');
    expect(csv!.headers.get('Authorization')).toBe('Bearer token-123');
    expect(saveBlob.mock.calls[0]![1]).toBe('transactions.csv');

    api.routes['GET /api/user/transactions.csv'] = () => json({ error: 'internal', message: 'Internal server error' }, 500);
    // While it works the button is busy (its name gains antd's 'loading' icon); wait until it is back.
    const button = await within(history).findByRole('button', { name: 'Export CSV' });
    await waitFor(() => expect(button).toBeEnabled());
    await user.click(button);
    expect(await screen.findByText('Export Failed')).toBeInTheDocument();
    expect(saveBlob).toHaveBeenCalledTimes(1);
  });

  it('handles the return from saving a card', async () => {
    // The webhook that records the card lands a moment later: the third balance read has it.
    let reads = 0;
    api.routes['GET /api/user/balance'] = () => {
      const hasCard = ++reads >= 3;
      return json({ success: true, data: { ...balanceData, autoRecharge: { ...autoRecharge, hasCard, cardLabel: hasCard ? 'Visa •••• 4242' : null } } });
    };
    const { router } = await renderWallet('/dashboard/wallet?setup=success');
    await waitFor(() => expect(router.state.location.search).toBe(''));
    expect(await screen.findByText('Your card is saved for auto-recharge.')).toBeInTheDocument();
    expect(await within(spendCard()).findByText('Visa •••• 4242')).toBeInTheDocument();
    expect(reads).toBeGreaterThanOrEqual(3);
  });

  it('says so when saving a card was canceled', async () => {
    const { router } = await renderWallet('/dashboard/wallet?setup=canceled');
    expect(await screen.findByText('Card not saved')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard/wallet');
    expect(router.state.location.search).toBe('');
  });
});
