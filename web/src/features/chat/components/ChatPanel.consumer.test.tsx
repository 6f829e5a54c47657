import { QueryClientProvider } from '@tanstack/react-query';
import { act, configure, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/toast';
import { removeToast } from '@/components/toast/toast-store';
import { createQueryClient } from '@/lib/query-client';
import { type FakeApi, fakeApi, type RouteHandler } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { START, controllableSse, json } from '../test/fake-stream';
import type { ChatRole, Conversation, Message } from '../types';
import '../test/jsdom-stubs';
import { ChatPanel } from './ChatPanel';

// Role queries' visibility check is very slow with antd's styles in jsdom (see AgentsPage.test).
configure({ defaultHidden: true });
vi.setConfig({ testTimeout: 30_000 });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

const AGENT = 'a1';
const CONVERSATIONS = `/api/agents/${AGENT}/conversations`;
const CHAT_INFO = `/api/agents/${AGENT}/chat-info`;

function conversation(overrides: Partial<Conversation> = {}): Conversation {
  return {
    id: 'c1',
    agentId: AGENT,
    title: 'Derivatives',
    channel: 'chat',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    lastMessageAt: null,
    ...overrides,
  };
}

function message(overrides: Partial<Message>): Message {
  return { id: 'm1', role: 'user', content: 'Hi', citations: [], usage: null, status: 'complete', clientMessageId: null, createdAt: '', ...overrides };
}

let api: FakeApi;

/** The stream of the n-th POST .../messages (0-based), created by the route. */
let streams: ReturnType<typeof controllableSse>[];
const messagesRoute = (): RouteHandler => (req) => {
  const s = controllableSse(req.signal);
  streams.push(s);
  return s.response;
};

beforeEach(() => {
  streams = [];
  removeToast();
  api = fakeApi({
    [`GET ${CHAT_INFO}`]: () => json({ model: 'agentic-sim', simulated: true, role: 'owner' }),
    [`GET ${CONVERSATIONS}`]: () => json([conversation()]),
    'GET /api/conversations/c1': () => json({ ...conversation(), messages: [] }),
    'POST /api/conversations/c1/messages': messagesRoute(),
  });
});

function renderPanel(role: ChatRole = 'owner') {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter>
        <ChatPanel agentId={AGENT} agentName="Math Tutor" role={role} />
      </MemoryRouter>
      <Toaster />
    </QueryClientProvider>,
  );
}

const messageBox = () => screen.getByRole('textbox', { name: 'Message' });

async function type(text: string) {
  const box = await screen.findByRole('textbox', { name: 'Message' });
  fireEvent.change(box, { target: { value: text } });
  await waitFor(() => expect(messageBox()).toHaveValue(text));
}

async function sendText(text: string) {
  await type(text);
  fireEvent.keyDown(messageBox(), { key: 'Enter', code: 'Enter' });
}

const answers = () => screen.queryAllByTestId('chat-message').filter((el) => el.getAttribute('data-role') === 'assistant');
const lastAnswer = () => answers()[answers().length - 1];

const GREETING = message({ id: 'g1', role: 'assistant', content: 'Hello! Ask me anything about VAT.' });
const CONSUMER_USAGE = {
  inputTokens: 800,
  outputTokens: 12,
  costMicros: 1000,
  feeMicros: 30,
  markupMicros: 200,
  greetingMicros: 500_000,
  totalMicros: 501_230,
  model: 'agentic-sim',
};

describe('ChatPanel for a marketplace consumer', () => {
  beforeEach(() => {
    api.routes[`GET ${CHAT_INFO}`] = () => json({ model: 'agentic-sim', simulated: true, role: 'consumer' });
    api.routes[`GET ${CONVERSATIONS}`] = () => json([]);
  });

  it('shows the greeting the new conversation returns, then the answer with its price and parts', async () => {
    let created = false;
    api.routes[`GET ${CONVERSATIONS}`] = () => json(created ? [conversation({ title: 'What is VAT?' })] : []);
    api.routes[`POST ${CONVERSATIONS}`] = () => {
      created = true;
      return json(conversation({ title: 'What is VAT?' }), 201);
    };
    api.routes['GET /api/conversations/c1'] = () => json({ ...conversation({ title: 'What is VAT?' }), messages: [GREETING] });
    renderPanel('consumer');
    expect(await screen.findByText('Start a conversation with Math Tutor')).toBeInTheDocument();
    expect(
      screen.getByText("Each answer is charged to your wallet: the model's usage, a 3% service fee and the creator's markup."),
    ).toBeInTheDocument();
    await sendText('What is VAT?');
    // The greeting (stored by the server in the new conversation) comes first, then the question.
    expect(await screen.findByText('Hello! Ask me anything about VAT.')).toBeInTheDocument();
    await waitFor(() => expect(streams).toHaveLength(1));
    const log = screen.getByRole('log', { name: 'Messages' });
    const bubbles = within(log).getAllByTestId('chat-message');
    expect(bubbles[0]).toHaveAttribute('data-role', 'assistant');
    expect(bubbles[0]).toHaveTextContent('Hello! Ask me anything about VAT.');
    expect(bubbles[1]).toHaveAttribute('data-role', 'user');
    act(() => {
      streams[0].send('start', START);
      streams[0].send('delta', { text: 'A tax on sales.' });
      streams[0].send('usage', CONSUMER_USAGE);
      streams[0].send('done', {});
      streams[0].close();
    });
    await waitFor(() => expect(lastAnswer()).toHaveAttribute('data-status', 'done'));
    expect(within(lastAnswer()).getByTestId('answer-usage')).toHaveTextContent('812 tokens · $0.5012');
    expect(within(lastAnswer()).getByTestId('answer-price-parts')).toHaveTextContent(
      'usage $0.0010 + service fee $0.00003 + markup $0.0002 + greeting $0.5000',
    );
    // Created with the agent's id (POST …/conversations), read back once for the greeting.
    expect(api.callsTo(`POST ${CONVERSATIONS}`)).toHaveLength(1);
    expect(api.callsTo('GET /api/conversations/c1')).toHaveLength(1);
  });

  it('402: the server message with an Add Funds link', async () => {
    const text = 'This answer needs up to $0.02; your wallet has $0.00. Add funds to continue.';
    api.routes[`GET ${CONVERSATIONS}`] = () => json([conversation()]);
    api.routes['GET /api/conversations/c1'] = () => json({ ...conversation(), messages: [GREETING] });
    api.routes['POST /api/conversations/c1/messages'] = () => json({ error: 'insufficient_funds', message: text }, 402);
    renderPanel('consumer');
    expect(await screen.findByText('Hello! Ask me anything about VAT.')).toBeInTheDocument();
    await sendText('Hello?');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(text);
    expect(within(alert).getByRole('link', { name: 'Add Funds' })).toHaveAttribute('href', '/dashboard/wallet');
  });

  it('403 agent_unavailable: the agent is unavailable right now', async () => {
    api.routes[`GET ${CONVERSATIONS}`] = () => json([conversation()]);
    api.routes['POST /api/conversations/c1/messages'] = () =>
      json({ error: 'agent_unavailable', message: 'This agent is unavailable right now.' }, 403);
    renderPanel('consumer');
    await screen.findByText('No messages yet');
    await sendText('Hello?');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('This agent is unavailable right now.');
    expect(within(alert).queryByRole('link', { name: 'Add Funds' })).not.toBeInTheDocument();
  });
});
