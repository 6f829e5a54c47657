import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AgentEditor } from '@/features/agents/components/editor/AgentEditor';
import type { Agent } from '@/features/agents/types';
import { createQueryClient } from '@/lib/query-client';
import { type FakeApi, fakeApi } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';

vi.setConfig({ testTimeout: 45_000 });

// The editor's header reads the signed-in user's agent fees (AgentFeeNotice).
vi.mock('@/features/auth', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@/features/auth')>()),
  useAuth: () => ({ user: { uid: 'u1' } }),
}));

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

const agent: Agent = {
  id: 'a1',
  userId: 'u1',
  name: 'Math Tutor',
  description: 'Helps with calculus.',
  category: 'Education',
  status: 'active',
  isPublic: false,
  iconName: 'ri-robot-line',
  iconColor: '#FF3E00',
  instructions: '',
  tags: [],
  subscribers: 0,
  totalInteractions: 0,
  email: 'math-tutor@agents.example.com',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
};

let api: FakeApi;
beforeEach(() => {
  api = fakeApi({
    'GET /api/agents/a1/api-keys': [],
    // What the editor reads besides the keys: the agent's documents and the owner's agent fees.
    'GET /api/agents/a1/documents': [],
    'GET /api/user/agent-fees': { success: true, data: [] },
  });
});

describe('AgentEditor API tab', () => {
  it('is the last tab and loads the keys only when opened', async () => {
    render(
      <QueryClientProvider client={createQueryClient()}>
        <MemoryRouter>
          <AgentEditor agent={agent} open onClose={() => {}} />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    const tabs = await screen.findAllByRole('tab', { hidden: true });
    expect(tabs[tabs.length - 1]).toHaveTextContent('API');
    expect(api.calls.some((c) => c.path.includes('/api-keys'))).toBe(false);

    fireEvent.click(screen.getByRole('tab', { name: 'API', hidden: true }));
    // The panel is a lazy chunk: its first transform can take a while on a busy machine.
    expect(
      await screen.findByRole('heading', { level: 3, name: 'API access', hidden: true }, { timeout: 20_000 }),
    ).toBeInTheDocument();
    expect(await screen.findByText('No API keys yet', {}, { timeout: 10_000 })).toBeInTheDocument();
    expect(api.calls.some((c) => c.input === '/api/agents/a1/api-keys')).toBe(true);
    expect(screen.getByTestId('api-model')).toHaveTextContent('agentic/a1');
  });
});
