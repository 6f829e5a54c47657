import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeApi, fakeApi, json } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { authValue, renderApp } from '@/test/render';
import '@/features/chat/test/jsdom-stubs';
import type { Agent } from '../types';

configure({ defaultHidden: true });
vi.setConfig({ testTimeout: 30_000 });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u2', email: 'erin@example.org' }) } })),
}));

const signedIn = { uid: 'u2', email: 'erin@example.org', displayName: 'Erin', username: 'erin' };

function agent(overrides: Partial<Agent>): Agent {
  return {
    id: 'a1',
    userId: 'owner-1',
    name: 'Math Tutor',
    description: 'Helps with calculus.',
    category: 'Education',
    status: 'active',
    isPublic: false,
    iconName: 'ri-brain-line',
    iconColor: '#3B82F6',
    instructions: '',
    tags: [],
    subscribers: 1,
    totalInteractions: 0,
    email: 'math-tutor@agents.example.com',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

let api: FakeApi;
beforeEach(() => {
  // The navigation asks for the user's own agents (for the Earnings link).
  api = fakeApi({ 'GET /api/agents': [] });
});

describe('Shared with me', () => {
  it('is in the main navigation, titled, and shows the empty state with the invitation hint', async () => {
    api.use({ 'GET /api/agents/shared': [] });
    renderApp('/dashboard/shared', authValue({ user: signedIn }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Shared with me' })).toBeInTheDocument();
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Shared with me' })).toHaveAttribute('aria-current', 'page');
    expect(within(nav).getByRole('link', { name: 'Shared with me' })).toHaveAttribute('href', '/dashboard/shared');
    expect(await screen.findByText('No agents have been shared with you yet.')).toBeInTheDocument();
    expect(screen.getByText(/An agent's owner must invite your e-mail address/)).toHaveTextContent('erin@example.org');
    await waitFor(() => expect(document.title).toBe('Shared with me | Agentic'));
  });

  it('shows a loading skeleton, then the agents; choosing one opens the chat as a subscriber', async () => {
    let release!: () => void;
    const ready = new Promise<void>((r) => (release = r));
    api.use({
      'GET /api/agents/shared': async () => {
        await ready;
        return [agent({}), agent({ id: 'a2', name: 'Style Guide', description: 'Writing rules.' })];
      },
      'GET /api/agents/a1/chat-info': { model: 'agentic-sim', simulated: true, role: 'subscriber' },
      'GET /api/agents/a1/conversations': [],
    });
    const { router } = renderApp('/dashboard/shared', authValue({ user: signedIn }));
    expect(await screen.findByRole('status', { name: 'Loading shared agents' })).toBeInTheDocument();
    release();

    const list = await screen.findByRole('list', { name: 'Shared agents' });
    const cards = within(list).getAllByTestId('shared-agent');
    expect(cards.map((c) => c.textContent)).toEqual(['Math TutorHelps with calculus.', 'Style GuideWriting rules.']);
    expect(cards[0].querySelector('[data-icon="ri-brain-line"]')).not.toBeNull();

    fireEvent.click(within(list).getByRole('link', { name: /Math Tutor/ }));
    await waitFor(() => expect(router.state.location.search).toBe('?agent=a1'));
    expect(await screen.findByRole('heading', { level: 2, name: 'Chat with Math Tutor' })).toBeInTheDocument();
    expect(screen.getByText("Answers are paid for by the agent's owner.")).toBeInTheDocument();
    expect(await screen.findByTestId('chat-model')).toHaveTextContent('Simulated model (agentic-sim)');
    expect(screen.getByRole('link', { name: 'Back to Shared with me' })).toHaveAttribute('href', '/dashboard/shared');
    await waitFor(() => expect(document.title).toBe('Math Tutor · Shared with me | Agentic'));
  });

  it("shows who shared each agent by the owner's name, never a uid", async () => {
    api.use({
      'GET /api/agents/shared': [
        agent({ userId: 'Grace Hopper', ownerName: 'Grace Hopper' }),
        // An older server: the owner's uid in userId and no name; nothing is shown.
        agent({ id: 'a2', name: 'Style Guide', description: 'Writing rules.', userId: 'uid-owner-7' }),
      ],
      'GET /api/agents/a1/chat-info': { model: 'agentic-sim', simulated: true, role: 'subscriber' },
      'GET /api/agents/a1/conversations': [],
    });
    renderApp('/dashboard/shared', authValue({ user: signedIn }));
    const list = await screen.findByRole('list', { name: 'Shared agents' });
    const cards = within(list).getAllByTestId('shared-agent');
    expect(cards[0]).toHaveTextContent('Shared by Grace Hopper');
    expect(cards[1]).not.toHaveTextContent('Shared by');
    expect(list).not.toHaveTextContent('uid-owner-7');

    fireEvent.click(within(list).getByRole('link', { name: /Math Tutor/ }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Chat with Math Tutor' })).toBeInTheDocument();
    expect(screen.getByText('Shared by Grace Hopper')).toBeInTheDocument();
  });

  it('says so when the chosen agent is not shared (any more), and shows load errors', async () => {
    api.use({ 'GET /api/agents/shared': [agent({})] });
    const first = renderApp('/dashboard/shared?agent=gone', authValue({ user: signedIn }));
    expect(await screen.findByText('This agent is not shared with you.')).toBeInTheDocument();
    first.unmount();

    api.use({ 'GET /api/agents/shared': () => json({ error: 'internal', message: 'Internal server error' }, 500) });
    renderApp('/dashboard/shared', authValue({ user: signedIn }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load the agents shared with you.');
    expect(alert).toHaveTextContent('Internal server error');
    expect(within(alert).getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });
});
