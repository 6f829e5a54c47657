import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
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

  it('shows the failure message and the empty feed', async () => {
    respond({ '/api/dashboard/stats': new Error('500: nope'), '/api/activities': [] });
    renderApp('/dashboard', authValue({ user: signedIn }));
    expect(await screen.findByText('Failed to load dashboard statistics', {}, SLOW)).toBeInTheDocument();
    expect(await screen.findByText('No recent activity', {}, SLOW)).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByTestId('stat-card-skeleton')).not.toBeInTheDocument());
    expect(screen.queryByRole('button', { name: 'View all activity' })).not.toBeInTheDocument();
  });
});
