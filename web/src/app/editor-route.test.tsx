import { configure, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { authValue, renderApp } from '@/test/render';

// Role queries' visibility check is very slow with antd's styles in jsdom (see AgentsPage.test).
configure({ defaultHidden: true });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

const agent = {
  id: 'a1',
  userId: 'u1',
  name: 'Physics Tutor',
  description: 'Helps students with physics homework',
  category: 'Education',
  status: 'active',
  isPublic: false,
  iconName: 'ri-brain-line',
  iconColor: '#4076D6',
  instructions: '',
  tags: [],
  subscribers: 0,
  totalInteractions: 0,
  email: 'physics-tutor-1@agents.example.com',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
};

beforeEach(() => {
  fakeApi({
    'GET /api/agents': [agent],
    // What the open editor reads besides the agent.
    'GET /api/agents/a1/documents': [],
    'GET /api/agents/a1/subscribers': [],
    'GET /api/user/agent-fees': { success: true, data: [] },
  });
});

const signedIn = authValue({ user: { uid: 'u1', email: 'ada@example.com', displayName: 'Ada' } });

describe('the route table has the agent editor addresses (issue 29)', { timeout: 60_000 }, () => {
  it('/dashboard/agentic-users/{id}/{tab} opens that agent on that tab, over the list, in the dashboard layout', async () => {
    const { router } = renderApp('/dashboard/agentic-users/a1/users', signedIn);
    const editor = await screen.findByRole('dialog', { name: 'Physics Tutor' });
    expect(within(editor).getByRole('tab', { name: 'Users' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('heading', { level: 1, name: 'Your Agentic Users' })).toBeInTheDocument();
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Your Agentic Users' })).toHaveAttribute('aria-current', 'page');
    expect(router.state.location.pathname).toBe('/dashboard/agentic-users/a1/users');
  });

  it('/dashboard/agentic-users/{id} opens the first tab', async () => {
    renderApp('/dashboard/agentic-users/a1', signedIn);
    const editor = await screen.findByRole('dialog', { name: 'Physics Tutor' });
    expect(within(editor).getByRole('tab', { name: 'Instructions & Documents' })).toHaveAttribute('aria-selected', 'true');
  });

  it('a path below a tab is the not-found screen', async () => {
    renderApp('/dashboard/agentic-users/a1/users/more', signedIn);
    expect(await screen.findByRole('heading', { name: '404 Page Not Found' })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });
});
