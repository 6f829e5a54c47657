import { QueryClientProvider } from '@tanstack/react-query';
import { configure, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '@/lib/query-client';
import { PHONE_QUERY } from '@/lib/use-media-query';
import { fakeApi } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import type { Conversation } from '../types';
import '../test/jsdom-stubs';
import { ChatPanel } from './ChatPanel';

configure({ defaultHidden: true });
vi.setConfig({ testTimeout: 30_000 });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

const AGENT = 'a1';
const conversation = (id: string, title: string): Conversation => ({
  id,
  agentId: AGENT,
  title,
  channel: 'chat',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  lastMessageAt: null,
});

const routes = {
  [`GET /api/agents/${AGENT}/chat-info`]: { model: 'agentic-sim', simulated: true, role: 'owner' },
  [`GET /api/agents/${AGENT}/conversations`]: [conversation('c1', 'Derivatives'), conversation('c2', 'Integrals')],
  'GET /api/conversations/c1': { ...conversation('c1', 'Derivatives'), messages: [] },
  'GET /api/conversations/c2': { ...conversation('c2', 'Integrals'), messages: [] },
};

/** matchMedia as on a phone (390px wide): only the phone query (max-width: 767px) and other max-width ones match. */
function phoneMatchMedia(query: string) {
  return {
    matches: query === PHONE_QUERY,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  };
}

const original = window.matchMedia;
beforeEach(() => {
  fakeApi(routes);
});
afterEach(() => {
  vi.unstubAllGlobals();
  window.matchMedia = original;
});

function renderPanel() {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter>
        <ChatPanel agentId={AGENT} agentName="Math Tutor" role="owner" />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('ChatPanel on a phone', () => {
  it('puts the conversations in a drawer opened by the Conversations button; choosing one closes it', async () => {
    window.matchMedia = phoneMatchMedia as unknown as typeof window.matchMedia;
    renderPanel();
    const panel = await screen.findByTestId('chat-panel');
    expect(panel).toHaveClass('chat-panel--phone');
    // No sidebar: the list is not on the page until the drawer opens.
    expect(screen.queryByRole('navigation', { name: 'Conversations' })).not.toBeInTheDocument();
    expect(await screen.findByTestId('chat-conversation-title')).toHaveTextContent('Derivatives');

    const button = screen.getByRole('button', { name: 'Conversations' });
    expect(button).toHaveAttribute('aria-expanded', 'false');
    fireEvent.click(button);
    const drawer = await screen.findByRole('dialog', { name: 'Conversations' });
    expect(button).toHaveAttribute('aria-expanded', 'true');
    const nav = within(drawer).getByRole('navigation', { name: 'Conversations' });
    fireEvent.click(within(nav).getByText('Integrals'));

    await waitFor(() => expect(screen.getByTestId('chat-conversation-title')).toHaveTextContent('Integrals'));
    await waitFor(() => expect(button).toHaveAttribute('aria-expanded', 'false'));
    // The message box is part of the panel (its CSS keeps it at the bottom of the screen).
    expect(within(panel).getByRole('textbox', { name: 'Message' })).toBeInTheDocument();
  });

  it('keeps the conversations beside the chat on wider screens', async () => {
    renderPanel();
    const panel = await screen.findByTestId('chat-panel');
    expect(panel).not.toHaveClass('chat-panel--phone');
    expect(await within(panel).findByRole('navigation', { name: 'Conversations' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Conversations' })).not.toBeInTheDocument();
  });
});
