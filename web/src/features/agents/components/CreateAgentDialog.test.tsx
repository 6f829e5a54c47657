import { QueryClientProvider } from '@tanstack/react-query';
import { configure, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthContext } from '@/features/auth/auth-context';
import { createQueryClient } from '@/lib/query-client';
import { fakeApi } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { authValue } from '@/test/render';
import { AGENT_FEE_LINE, CreateAgentDialog } from './CreateAgentDialog';

configure({ defaultHidden: true });
vi.setConfig({ testTimeout: 30_000 });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

beforeEach(() => {
  fakeApi();
});

describe('CreateAgentDialog', () => {
  it('discloses the monthly agent fee before the agent is created (issue 29)', async () => {
    render(
      <QueryClientProvider client={createQueryClient()}>
        <AuthContext.Provider value={authValue({ user: { uid: 'u1', email: 'ada@example.com', displayName: 'Ada' } })}>
          <MemoryRouter>
            <CreateAgentDialog open onClose={() => {}} />
          </MemoryRouter>
        </AuthContext.Provider>
      </QueryClientProvider>,
    );
    const form = await screen.findByRole('form', { name: 'Create New Agent' });
    expect(AGENT_FEE_LINE).toBe('$10/month per agent, charged with its first answer, plus usage');
    expect(form).toContainElement(screen.getByText(AGENT_FEE_LINE));
  });
});
