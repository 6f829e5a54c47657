import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { removeToast } from '@/components/toast/toast-store';
import { type FakeApi, fakeApi, json, text } from '@/test/fake-api';
import { authValue, renderApp } from '@/test/render';
import { fakeIdentity } from '@/test/fake-firebase';
import type { Transaction } from '../lib/types';

// Full-screen renders with antd on a shared 2-core machine: allow more than the default 5 s.
vi.setConfig({ testTimeout: 20_000 });

const identity = fakeIdentity({ uid: 'u1', email: 'ada@example.com' });
vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => ({ auth: { currentUser: identity } })) }));
const redirectTo = vi.fn();
vi.mock('../lib/redirect', () => ({ redirectTo: (url: string) => redirectTo(url) }));
// The success polling waits 2 s between rounds; no waiting in tests.
vi.mock('../lib/success-polling', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../lib/success-polling')>()),
  sleep: async () => {},
}));

const signedIn = { uid: 'u1', email: 'ada@example.com', displayName: 'Ada', username: 'ada' };

function tx(n: number, overrides: Partial<Transaction> = {}): Transaction {
  return {
    id: `t${n}`,
    date: new Date(2026, 0, 15, 9, 30).toISOString(),
    amount: n,
    type: 'expense',
    provider: 'usage',
    description: `Interaction ${n}`,
    ...overrides,
  };
}

const balanceBody = (balance: number) => json({ success: true, data: { balance } });
const pageBody = (items: Transaction[], hasMore: boolean, offset = 0, snapshot = 'snap-1') =>
  json({ success: true, data: { items, meta: { hasMore, limit: 20, offset, snapshot } } });

const BALANCE = 'GET /api/user/balance';
const PAGE = 'GET /api/user/transactions';
const CHECKOUT = 'POST /api/stripe/create-checkout-session';
let api: FakeApi;
/** The addresses of the requests to `path`. */
const calls = (path: string) => api.calls.filter((c) => c.path === path).map((c) => c.url);

beforeEach(() => {
  redirectTo.mockReset();
  // What the screen reads besides the balance and the transactions (not checked here): the usage and spend
  // controls cards, and the navigation's agent list.
  api = fakeApi({
    'GET /api/usage': { from: '2026-01-01', to: '2026-01-30', total: 0, days: [], agents: [] },
    'GET /api/user/billing-settings': {
      success: true,
      data: { monthlyLimit: null, lowBalanceThreshold: null, autoRecharge: { enabled: false, threshold: null, amount: null } },
    },
    'GET /api/agents': [],
  });
  vi.spyOn(console, 'error').mockImplementation(() => {});
  // A 500px box with 1000px of rows, scrolled to the top: not near the bottom.
  vi.spyOn(HTMLElement.prototype, 'scrollHeight', 'get').mockReturnValue(1000);
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(500);
});
afterEach(() => {
  vi.unstubAllGlobals();
  removeToast();
});

async function renderWallet(path = '/dashboard/wallet') {
  const utils = renderApp(path, authValue({ user: signedIn }));
  // The first render downloads the lazy route chunks: allow for a slow, shared machine.
  await screen.findByRole('heading', { level: 1, name: 'Wallet' }, { timeout: 10_000 });
  return utils;
}
const balanceRegion = () => screen.getByRole('region', { name: 'Current Balance' });
const table = () => screen.getByRole('region', { name: 'Transactions' });
const rows = () => within(table()).queryAllByRole('row').slice(1);

describe('wallet screen', () => {
  it('shows the spinner while user data loads and the user-data error', async () => {
    const { unmount } = renderApp('/wallet', authValue({ user: signedIn, profileLoading: true }));
    expect(await screen.findByRole('status', { name: 'Loading' }, { timeout: 10_000 })).toBeInTheDocument();
    unmount();
    renderApp('/wallet', authValue({ user: signedIn, error: new Error('Internal server error') }));
    expect(
      await screen.findByText('Error loading user data: Internal server error', {}, { timeout: 10_000 }),
    ).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Current Balance' })).not.toBeInTheDocument();
  });

  it('loads the balance and the first page, formatted', async () => {
    api.use({
      [BALANCE]: () => balanceBody(12.5),
      [PAGE]: () =>
        pageBody(
          [
            tx(1, { type: 'deposit', provider: 'stripe', amount: 25, description: 'Wallet top-up' }),
            tx(2, { amount: 1.2, description: null, type: null }),
          ],
          false,
        ),
    });
    await renderWallet('/wallet');
    expect(await within(balanceRegion()).findByText('$12.50')).toBeInTheDocument();
    await waitFor(() => expect(rows()).toHaveLength(2));
    const [first, second] = rows();
    expect(within(first!).getAllByRole('cell').map((c) => c.textContent)).toEqual([
      '01/15/2026 9:30 AM',
      '+$25.00',
      'Deposit',
      'Wallet top-up',
    ]);
    expect(within(first!).getByText('+$25.00')).toHaveClass('wallet-amount--credit');
    expect(within(second!).getAllByRole('cell').map((c) => c.textContent)).toEqual([
      '01/15/2026 9:30 AM',
      '-$1.20',
      'N/A',
      'N/A',
    ]);
    expect(within(second!).getByText('-$1.20')).toHaveClass('wallet-amount--debit');
    expect(screen.getByText('No more transactions to load.')).toBeInTheDocument();
    expect(calls('/api/user/transactions')[0]!.search).toBe('?limit=20&offset=0');
    // The wallet calls carry the fresh Bearer token.
    expect(api.calls[0]!.headers.get('Authorization')).toBe('Bearer token-123');
    // /wallet has no dashboard layout.
    expect(screen.queryByRole('navigation', { name: 'Main' })).not.toBeInTheDocument();
  });

  it("falls back to $0.00 and 'No transactions found.' when the calls fail", async () => {
    const boom = () => text('boom', 500);
    api.use({ [BALANCE]: boom, [PAGE]: boom, 'GET /api/usage': boom, 'GET /api/user/billing-settings': boom, 'GET /api/agents': boom });
    await renderWallet();
    expect(await within(balanceRegion()).findByText('$0.00')).toBeInTheDocument();
    expect(await screen.findByText('No transactions found.')).toBeInTheDocument();
    // Balance and history failures are silent (spec); the Usage and Spend controls cards (not spec
    // screens) say that they could not load.
    expect(within(balanceRegion()).queryByRole('alert')).not.toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Transaction History' })).queryByRole('alert')).not.toBeInTheDocument();
    await waitFor(() =>
      expect(screen.getAllByRole('alert').map((a) => a.textContent)).toEqual([
        expect.stringContaining('Failed to load usage.'),
        expect.stringContaining('Failed to load spend controls.'),
      ]),
    );
  });

  it('keeps the previous balance when a refresh fails', async () => {
    let fail = false;
    const down = () => text('down', 502);
    api.use({ [BALANCE]: () => (fail ? down() : balanceBody(7)), [PAGE]: () => (fail ? down() : pageBody([tx(1)], false)) });
    await renderWallet();
    expect(await within(balanceRegion()).findByText('$7.00')).toBeInTheDocument();
    fail = true;
    await userEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(calls('/api/user/balance')).toHaveLength(2));
    // The failed page is silent: the rows stay, has-more becomes false.
    await waitFor(() => expect(screen.getByText('No more transactions to load.')).toBeInTheDocument());
    expect(rows()).toHaveLength(1);
    expect(within(balanceRegion()).getByText('$7.00')).toBeInTheDocument();
  });

  it('loads the next page near the bottom with the snapshot, appends, and Refresh starts over', async () => {
    const first = Array.from({ length: 20 }, (_, i) => tx(i + 1));
    const second = [tx(21), tx(22)];
    api.use({
      [BALANCE]: () => balanceBody(1),
      [PAGE]: (req) => (req.url.searchParams.get('offset') === '0' ? pageBody(first, true) : pageBody(second, false, 20)),
    });
    await renderWallet();
    await waitFor(() => expect(rows()).toHaveLength(20));
    expect(screen.queryByText('No more transactions to load.')).not.toBeInTheDocument();

    // Not yet near the bottom: nothing loads.
    fireEvent.scroll(table(), { target: { scrollTop: 400 } });
    expect(calls('/api/user/transactions')).toHaveLength(1);
    // Within 50px of the bottom: the next page loads once.
    fireEvent.scroll(table(), { target: { scrollTop: 460 } });
    fireEvent.scroll(table(), { target: { scrollTop: 470 } });
    await waitFor(() => expect(rows()).toHaveLength(22));
    const pages = calls('/api/user/transactions');
    expect(pages).toHaveLength(2);
    expect(pages[1]!.search).toBe('?limit=20&offset=20&snapshot=snap-1');
    expect(screen.getByText('No more transactions to load.')).toBeInTheDocument();

    // No more pages: scrolling does nothing.
    fireEvent.scroll(table(), { target: { scrollTop: 500 } });
    expect(calls('/api/user/transactions')).toHaveLength(2);

    // Refresh: balance and the first page again, without the snapshot; the first page replaces.
    await userEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(calls('/api/user/transactions')).toHaveLength(3));
    expect(calls('/api/user/transactions')[2]!.search).toBe('?limit=20&offset=0');
    expect(calls('/api/user/balance')).toHaveLength(2);
    await waitFor(() => expect(rows()).toHaveLength(20));
  });

  it('shows the loading line while a page loads', async () => {
    let release!: (r: Response) => void;
    api.use({ [BALANCE]: () => balanceBody(1), [PAGE]: () => new Promise<Response>((r) => (release = r)) });
    await renderWallet();
    expect(await screen.findByText('Loading more transactions...')).toBeInTheDocument();
    await act(async () => release(pageBody([], false)));
    expect(await screen.findByText('No transactions found.')).toBeInTheDocument();
  });

  it('filters by description search and type on the client', async () => {
    api.use({
      [BALANCE]: () => balanceBody(1),
      [PAGE]: () =>
        pageBody(
          [
            tx(1, { type: 'deposit', provider: 'stripe', amount: 25, description: 'Wallet top-up via Stripe' }),
            tx(2, { type: 'income', provider: 'marketplace', description: 'Subscriber payment' }),
            tx(3, { type: 'expense', description: 'Agent interaction' }),
          ],
          false,
        ),
    });
    await renderWallet();
    await waitFor(() => expect(rows()).toHaveLength(3));
    const user = userEvent.setup();
    const search = screen.getByRole('textbox', { name: 'Search transactions' });
    expect(search).toHaveAttribute('placeholder', 'Search transactions...');
    await user.type(search, 'TOP-UP');
    expect(rows()).toHaveLength(1);
    expect(rows()[0]).toHaveTextContent('Wallet top-up via Stripe');
    await user.clear(search);
    await user.type(search, 'nothing like this');
    expect(rows()).toHaveLength(0);
    expect(screen.getByText('No transactions found.')).toBeInTheDocument();
    await user.clear(search);

    const pick = async (label: string) => {
      fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Filter by type' }));
      const option = await waitFor(() => {
        const el = document.querySelector(`.ant-select-item-option[title="${label}"]`);
        if (!el) throw new Error(`no option ${label}`);
        return el;
      });
      fireEvent.click(option);
    };
    await pick('Income');
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(rows()[0]).toHaveTextContent('Subscriber payment');
    await pick('Expense');
    await waitFor(() => expect(rows()[0]).toHaveTextContent('Agent interaction'));
    expect(rows()).toHaveLength(1);
    await pick('Balance Update');
    await waitFor(() => expect(rows()[0]).toHaveTextContent('Wallet top-up via Stripe'));
    expect(rows()).toHaveLength(1);
    await pick('All Types');
    await waitFor(() => expect(rows()).toHaveLength(3));
  });
});

describe('add funds', () => {
  beforeEach(() => {
    api.use({
      [BALANCE]: () => balanceBody(0),
      [PAGE]: () => pageBody([], false),
      [CHECKOUT]: { publishableKey: 'pk_test', sessionId: 'cs_1', url: 'http://127.0.0.1:8110/pay/cs_1' },
    });
  });

  it('disables the button for an empty, non-positive amount', async () => {
    await renderWallet();
    const amount = screen.getByRole('spinbutton', { name: 'Amount' });
    expect(amount).toHaveAttribute('placeholder', 'Enter amount');
    const button = screen.getByRole('button', { name: 'Add Funds with Stripe' });
    expect(button).toBeDisabled();
    const user = userEvent.setup();
    await user.type(amount, '-5');
    expect(button).toBeDisabled();
    await user.clear(amount);
    await user.type(amount, '0');
    expect(button).toBeDisabled();
    await user.clear(amount);
    await user.type(amount, '0.3');
    expect(button).toBeEnabled();
  });

  it("rejects amounts under $0.50 with 'Minimum amount to add is $0.50'", async () => {
    await renderWallet();
    const user = userEvent.setup();
    await user.type(screen.getByRole('spinbutton', { name: 'Amount' }), '0.3');
    await user.click(screen.getByRole('button', { name: 'Add Funds with Stripe' }));
    const alert = await screen.findByRole('alert', { name: 'Invalid Amount' });
    expect(alert).toHaveAccessibleDescription('Minimum amount to add is $0.50');
    expect(calls('/api/stripe/create-checkout-session')).toHaveLength(0);
  });

  it("creates the session in cents, shows 'Processing...' and goes to the checkout url", async () => {
    await renderWallet();
    const user = userEvent.setup();
    await user.type(screen.getByRole('spinbutton', { name: 'Amount' }), '25');
    await user.click(screen.getByRole('button', { name: 'Add Funds with Stripe' }));
    await waitFor(() => expect(redirectTo).toHaveBeenCalledWith('http://127.0.0.1:8110/pay/cs_1'));
    expect(screen.getByRole('button', { name: 'Processing...' })).toBeDisabled();
    const checkout = api.calls.find((c) => String(c.input).includes('create-checkout-session'))!;
    expect(checkout.body).toMatchObject({
      amount: 2500,
      currency: 'usd',
      metadata: { userId: 'u1', email: 'ada@example.com' },
    });
  });

  it("shows 'Payment Failed' with the spec message and re-enables the button", async () => {
    api.use({ [CHECKOUT]: () => text('', 429) });
    await renderWallet();
    const user = userEvent.setup();
    await user.type(screen.getByRole('spinbutton', { name: 'Amount' }), '10');
    await user.click(screen.getByRole('button', { name: 'Add Funds with Stripe' }));
    const alert = await screen.findByRole('alert', { name: 'Payment Failed' });
    expect(alert).toHaveAccessibleDescription('Too many requests. Please wait a moment and try again.');
    expect(screen.getByRole('button', { name: 'Add Funds with Stripe' })).toBeEnabled();
    expect(redirectTo).not.toHaveBeenCalled();
  });
});

describe('payment return', () => {
  beforeEach(() => {
    api.use({ [BALANCE]: () => balanceBody(25), [PAGE]: () => pageBody([], false) });
  });

  it('canceled=true: destructive toast and the bare path', async () => {
    const { router } = await renderWallet('/wallet?canceled=true');
    const alert = await screen.findByRole('alert', { name: 'Payment Canceled' });
    expect(alert).toHaveAccessibleDescription('Your payment was canceled. No funds were added to your wallet.');
    await waitFor(() => expect(router.state.location.search).toBe(''));
    expect(router.state.location.pathname).toBe('/wallet');
  });

  it('success=true with a session id: 6 refreshes, then the success toast and the bare path', async () => {
    const { router } = await renderWallet('/dashboard/wallet?success=true&session_id=cs_test_1');
    await waitFor(() => expect(router.state.location.search).toBe(''));
    expect(router.state.location.pathname).toBe('/dashboard/wallet');
    const status = await screen.findByRole('status', { name: 'Payment Successful!' });
    expect(status).toHaveAccessibleDescription('Your funds have been added to your wallet.');
    // 5 polling rounds + 1 final refresh (the entry load may be superseded by the first round).
    expect(calls('/api/user/balance').length).toBeGreaterThanOrEqual(6);
    expect(calls('/api/user/transactions').length).toBeGreaterThanOrEqual(6);
  });

  it('ignores the literal session placeholder but still cleans the address', async () => {
    const { router } = await renderWallet('/wallet?success=true&session_id={CHECKOUT_SESSION_ID}');
    await waitFor(() => expect(router.state.location.search).toBe(''));
    await within(balanceRegion()).findByText('$25.00');
    expect(screen.queryByRole('status', { name: 'Payment Successful!' })).not.toBeInTheDocument();
    expect(calls('/api/user/balance')).toHaveLength(1);
  });
});
