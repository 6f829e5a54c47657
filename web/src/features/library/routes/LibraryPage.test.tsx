import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeApi, fakeApi, json } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { setMarketplaceEnabled } from '@/test/marketplace';
import { authValue, renderApp } from '@/test/render';
import '@/features/chat/test/jsdom-stubs';
import type { LibraryAgent } from '../api/library';

configure({ defaultHidden: true });
vi.setConfig({ testTimeout: 30_000 });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u2' }) } })),
}));

const slow = { timeout: 15_000 };
const signedIn = authValue({ user: { uid: 'u2', email: 'grace@example.com', displayName: 'Grace' } });

function libraryAgent(overrides: Partial<LibraryAgent> = {}): LibraryAgent {
  return {
    agentId: 'a1',
    name: 'Tax Helper',
    iconName: 'ri-brain-line',
    iconColor: '#3B82F6',
    slug: 'tax-helper',
    listed: true,
    lastActivityAt: '2026-03-07T10:00:00Z',
    conversations: [
      { id: 'c2', title: 'Deductions for 2025', updatedAt: '2026-03-07T10:00:00Z' },
      { id: 'c1', title: 'Filing deadline', updatedAt: '2026-03-01T09:00:00Z' },
    ],
    ...overrides,
  };
}

let api: FakeApi;
beforeEach(() => {
  setMarketplaceEnabled(true);
  api = fakeApi({ 'GET /api/agents': [] });
});

describe('/dashboard/library', () => {
  it('is in the navigation after Shared with me and shows the empty state with a link to the marketplace', async () => {
    api.routes['GET /api/library'] = () => json({ agents: [] });
    renderApp('/dashboard/library', signedIn);
    expect(await screen.findByRole('heading', { level: 1, name: 'Library' }, slow)).toBeInTheDocument();
    const nav = screen.getByRole('navigation', { name: 'Main' });
    const links = within(nav)
      .getAllByRole('link')
      .map((l) => l.textContent);
    expect(links.indexOf('Library')).toBe(links.indexOf('Shared with me') + 1);
    expect(within(nav).getByRole('link', { name: 'Library' })).toHaveAttribute('aria-current', 'page');
    expect(within(nav).getByRole('link', { name: 'Library' })).toHaveAttribute('href', '/dashboard/library');
    expect(await screen.findByRole('heading', { level: 2, name: 'Agents you chat with from the marketplace appear here.' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Browse the marketplace' })).toHaveAttribute('href', '/dashboard/marketplace');
    await waitFor(() => expect(document.title).toBe('Library | Agentic'));
  });

  it('has no Library link while the marketplace is off, and the page goes to the dashboard', async () => {
    setMarketplaceEnabled(false);
    api.routes['GET /api/library'] = () => json({ agents: [] });
    // The dashboard it lands on loads its own cards (what they show is not this test's business).
    api.use({ 'GET /api/dashboard/stats': {}, 'GET /api/activities': {}, 'GET /api/user/balance': {}, 'GET /api/usage': {} });
    const { router } = renderApp('/dashboard/library', signedIn);
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'), slow);
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Shared with me' })).toBeInTheDocument();
    expect(within(nav).queryByRole('link', { name: 'Library' })).not.toBeInTheDocument();
    expect(api.calls.some((c) => c.path.includes('/api/library'))).toBe(false);
  });

  it('shows a loading state, then the agents with their conversations linking to the marketplace chat', async () => {
    let release!: () => void;
    const ready = new Promise<void>((r) => (release = r));
    api.routes['GET /api/library'] = async () => {
      await ready;
      return json({
        agents: [
          libraryAgent(),
          libraryAgent({
            agentId: 'a2',
            name: 'Chef',
            slug: 'chef',
            lastActivityAt: '2026-02-20T08:00:00Z',
            conversations: [{ id: 'c9', title: 'Risotto', updatedAt: '2026-02-20T08:00:00Z' }],
          }),
        ],
      });
    };
    renderApp('/dashboard/library', signedIn);
    expect(await screen.findByRole('status', { name: 'Loading your library' }, slow)).toBeInTheDocument();
    release();
    const list = await screen.findByRole('list', { name: 'Agents you used' });
    const cards = within(list).getAllByTestId('library-agent');
    expect(cards).toHaveLength(2);
    const tax = within(cards[0]);
    expect(tax.getByRole('heading', { level: 2, name: 'Tax Helper' })).toBeInTheDocument();
    expect(tax.getByRole('link', { name: 'Tax Helper' })).toHaveAttribute('href', '/marketplace/tax-helper');
    expect(cards[0]).toHaveTextContent('Last used 03/07/2026');
    const convs = within(tax.getByRole('list', { name: 'Conversations with Tax Helper' })).getAllByRole('link');
    expect(convs.map((a) => a.getAttribute('href'))).toEqual([
      '/marketplace/tax-helper/chat?conversation=c2',
      '/marketplace/tax-helper/chat?conversation=c1',
    ]);
    expect(convs[0]).toHaveTextContent('Deductions for 2025');
    expect(convs[0]).toHaveTextContent('Updated 03/07/2026');
    expect(tax.getByRole('link', { name: 'New chat with Tax Helper' })).toHaveAttribute('href', '/marketplace/tax-helper/chat');
    expect(within(cards[1]).getByRole('heading', { level: 2, name: 'Chef' })).toBeInTheDocument();
    expect(within(cards[1]).queryByTestId('library-agent-unlisted')).not.toBeInTheDocument();
  });

  it('says when an agent is no longer in the marketplace and opens its conversations read-only', async () => {
    api.routes['GET /api/library'] = () =>
      json({ agents: [libraryAgent({ listed: false }), libraryAgent({ agentId: 'a3', name: '', slug: '', listed: false, conversations: [] })] });
    api.routes['GET /api/conversations/c2'] = () =>
      json({
        id: 'c2',
        agentId: 'a1',
        title: 'Deductions for 2025',
        channel: 'chat',
        createdAt: '2026-03-07T09:00:00Z',
        updatedAt: '2026-03-07T10:00:00Z',
        lastMessageAt: '2026-03-07T10:00:00Z',
        messages: [
          { id: 'm0', role: 'assistant', content: 'Hi! Ask me about taxes.', citations: [], usage: null, status: 'complete', clientMessageId: null, createdAt: '2026-03-07T09:00:00Z' },
          { id: 'm1', role: 'user', content: 'Can I deduct my laptop?', citations: [], usage: null, status: 'complete', clientMessageId: 'k1', createdAt: '2026-03-07T10:00:00Z' },
        ],
      });
    renderApp('/dashboard/library', signedIn);
    const cards = await screen.findAllByTestId('library-agent', {}, slow);
    const tax = within(cards[0]);
    expect(tax.getByTestId('library-agent-unlisted')).toHaveTextContent(
      'No longer in the marketplace Your conversations with it can be read but not continued.',
    );
    expect(tax.queryByRole('link')).not.toBeInTheDocument();
    expect(tax.getByRole('heading', { level: 2, name: 'Tax Helper' })).toBeInTheDocument();
    const button = tax.getByRole('button', { name: /Deductions for 2025/ });
    expect(button).toHaveAttribute('aria-expanded', 'false');
    fireEvent.click(button);
    expect(button).toHaveAttribute('aria-expanded', 'true');
    const transcript = await screen.findByRole('region', { name: 'Deductions for 2025' });
    expect(button).toHaveAttribute('aria-controls', transcript.id);
    expect(await within(transcript).findByText('Can I deduct my laptop?', {}, slow)).toBeInTheDocument();
    expect(within(transcript).getByText('Hi! Ask me about taxes.')).toBeInTheDocument();
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
    // An agent the catalog no longer knows.
    expect(within(cards[1]).getByRole('heading', { level: 2, name: 'Removed agent' })).toBeInTheDocument();
  });

  it('shows the server message on an error and tries again', async () => {
    let fail = true;
    api.routes['GET /api/library'] = () =>
      fail
        ? json({ error: 'catalog_unavailable', message: 'The agent service is unavailable. Please try again.' }, 503)
        : json({ agents: [libraryAgent()] });
    renderApp('/dashboard/library', signedIn);
    expect(await screen.findByText('Could not load your library.', {}, slow)).toBeInTheDocument();
    expect(screen.getByText('The agent service is unavailable. Please try again.')).toBeInTheDocument();
    fail = false;
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Tax Helper' })).toBeInTheDocument();
  });
});
