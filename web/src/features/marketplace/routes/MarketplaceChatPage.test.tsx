import { configure, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeApi, fakeApi } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { setMarketplaceEnabled } from '@/test/marketplace';
import { authValue, renderApp } from '@/test/render';
import '@/features/chat/test/jsdom-stubs';
import { json, profile } from '../test/fixtures';

configure({ defaultHidden: true });
vi.setConfig({ testTimeout: 30_000 });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u2' }) } })),
}));

const slow = { timeout: 15_000 };
const signedIn = authValue({ user: { uid: 'u2', email: 'grace@example.com', displayName: 'Grace' } });
const PROFILE = '/api/marketplace/agents/tax-helper';

let api: FakeApi;
beforeEach(() => {
  setMarketplaceEnabled(true);
  api = fakeApi({
    [`GET ${PROFILE}`]: () => json(profile()),
    'GET /api/agents': () => json([]),
    'GET /api/user/balance': () => json({ success: true, data: { balance: 5 } }),
    'GET /api/agents/a1/chat-info': () => json({ model: 'agentic-sim', simulated: true, role: 'consumer' }),
    'GET /api/agents/a1/conversations': () => json([]),
  });
});

describe('/marketplace/:slug/chat', () => {
  it('tells a consumer what they pay, shows their balance with Add funds, then the chat', async () => {
    renderApp('/marketplace/tax-helper/chat', signedIn);
    const notice = await screen.findByRole('region', { name: 'What you pay' }, slow);
    expect(notice).toHaveTextContent(
      "You pay per answer from your wallet: the model's usage, a 3% service fee and the creator's 20% markup.",
    );
    expect(notice).toHaveTextContent('Starting a conversation costs $0.50, charged with its first answer.');
    expect(await within(notice).findByText('$5.00')).toHaveAttribute('data-testid', 'consumer-balance');
    expect(within(notice).getByRole('link', { name: 'Add funds' })).toHaveAttribute('href', '/dashboard/wallet');
    expect(await screen.findByRole('heading', { level: 2, name: 'Chat with Tax Helper' }, slow)).toBeInTheDocument();
    expect(
      await screen.findByText("Each answer is charged to your wallet: the model's usage, a 3% service fee and the creator's markup."),
    ).toBeInTheDocument();
  });

  it('leaves the greeting sentence out when starting a conversation is free', async () => {
    api.routes[`GET ${PROFILE}`] = () => json(profile({ greetingCostCents: 0, markupPercent: 35 }));
    renderApp('/marketplace/tax-helper/chat', signedIn);
    const notice = await screen.findByRole('region', { name: 'What you pay' }, slow);
    expect(notice).toHaveTextContent("the creator's 35% markup.");
    expect(notice).not.toHaveTextContent('Starting a conversation costs');
  });

  it("points the owner to their editor instead of a paid chat", async () => {
    api.routes['GET /api/agents'] = () => json([{ id: 'a1', name: 'Tax Helper', isPublic: true, slug: 'tax-helper' }]);
    renderApp('/marketplace/tax-helper/chat', signedIn);
    expect(await screen.findByText('This is your agent', {}, slow)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Open Tax Helper in Your Agentic Users' })).toHaveAttribute(
      'href',
      '/dashboard/agentic-users?agent=a1',
    );
    expect(screen.queryByRole('region', { name: 'What you pay' })).not.toBeInTheDocument();
    expect(screen.queryByTestId('chat-panel')).not.toBeInTheDocument();
  });

  it('says when the agent is not answering right now', async () => {
    api.routes[`GET ${PROFILE}`] = () => json(profile({ available: false }));
    renderApp('/marketplace/tax-helper/chat', signedIn);
    expect(await screen.findByText('This agent is unavailable right now.', {}, slow)).toBeInTheDocument();
  });

  it('opens the conversation named by ?conversation= (the Library links) instead of the newest', async () => {
    const conv = (id: string, title: string, at: string) => ({
      id,
      agentId: 'a1',
      title,
      channel: 'chat',
      createdAt: at,
      updatedAt: at,
      lastMessageAt: at,
    });
    api.routes['GET /api/agents/a1/conversations'] = () =>
      json([conv('c2', 'Newest chat', '2026-03-07T10:00:00Z'), conv('c1', 'Older chat', '2026-03-01T10:00:00Z')]);
    api.routes['GET /api/conversations/c1'] = () =>
      json({
        ...conv('c1', 'Older chat', '2026-03-01T10:00:00Z'),
        messages: [
          { id: 'm1', role: 'user', content: 'What about VAT?', citations: [], usage: null, status: 'complete', clientMessageId: 'k1', createdAt: '2026-03-01T10:00:00Z' },
        ],
      });
    renderApp('/marketplace/tax-helper/chat?conversation=c1', signedIn);
    expect(await screen.findByText('What about VAT?', {}, slow)).toBeInTheDocument();
    expect(screen.getByTestId('chat-conversation-title')).toHaveTextContent('Older chat');
    expect(api.calls.some((c) => String(c.input).endsWith('/api/conversations/c2'))).toBe(false);
  });

  it('signed out: sign in first, then back to the same chat and conversation', async () => {
    const { router } = renderApp('/marketplace/tax-helper/chat?conversation=c1');
    await waitFor(() => expect(router.state.location.pathname).toBe('/auth'), slow);
    expect(router.state.location.state).toEqual({ returnTo: '/marketplace/tax-helper/chat?conversation=c1' });
  });
});
