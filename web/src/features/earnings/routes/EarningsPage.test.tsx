import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { removeToast } from '@/components/toast/toast-store';
import { redirectTo } from '@/features/wallet/lib/redirect';
import { type FakeApi, fakeApi, json } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { authValue, renderApp } from '@/test/render';

configure({ defaultHidden: true });
vi.setConfig({ testTimeout: 45_000 });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));
vi.mock('@/features/wallet/lib/redirect', () => ({ redirectTo: vi.fn() }));
// The chart is drawn by @ant-design/plots on a canvas jsdom lacks: a stand-in shows its rows.
vi.mock('../components/EarningsColumnChart', () => ({
  default: ({ rows }: { rows: { amount: number }[] }) => <div data-testid="earnings-column-chart" data-rows={rows.length} />,
}));

const slow = { timeout: 20_000 };
const signedIn = authValue({ user: { uid: 'u1', email: 'ada@example.com', displayName: 'Ada' } });


const earnings = (overrides: Record<string, unknown> = {}) => ({
  pending: 1.2345,
  available: 25,
  paidOut: 10,
  inTransit: 0,
  currency: 'usd',
  minimumWithdrawal: 10,
  holdSeconds: 604_800,
  payoutAccount: { status: 'enabled' },
  byAgent: [{ agentId: 'a1', name: 'Tax Helper', answers: 1234, users: 56, earned: 36.2 }],
  ...overrides,
});

let api: FakeApi;

beforeEach(() => {
  removeToast();
  vi.mocked(redirectTo).mockClear();
  api = fakeApi({
    'GET /api/agents': () => json([{ id: 'a1', name: 'Tax Helper', isPublic: true, slug: 'tax-helper', publishedAt: '2026-01-01T00:00:00Z' }]),
    'GET /api/user/earnings': () => json(earnings()),
    'GET /api/user/earnings/series': () =>
      json({ days: [{ date: new Date().toISOString().slice(0, 10), agentId: 'a1', name: 'Tax Helper', earned: 1.5, answers: 12 }] }),
    'GET /api/user/payouts': () =>
      json({
        payouts: [
          { id: 'p1', amount: 10, status: 'paid', createdAt: '2026-03-01T10:00:00Z', updatedAt: '2026-03-02T10:00:00Z' },
          { id: 'p2', amount: 12, status: 'failed', createdAt: '2026-03-03T10:00:00Z', updatedAt: '2026-03-03T11:00:00Z', failureMessage: 'The bank refused it.' },
        ],
      }),
    'GET /api/marketplace/agents/tax-helper': () => json({ id: 'a1', slug: 'tax-helper', name: 'Tax Helper', rating: { average: 4.5, count: 12 } }),
  });
});

async function amountField(label: string) {
  return screen.findByRole('spinbutton', { name: label }, slow);
}

describe('/dashboard/earnings', () => {
  it('shows the balances, the hold, the chart, the agents and the payouts; Earnings is in the navigation', async () => {
    renderApp('/dashboard/earnings', signedIn);
    expect(await screen.findByRole('heading', { level: 1, name: 'Earnings' }, slow)).toBeInTheDocument();
    expect(await screen.findByTestId('earnings-pending', {}, slow)).toHaveTextContent('$1.23');
    expect(screen.getByTestId('earnings-available')).toHaveTextContent('$25.00');
    expect(screen.getByTestId('earnings-in-transit')).toHaveTextContent('$0.00');
    expect(screen.getByTestId('earnings-paid-out')).toHaveTextContent('$10.00');
    expect(screen.getByTestId('earnings-hold')).toHaveTextContent('Earnings become available 7 days after each answer');
    expect(await screen.findByTestId('earnings-column-chart', {}, slow)).toHaveAttribute('data-rows', '30');
    const table = screen.getByTestId('earnings-agents');
    expect(within(table).getByRole('rowheader', { name: 'Tax Helper' })).toBeInTheDocument();
    expect(table).toHaveTextContent('1,234');
    expect(table).toHaveTextContent('56');
    expect(table).toHaveTextContent('$36.20');
    await waitFor(() => expect(table).toHaveTextContent('4.5 (12 ratings)'));
    expect(screen.getByTestId('payout-account-state')).toHaveTextContent('Your payout account is ready');
    const payouts = await screen.findByTestId('payouts', {}, slow);
    expect(payouts).toHaveTextContent('Paid');
    expect(payouts).toHaveTextContent('Failed');
    expect(payouts).toHaveTextContent('The bank refused it.');
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Earnings' })).toHaveAttribute('aria-current', 'page');
  });

  it('hides Earnings from the navigation without a listed agent (the page stays reachable)', async () => {
    api.routes['GET /api/agents'] = () => json([{ id: 'a1', name: 'Tax Helper', isPublic: false, slug: null, publishedAt: null }]);
    renderApp('/dashboard/earnings', signedIn);
    expect(await screen.findByRole('heading', { level: 1, name: 'Earnings' }, slow)).toBeInTheDocument();
    await waitFor(() => expect(api.callsTo('GET /api/agents').length).toBeGreaterThan(0));
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Wallet' })).toBeInTheDocument();
    expect(within(nav).queryByRole('link', { name: 'Earnings' })).not.toBeInTheDocument();
  });

  it('shows the loading state, then an error with Try again', async () => {
    let fail = true;
    api.routes['GET /api/user/earnings'] = () => (fail ? json({ error: 'internal', message: 'boom' }, 500) : json(earnings()));
    renderApp('/dashboard/earnings', signedIn);
    expect(await screen.findByRole('status', { name: 'Loading earnings' }, slow)).toBeInTheDocument();
    expect(await screen.findByText('Could not load your earnings.', {}, slow)).toBeInTheDocument();
    fail = false;
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByTestId('earnings-available', {}, slow)).toHaveTextContent('$25.00');
  });

  it('shows the empty states', async () => {
    api.routes['GET /api/user/earnings'] = () => json(earnings({ pending: 0, available: 0, paidOut: 0, byAgent: [] }));
    api.routes['GET /api/user/earnings/series'] = () => json({ days: [] });
    api.routes['GET /api/user/payouts'] = () => json({ payouts: [] });
    renderApp('/dashboard/earnings', signedIn);
    expect(await screen.findByText('No earnings in the last 30 days.', {}, slow)).toBeInTheDocument();
    expect(screen.getByText(/No answers have earned anything yet/)).toBeInTheDocument();
    expect(await screen.findByText('No payouts yet.', {}, slow)).toBeInTheDocument();
  });

  it('validates a withdrawal, confirms the amount and posts it', async () => {
    api.routes['POST /api/user/payouts'] = () =>
      json({ payout: { id: 'p3', amount: 20, status: 'in_transit', createdAt: '', updatedAt: '' } }, 201);
    renderApp('/dashboard/earnings', signedIn);
    const field = await amountField('Amount to withdraw');
    const form = field.closest('form')!;
    fireEvent.change(field, { target: { value: '5' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Withdraw' }));
    expect(await within(form).findByText('The minimum withdrawal is $10.00.')).toBeInTheDocument();
    expect(field).toHaveAttribute('aria-invalid', 'true');
    fireEvent.change(field, { target: { value: '30' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Withdraw' }));
    expect(await within(form).findByText('You have $25.00 available to withdraw.')).toBeInTheDocument();
    expect(api.callsTo('POST /api/user/payouts')).toHaveLength(0);

    fireEvent.change(field, { target: { value: '20' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Withdraw' }));
    const dialog = await screen.findByRole('dialog', { name: 'Withdraw $20.00?' });
    expect(dialog).toHaveTextContent('$20.00 of your available earnings will be sent to your payout account.');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Withdraw $20.00' }));
    await waitFor(() => expect(api.callsTo('POST /api/user/payouts')).toHaveLength(1));
    expect(api.callsTo('POST /api/user/payouts')[0]!.body).toEqual({ amount: 20 });
    expect(await screen.findByRole('status', { name: 'Payout on its way' })).toBeInTheDocument();
  });

  it('shows the server message when a withdrawal is refused', async () => {
    api.routes['POST /api/user/payouts'] = () =>
      json({ error: 'payout_in_flight', message: 'A payout is already on its way. Try again when it has arrived.' }, 409);
    renderApp('/dashboard/earnings', signedIn);
    const field = await amountField('Amount to withdraw');
    const form = field.closest('form')!;
    fireEvent.change(field, { target: { value: '10' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Withdraw' }));
    const dialog = await screen.findByRole('dialog', { name: 'Withdraw $10.00?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Withdraw $10.00' }));
    expect(await within(form).findByText('A payout is already on its way. Try again when it has arrived.')).toBeInTheDocument();
    expect(await screen.findByRole('alert', { name: 'Withdrawal failed' })).toBeInTheDocument();
  });

  it('moves earnings to the wallet and shows a refusal', async () => {
    api.routes['POST /api/user/earnings/transfer-to-wallet'] = () => json({ transferred: 5, available: 20, balance: 12.5 });
    renderApp('/dashboard/earnings', signedIn);
    const field = await amountField('Amount to move');
    const form = field.closest('form')!;
    fireEvent.change(field, { target: { value: '5' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Move to wallet' }));
    const toast = await screen.findByRole('status', { name: 'Moved to your wallet' });
    expect(toast).toHaveAccessibleDescription('$5.00 moved to your wallet. Your balance is $12.50.');
    expect(api.callsTo('POST /api/user/earnings/transfer-to-wallet')[0]!.body).toEqual({ amount: 5 });

    api.routes['POST /api/user/earnings/transfer-to-wallet'] = () =>
      json({ error: 'earnings_insufficient', message: 'You have $3.00 available to transfer.' }, 409);
    fireEvent.change(field, { target: { value: '4' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Move to wallet' }));
    expect(await within(form).findByText('You have $3.00 available to transfer.')).toBeInTheDocument();
  });

  it('starts payout onboarding and says so on return', async () => {
    api.routes['GET /api/user/earnings'] = () => json(earnings({ payoutAccount: { status: 'none' } }));
    api.routes['POST /api/user/payouts/account-link'] = () => json({ url: 'https://connect.stripe.test/setup/abc' });
    const { router } = renderApp('/dashboard/earnings?payouts=return', signedIn);
    expect(await screen.findByText('Welcome back. Your payout account’s state is shown below.', {}, slow)).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.search).toBe(''));
    fireEvent.click(await screen.findByRole('button', { name: 'Set up payouts' }, slow));
    await waitFor(() => expect(redirectTo).toHaveBeenCalledWith('https://connect.stripe.test/setup/abc'));
  });

  it('offers Continue setup for an unfinished or restricted account', async () => {
    api.routes['GET /api/user/earnings'] = () =>
      json(earnings({ payoutAccount: { status: 'restricted', reason: 'Bank account details are missing.' } }));
    renderApp('/dashboard/earnings?payouts=refresh', signedIn);
    expect(await screen.findByText(/The setup link expired/, {}, slow)).toBeInTheDocument();
    expect(await screen.findByTestId('payout-account-state', {}, slow)).toHaveTextContent(
      'Your payout account cannot receive payouts yet: Bank account details are missing.',
    );
    expect(screen.getByRole('button', { name: 'Continue setup' })).toBeInTheDocument();
  });
});
