import { QueryClientProvider } from '@tanstack/react-query';
import { configure, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AgentEditor } from '@/features/agents/components/editor/AgentEditor';
import type { Agent } from '@/features/agents/types';
import { createQueryClient } from '@/lib/query-client';
import { type FakeApi, fakeApi } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import '../test/jsdom-stubs';
import { followUpSearchText } from './ModelTag';

configure({ defaultHidden: true });
vi.setConfig({ testTimeout: 30_000 });

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
    'GET /api/agents/a1/chat-info': { model: 'gpt-4o-mini', simulated: false, role: 'owner', followUpSearch: 'model' },
    'GET /api/agents/a1/conversations': [],
    // What the editor reads besides the chat: the agent's documents and the owner's agent fees.
    'GET /api/agents/a1/documents': [],
    'GET /api/user/agent-fees': { success: true, data: [] },
  });
});

describe('AgentEditor Chat tab', () => {
  it('keeps the existing tabs, adds Chat (then Channels) and loads the chat only when opened', async () => {
    render(
      <QueryClientProvider client={createQueryClient()}>
        <MemoryRouter>
          <AgentEditor agent={agent} open onClose={() => {}} />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    const tabs = await screen.findAllByRole('tab');
    // Other tabs for agents at work (API) may follow.
    expect(tabs.map((t) => t.textContent).slice(0, 5)).toEqual(['Instructions & Documents', 'Users', 'Settings', 'Chat', 'Channels']);
    expect(api.calls.some((c) => c.path.includes('/conversations'))).toBe(false);

    fireEvent.click(screen.getByRole('tab', { name: 'Chat' }));
    expect(await screen.findByRole('heading', { level: 3, name: 'Chat with Math Tutor' })).toBeInTheDocument();
    expect(await screen.findByTestId('chat-model')).toHaveTextContent('Model: gpt-4o-mini');
    expect(screen.getByTestId('chat-model')).toHaveAttribute('title', followUpSearchText.model);
    expect(screen.getByText('Answers are charged to your wallet.')).toBeInTheDocument();
    expect(await screen.findByText('Start a conversation with Math Tutor')).toBeInTheDocument();
  });
});
