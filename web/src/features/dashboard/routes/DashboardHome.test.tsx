import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { contrastRatio, tint } from '@/lib/contrast';
import { authValue, renderApp } from '@/test/render';

vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => ({ auth: { currentUser: null } })) }));

const apiRequest = vi.hoisted(() => vi.fn());
vi.mock('@/lib/api-client', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@/lib/api-client')>()),
  apiRequest,
}));

// The route chunk (antd) loads lazily: allow a cold, shared machine some time.
const SLOW = { timeout: 15_000 };

const signedIn = { uid: 'u1', email: 'ada@example.com', displayName: 'Ada Lovelace', username: 'ada' };

const stats = {
  agentCount: 3,
  agentGrowth: 50,
  totalRevenue: 1250,
  revenueGrowth: -12.5,
  totalInteractions: 1234,
  interactionGrowth: 0,
};

const activities = [
  {
    id: 'a1',
    activityType: 'upload',
    description: 'Document "Syllabus" added to Tutor',
    createdAt: new Date(Date.now() - 60 * 60 * 1000).toISOString(),
    metadata: { fileType: 'Google Docs' },
    agent: { name: 'Tutor', iconColor: '#6767EC' },
  },
  {
    id: 'a2',
    activityType: 'create',
    description: 'Created agent Tutor',
    createdAt: new Date(Date.now() - 3 * 24 * 60 * 60 * 1000).toISOString(),
    metadata: {},
    agent: { name: 'Tutor', iconColor: '' },
  },
];

function respond(byPath: Record<string, unknown>) {
  apiRequest.mockImplementation(async (path: string) => {
    const v = byPath[path];
    if (v instanceof Error) throw v;
    if (v === 'pending') return new Promise(() => {});
    return v;
  });
}

afterEach(() => apiRequest.mockReset());

describe('DashboardHome', () => {
  it('shows the spinner while user data loads and requests nothing', async () => {
    respond({ '/api/dashboard/stats': stats, '/api/activities': [] });
    renderApp('/dashboard', authValue({ user: signedIn, profileLoading: true }));
    expect(await screen.findByRole('status', { name: 'Loading' }, SLOW)).toBeInTheDocument();
    expect(apiRequest).not.toHaveBeenCalled();
  });

  it('shows the user-data error and requests nothing', async () => {
    respond({ '/api/dashboard/stats': stats, '/api/activities': [] });
    renderApp('/dashboard', authValue({ user: signedIn, error: new Error('boom') }));
    expect(await screen.findByText('Error loading user data: boom', {}, SLOW)).toBeInTheDocument();
    expect(apiRequest).not.toHaveBeenCalled();
  });

  it('shows 4 skeleton cards and 2 skeleton rows while loading', async () => {
    respond({ '/api/dashboard/stats': 'pending', '/api/activities': 'pending' });
    renderApp('/dashboard', authValue({ user: signedIn }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Dashboard' }, SLOW)).toBeInTheDocument();
    expect(screen.getAllByTestId('stat-card-skeleton')).toHaveLength(4);
    expect(screen.getAllByTestId('activity-skeleton')).toHaveLength(2);
    expect(screen.getByText(/^Last updated: \d\d\/\d\d\/\d{4}, /)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'View all activity' })).not.toBeInTheDocument();
  });

  it('renders the stats and the activity feed', async () => {
    respond({ '/api/dashboard/stats': stats, '/api/activities': activities });
    renderApp('/dashboard', authValue({ user: signedIn }));
    const users = await screen.findByRole('article', { name: 'Total Agentic Users' }, SLOW);
    expect(within(users).getByText('3')).toBeInTheDocument();
    expect(users.querySelector('[data-direction="up"][data-color="green"]')).toHaveTextContent('+50.0% from last month');
    const revenue = screen.getByRole('article', { name: 'Total Revenue' });
    expect(within(revenue).getByText('$12.50')).toBeInTheDocument();
    expect(revenue.querySelector('[data-direction="down"][data-color="red"]')).toHaveTextContent('-12.5% from last month');
    const interactions = screen.getByRole('article', { name: 'Interactions' });
    expect(within(interactions).getByText('1,234')).toBeInTheDocument();
    expect(interactions.querySelector('[data-direction="up"]')).toHaveTextContent('+0.0% from last month');

    const list = await screen.findByRole('list', { name: 'Recent activity' }, SLOW);
    const rows = within(list).getAllByRole('listitem');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('Document "Syllabus" added to Tutor');
    expect(rows[0].querySelector('[data-icon="file-upload"][data-color="purple"]')).not.toBeNull();
    expect(within(rows[0]).getByText('Documents: Google Docs')).toHaveAttribute('data-color', 'blue');
    expect(within(rows[0]).getByText('Tutor')).toHaveAttribute('data-color', '#6767EC');
    expect(within(rows[0]).getByText('about 1 hour ago')).toBeInTheDocument();
    expect(rows[1].querySelector('[data-icon="info"][data-color="gray"]')).not.toBeNull();
    expect(within(rows[1]).getByText('Tutor')).toHaveAttribute('data-color', 'blue');
    expect(within(rows[1]).getByText('3 days ago')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'View all activity' })).toBeInTheDocument();
    expect(apiRequest).toHaveBeenCalledWith('/api/dashboard/stats', expect.objectContaining({ method: 'GET' }));
    expect(apiRequest).toHaveBeenCalledWith('/api/activities', expect.objectContaining({ method: 'GET' }));
  });

  it("draws agent tags in the agent's colour with AA text contrast on its tint (issue 18: #FF3E00)", async () => {
    const orange = { ...activities[0], id: 'a3', agent: { name: 'Blaze', iconColor: '#FF3E00' } };
    respond({ '/api/dashboard/stats': stats, '/api/activities': [orange, activities[1]] });
    renderApp('/dashboard', authValue({ user: signedIn }));
    const list = await screen.findByRole('list', { name: 'Recent activity' }, SLOW);
    for (const [name, base] of [
      ['Blaze', '#FF3E00'],
      ['Tutor', '#1d4ed8'],
    ]) {
      const tag = within(list).getByText(name);
      const text = tag.style.getPropertyValue('--tag-color');
      const background = tag.style.getPropertyValue('--tag-background');
      expect(background).toBe(tint(base));
      expect(contrastRatio(text, background), `${name}: ${text} on ${background}`).toBeGreaterThanOrEqual(4.5);
    }
    expect(contrastRatio('#FF3E00', tint('#FF3E00'))).toBeLessThan(4.5);
  });

  it('shows the failure message and the empty feed', async () => {
    respond({ '/api/dashboard/stats': new Error('500: nope'), '/api/activities': [] });
    renderApp('/dashboard', authValue({ user: signedIn }));
    expect(await screen.findByText('Failed to load dashboard statistics', {}, SLOW)).toBeInTheDocument();
    expect(await screen.findByText('No recent activity', {}, SLOW)).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByTestId('stat-card-skeleton')).not.toBeInTheDocument());
    expect(screen.queryByRole('button', { name: 'View all activity' })).not.toBeInTheDocument();
  });
});

// The Interactions chart is drawn by @ant-design/plots on a canvas jsdom lacks: a stand-in shows its rows.
vi.mock('../components/InteractionsColumnChart', () => ({
  default: ({ rows }: { rows: { date: string; interactions: number }[] }) => (
    <div data-testid="interactions-column-chart" data-rows={rows.length}>
      {rows.map((r) => r.interactions).join(',')}
    </div>
  ),
}));

function usage(counts: number[]) {
  return {
    from: '2026-03-08',
    to: '2026-03-10',
    total: 0,
    days: counts.map((n, i) => ({ date: `2026-03-${String(8 + i).padStart(2, '0')}`, total: n * 0.01, interactions: n, agents: [] })),
    agents: [],
  };
}
const USAGE = '/api/usage?groupBy=day';
const BALANCE = '/api/user/balance';

describe('DashboardHome: interactions chart and billing notices', () => {
  it('draws answers per day for the last 30 days', async () => {
    respond({ '/api/dashboard/stats': stats, '/api/activities': [], [USAGE]: usage([0, 3, 1]), [BALANCE]: { success: true, data: { balance: 5 } } });
    renderApp('/dashboard', authValue({ user: signedIn }));
    const card = await screen.findByRole('region', { name: 'Interactions per day' }, SLOW);
    const chart = await within(card).findByTestId('interactions-column-chart', {}, SLOW);
    expect(chart).toHaveAttribute('data-rows', '3');
    expect(chart).toHaveTextContent('0,3,1');
    expect(within(card).getByTestId('interactions-total')).toHaveTextContent('4');
    expect(within(card).getByRole('img')).toHaveAttribute(
      'aria-label',
      'Answers per day for the last 3 days: 4 in all; most on Mar 9 (3).',
    );
    expect(apiRequest).toHaveBeenCalledWith(USAGE, expect.objectContaining({ method: 'GET' }));
    // An older wallet (balance only): no notices.
    expect(screen.queryByRole('group', { name: 'Billing notices' })).not.toBeInTheDocument();
  });

  it('shows the loading, empty and error states', async () => {
    respond({ '/api/dashboard/stats': stats, '/api/activities': [], [USAGE]: 'pending', [BALANCE]: 'pending' });
    const { unmount } = renderApp('/dashboard', authValue({ user: signedIn }));
    expect(await screen.findByRole('status', { name: 'Loading interactions' }, SLOW)).toBeInTheDocument();
    unmount();

    respond({ '/api/dashboard/stats': stats, '/api/activities': [], [USAGE]: usage([0, 0, 0]), [BALANCE]: new Error('500: x') });
    const second = renderApp('/dashboard', authValue({ user: signedIn }));
    expect(await screen.findByText('No interactions in the last 30 days.', {}, SLOW)).toBeInTheDocument();
    expect(screen.queryByTestId('interactions-column-chart')).not.toBeInTheDocument();
    second.unmount();

    respond({ '/api/dashboard/stats': stats, '/api/activities': [], [USAGE]: new Error('502: bad gateway'), [BALANCE]: new Error('500: x') });
    renderApp('/dashboard', authValue({ user: signedIn }));
    const card = await screen.findByRole('region', { name: 'Interactions per day' }, SLOW);
    expect(await within(card).findByRole('alert', {}, SLOW)).toHaveTextContent('Failed to load interactions.');
    // The statistics are unaffected.
    expect(await screen.findByRole('article', { name: 'Interactions' }, SLOW)).toBeInTheDocument();
  });

  it('shows low balance, monthly limit and auto-recharge notices', async () => {
    respond({
      '/api/dashboard/stats': stats,
      '/api/activities': [],
      [USAGE]: usage([0]),
      [BALANCE]: {
        success: true,
        data: {
          balance: 1,
          held: 0,
          available: 1,
          debt: 0,
          monthUsage: 10,
          monthlyLimit: 10,
          lowBalanceThreshold: 2,
          lowBalance: true,
          limitWarning: 'limit_100',
          autoRecharge: {
            enabled: false,
            threshold: 2,
            amount: 20,
            hasCard: true,
            cardLabel: 'Visa •••• 4242',
            disabledReason: 'Your card was declined 3 times in a row.',
            lastFailure: 'card_declined',
            inFlight: false,
          },
        },
      },
    });
    renderApp('/dashboard', authValue({ user: signedIn }));
    const notices = await screen.findByRole('group', { name: 'Billing notices' }, SLOW);
    const alerts = within(notices).getAllByRole('alert');
    expect(alerts.map((a) => a.getAttribute('data-notice'))).toEqual(['limit_100', 'low_balance', 'auto_recharge_off']);
    expect(alerts[0]).toHaveTextContent('You have reached your monthly spending limit ($10.00 of $10.00).');
    expect(alerts[1]).toHaveTextContent('Your balance is low: $1.00 available, below your $2.00 threshold.');
    expect(alerts[2]).toHaveTextContent('Your card was declined 3 times in a row.');
  });

  it('shows the debt', async () => {
    respond({
      '/api/dashboard/stats': stats,
      '/api/activities': [],
      [USAGE]: usage([0]),
      [BALANCE]: { success: true, data: { balance: 0, debt: 12.5 } },
    });
    renderApp('/dashboard', authValue({ user: signedIn }));
    const notices = await screen.findByRole('group', { name: 'Billing notices' }, SLOW);
    const [debt, ...rest] = within(notices).getAllByRole('alert');
    expect(rest).toHaveLength(0);
    expect(debt).toHaveAttribute('data-notice', 'debt');
    expect(debt).toHaveTextContent('You owe $12.50 after a refund; your next top-up pays it first.');
  });
});
