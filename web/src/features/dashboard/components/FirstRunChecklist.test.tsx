import { QueryClientProvider } from '@tanstack/react-query';
import { configure, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthContext } from '@/features/auth/auth-context';
import type { BalanceDetails } from '@/features/wallet/api/billing';
import { createQueryClient } from '@/lib/query-client';
import { type FakeApi, fakeApi } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { authValue } from '@/test/render';
import type { DashboardStats } from '../api/dashboard';
import { FirstRunChecklist } from './FirstRunChecklist';

configure({ defaultHidden: true });
vi.setConfig({ testTimeout: 30_000 });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

let api: FakeApi;
beforeEach(() => {
  localStorage.clear();
});

const stats: DashboardStats = {
  agentCount: 0,
  agentGrowth: 0,
  totalRevenue: 0,
  revenueGrowth: 0,
  totalInteractions: 0,
  interactionGrowth: 0,
};
const emptyWallet = { balance: 0, monthUsage: 0 } as BalanceDetails;

function renderChecklist(props: { stats?: DashboardStats; balance?: BalanceDetails } = {}) {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <AuthContext.Provider value={authValue({ user: { uid: 'u1', email: 'ada@example.com', displayName: 'Ada' } })}>
        <MemoryRouter>
          <FirstRunChecklist uid="u1" stats={props.stats ?? stats} activities={[]} balance={props.balance ?? emptyWallet} />
        </MemoryRouter>
      </AuthContext.Provider>
    </QueryClientProvider>,
  );
}

const step = (id: string) => screen.getByTestId('first-run-checklist').querySelector(`[data-step="${id}"]`)!;

describe('FirstRunChecklist', () => {
  it('a new user sees four steps to do, with links', async () => {
    api = fakeApi({ 'GET /api/agents': [] });
    renderChecklist();
    const list = await screen.findByTestId('first-run-checklist');
    expect(within(list).getByRole('heading', { name: 'Get started' })).toBeInTheDocument();
    expect(within(list).getByTestId('first-run-progress')).toHaveTextContent('0 of 4 done');
    expect(within(list).getByRole('link', { name: 'Create an agent: Create' })).toHaveAttribute('href', '/dashboard/agentic-users');
    expect(within(list).getByRole('link', { name: 'Add funds: Add' })).toHaveAttribute('href', '/dashboard/wallet');
  });

  it('ticks off creating an agent and a shared document from the agents and their documents', async () => {
    api = fakeApi({
      'GET /api/agents': [{ id: 'a1', name: 'Tutor' }],
      'GET /api/agents/a1/documents': [{ id: 'd1', name: 'Notes', sharingStatus: 'shared' }],
    });
    renderChecklist();
    await waitFor(() => expect(step('agent')).toHaveAttribute('data-done', 'true'));
    await waitFor(() => expect(step('document')).toHaveAttribute('data-done', 'true'));
    expect(step('question')).toHaveAttribute('data-done', 'false');
    expect(screen.getByTestId('first-run-progress')).toHaveTextContent('2 of 4 done');
    expect(within(step('question') as HTMLElement).getByRole('link')).toHaveAttribute('href', '/dashboard/agentic-users/a1/chat');
  });

  it('is hidden once every step is done', async () => {
    api = fakeApi({
      'GET /api/agents': [{ id: 'a1', name: 'Tutor' }],
      'GET /api/agents/a1/documents': [{ id: 'd1', name: 'Notes', sharingStatus: 'shared' }],
    });
    renderChecklist({ stats: { ...stats, agentCount: 1, totalInteractions: 2 }, balance: { balance: 5, monthUsage: 1 } as BalanceDetails });
    await waitFor(() => expect(api.fetch).toHaveBeenCalledWith('/api/agents/a1/documents', expect.anything()));
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByTestId('first-run-checklist')).not.toBeInTheDocument();
  });

  it('can be dismissed, and stays dismissed', async () => {
    api = fakeApi({ 'GET /api/agents': [] });
    const { unmount } = renderChecklist();
    fireEvent.click(await screen.findByRole('button', { name: 'Dismiss checklist' }));
    expect(screen.queryByTestId('first-run-checklist')).not.toBeInTheDocument();
    unmount();
    renderChecklist();
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByTestId('first-run-checklist')).not.toBeInTheDocument();
  });
});
