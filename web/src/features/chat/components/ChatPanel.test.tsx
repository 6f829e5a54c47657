import { QueryClientProvider } from '@tanstack/react-query';
import { act, configure, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/toast';
import { removeToast } from '@/components/toast/toast-store';
import { createQueryClient } from '@/lib/query-client';
import { type ApiCall, type FakeApi, fakeApi, noContent, type RouteHandler } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { CITATION, START, USAGE, controllableSse, json } from '../test/fake-stream';
import type { ChatRole, Conversation, Message } from '../types';
import '../test/jsdom-stubs';
import { ChatPanel } from './ChatPanel';
import { followUpSearchText } from './ModelTag';

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
const bodyOf = (call: ApiCall) => call.body as Record<string, unknown>;

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
    [`GET ${CHAT_INFO}`]: () => json({ model: 'agentic-sim', simulated: true, role: 'owner', followUpSearch: 'rule' }),
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

describe('ChatPanel', () => {
  it('opens the newest conversation with its stored messages, citations, cost and the simulated-model tag', async () => {
    api.routes['GET /api/conversations/c1'] = () =>
      json({
        ...conversation(),
        messages: [
          message({ id: 'm1', role: 'user', content: 'What is a derivative?' }),
          message({ id: 'm2', role: 'assistant', content: 'A **rate** of change.', citations: [CITATION, CITATION], usage: USAGE }),
        ],
      });
    renderPanel();
    expect(await screen.findByText('What is a derivative?')).toBeInTheDocument();
    expect(screen.getByText('rate').tagName).toBe('STRONG');
    const chips = screen.getAllByRole('link', { name: 'Calculus Syllabus' });
    expect(chips).toHaveLength(1);
    expect(chips[0]).toHaveAttribute('href', CITATION.url);
    expect(chips[0]).toHaveAttribute('target', '_blank');
    expect(chips[0]).toHaveAttribute('rel', 'noopener noreferrer');
    expect(screen.getByTestId('answer-usage')).toHaveTextContent(/^812 tokens · \$0\.0009$/);
    expect(await screen.findByTestId('chat-model')).toHaveTextContent('Simulated model (agentic-sim)');
    // The simulator does not read the conversation: its follow-ups are searched by a rule, and the tag says so.
    await waitFor(() => expect(screen.getByTestId('chat-model')).toHaveAttribute('title', followUpSearchText.rule));
    expect(screen.getByRole('heading', { name: 'Chat with Math Tutor' })).toBeInTheDocument();
    expect(screen.getByText('Answers are charged to your wallet.')).toBeInTheDocument();
  });

  it('streams an answer progressively as Markdown, then shows its citations and cost', async () => {
    renderPanel();
    await screen.findByText('No messages yet');
    await sendText('What is a derivative?');

    await waitFor(() => expect(streams).toHaveLength(1));
    const [call] = api.callsTo('POST /api/conversations/c1/messages');
    expect(call!.headers.get('Accept')).toBe('text/event-stream');
    expect(call!.headers.get('Authorization')).toBe('Bearer token-123');
    const sent = bodyOf(call!);
    expect(sent.content).toBe('What is a derivative?');
    expect(typeof sent.clientMessageId).toBe('string');
    expect(String(sent.clientMessageId).length).toBeGreaterThan(0);
    // Only an untitled ('New conversation') empty conversation is renamed after its first message.
    expect(api.callsTo('PATCH /api/conversations/c1')).toHaveLength(0);

    expect(screen.getByText('What is a derivative?')).toBeInTheDocument();
    expect(messageBox()).toHaveValue('');
    expect(await screen.findByText('Thinking')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Stop' })).toBeInTheDocument();

    act(() => {
      streams[0].send('start', START);
      streams[0].send('delta', { text: 'A derivative is ' });
    });
    await waitFor(() => expect(lastAnswer()).toHaveTextContent('A derivative is'));
    act(() => streams[0].send('delta', { text: 'the **rate** of change.\n\n- one\n- two' }));
    await waitFor(() => expect(within(lastAnswer()).getByText('rate').tagName).toBe('STRONG'));
    expect(screen.queryByTestId('answer-usage')).not.toBeInTheDocument();

    act(() => {
      streams[0].send('citations', [CITATION]);
      streams[0].send('usage', USAGE);
      streams[0].send('done', { messageId: 'm-a1' });
      streams[0].close();
    });
    await waitFor(() => expect(within(lastAnswer()).getByTestId('answer-usage')).toHaveTextContent('812 tokens · $0.0009'));
    expect(within(lastAnswer()).getByRole('link', { name: 'Calculus Syllabus' })).toHaveAttribute('href', CITATION.url);
    expect(within(lastAnswer()).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['one', 'two', 'Calculus Syllabus']);
    expect(lastAnswer()).toHaveAttribute('data-status', 'done');
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Stop' })).not.toBeInTheDocument());
    expect(screen.getByRole('button', { name: 'Send message' })).toBeInTheDocument();
  });

  it('Stop aborts the request and keeps the partial answer', async () => {
    renderPanel();
    await screen.findByText('No messages yet');
    await sendText('Tell me a long story');
    await waitFor(() => expect(streams).toHaveLength(1));
    act(() => {
      streams[0].send('start', START);
      streams[0].send('delta', { text: 'Once upon a time' });
    });
    await waitFor(() => expect(lastAnswer()).toHaveTextContent('Once upon a time'));

    fireEvent.click(screen.getByRole('button', { name: 'Stop' }));
    const [call] = api.callsTo('POST /api/conversations/c1/messages');
    expect(call!.signal?.aborted).toBe(true);
    expect(await screen.findByText('Stopped. The answer above is incomplete.')).toBeInTheDocument();
    expect(lastAnswer()).toHaveTextContent('Once upon a time');
    expect(lastAnswer()).toHaveAttribute('data-status', 'stopped');
    expect(screen.queryByRole('button', { name: 'Stop' })).not.toBeInTheDocument();
  });

  it('402 for the owner: the server message with an Add Funds link to the wallet', async () => {
    const text = 'Insufficient funds: add funds to your wallet to keep talking to this agent.';
    api.routes['POST /api/conversations/c1/messages'] = () => json({ error: 'insufficient_funds', message: text }, 402);
    renderPanel('owner');
    await screen.findByText('No messages yet');
    await sendText('Hello?');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(text);
    expect(within(alert).getByRole('link', { name: 'Add Funds' })).toHaveAttribute('href', '/dashboard/wallet');
  });

  it('402 for a subscriber: the agent is unavailable, no wallet link', async () => {
    api.routes['POST /api/conversations/c1/messages'] = () =>
      json({ error: 'insufficient_funds', message: 'This agent is unavailable right now.' }, 402);
    renderPanel('subscriber');
    await screen.findByText('No messages yet');
    expect(screen.getByText("Answers are paid for by the agent's owner.")).toBeInTheDocument();
    await sendText('Hello?');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('This agent is unavailable right now.');
    expect(screen.queryByRole('link', { name: 'Add Funds' })).not.toBeInTheDocument();
  });

  it('429: asks to wait for Retry-After seconds', async () => {
    api.routes['POST /api/conversations/c1/messages'] = () =>
      json({ error: 'rate_limited', message: 'Too many messages' }, 429, { headers: { 'Retry-After': '12' } });
    renderPanel();
    await screen.findByText('No messages yet');
    await sendText('Hello?');
    expect(await screen.findByRole('alert')).toHaveTextContent("You're sending messages too fast. Try again in 12 seconds.");
  });

  it('an error event keeps the partial text and shows the error on that answer', async () => {
    renderPanel();
    await screen.findByText('No messages yet');
    await sendText('Explain');
    await waitFor(() => expect(streams).toHaveLength(1));
    act(() => {
      streams[0].send('start', START);
      streams[0].send('delta', { text: 'Half an answer' });
      streams[0].send('usage', USAGE);
      streams[0].send('error', { error: 'model_unavailable', message: 'The model stopped answering.' });
      streams[0].close();
    });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The model stopped answering.');
    expect(lastAnswer()).toHaveTextContent('Half an answer');
    expect(within(lastAnswer()).getByTestId('answer-usage')).toHaveTextContent('812 tokens · $0.0009');
  });

  it('502 before the stream: the server message on the answer', async () => {
    api.routes['POST /api/conversations/c1/messages'] = () =>
      json({ error: 'model_unavailable', message: 'The model is unavailable right now. Nothing was charged.' }, 502);
    renderPanel();
    await screen.findByText('No messages yet');
    await sendText('Explain');
    expect(await screen.findByRole('alert')).toHaveTextContent('The model is unavailable right now. Nothing was charged.');
  });

  it('a network failure offers Retry, which resends with the same clientMessageId', async () => {
    let attempt = 0;
    api.routes['POST /api/conversations/c1/messages'] = (req) => {
      attempt += 1;
      if (attempt === 1) throw new TypeError('Failed to fetch');
      return messagesRoute()(req);
    };
    renderPanel();
    await screen.findByText('No messages yet');
    await sendText('Are you there?');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The connection was lost before the answer finished.');
    fireEvent.click(within(alert).getByRole('button', { name: 'Retry' }));

    await waitFor(() => expect(streams).toHaveLength(1));
    act(() => {
      streams[0].send('start', START);
      streams[0].send('delta', { text: 'Yes.' });
      streams[0].send('usage', USAGE);
      streams[0].send('done', { messageId: 'm-a1' });
      streams[0].close();
    });
    await waitFor(() => expect(within(lastAnswer()).getByTestId('answer-usage')).toBeInTheDocument());
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    const [first, second] = api.callsTo('POST /api/conversations/c1/messages').map(bodyOf);
    expect(second.clientMessageId).toBe(first.clientMessageId);
    expect(second.content).toBe('Are you there?');
    expect(screen.getAllByText('Are you there?')).toHaveLength(1);
  });

  it('with no conversation yet, the first message creates one titled after it', async () => {
    let list: Conversation[] = [];
    api.routes[`GET ${CONVERSATIONS}`] = () => json(list);
    api.routes[`POST ${CONVERSATIONS}`] = (req) => {
      list = [conversation({ id: 'c9', title: String(bodyOf(req).title) })];
      return json(list[0], 201);
    };
    api.routes['POST /api/conversations/c9/messages'] = messagesRoute();
    renderPanel();
    expect(await screen.findByText('No conversations yet. Start one, or just send a message.')).toBeInTheDocument();
    await sendText('How do limits work?\nThanks');
    await waitFor(() => expect(streams).toHaveLength(1));
    expect(bodyOf(api.callsTo(`POST ${CONVERSATIONS}`)[0])).toEqual({ title: 'How do limits work?' });
    expect(bodyOf(api.callsTo('POST /api/conversations/c9/messages')[0]).content).toBe('How do limits work?\nThanks');
    expect(await screen.findByRole('button', { name: 'How do limits work?' })).toHaveAttribute('aria-current', 'true');
  });

  it('creates, renames and deletes (after confirming) conversations', async () => {
    let list = [conversation()];
    api.routes[`GET ${CONVERSATIONS}`] = () => json(list);
    api.routes[`POST ${CONVERSATIONS}`] = () => {
      const created = conversation({ id: 'c2', title: 'New conversation' });
      list = [created, ...list];
      return json(created, 201);
    };
    api.routes['PATCH /api/conversations/c2'] = (req) => {
      const title = String(bodyOf(req).title);
      list = list.map((c) => (c.id === 'c2' ? { ...c, title } : c));
      return json(list[0]);
    };
    api.routes['DELETE /api/conversations/c2'] = () => {
      list = list.filter((c) => c.id !== 'c2');
      return noContent();
    };
    renderPanel();
    expect(await screen.findByRole('button', { name: 'Derivatives' })).toHaveAttribute('aria-current', 'true');

    fireEvent.click(screen.getByRole('button', { name: 'New conversation' }));
    const created = await screen.findByRole('button', { name: 'New conversation', current: true });
    expect(created).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Derivatives' })).not.toHaveAttribute('aria-current');
    expect(bodyOf(api.callsTo(`POST ${CONVERSATIONS}`)[0])).toEqual({});

    // Rename inline.
    fireEvent.click(screen.getByRole('button', { name: 'Actions for New conversation' }));
    fireEvent.click(await screen.findByText('Rename'));
    const input = await screen.findByRole('textbox', { name: 'Conversation title' });
    fireEvent.change(input, { target: { value: 'Integrals' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(await screen.findByRole('button', { name: 'Integrals' })).toBeInTheDocument();
    expect(bodyOf(api.callsTo('PATCH /api/conversations/c2')[0])).toEqual({ title: 'Integrals' });

    // Selecting another conversation.
    fireEvent.click(screen.getByRole('button', { name: 'Derivatives' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Derivatives' })).toHaveAttribute('aria-current', 'true'));

    // Delete with a confirmation.
    fireEvent.click(screen.getByRole('button', { name: 'Actions for Integrals' }));
    fireEvent.click(await screen.findByText('Delete'));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Delete conversation?');
    expect(api.callsTo('DELETE /api/conversations/c2')).toHaveLength(0);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Integrals' })).not.toBeInTheDocument());
    expect(api.callsTo('DELETE /api/conversations/c2')).toHaveLength(1);
  });

  it('marks conversations from other channels (E-mail, Docs comment, API) and lets the owner continue an e-mail one', async () => {
    api.routes[`GET ${CONVERSATIONS}`] = () =>
      json([
        conversation({ id: 'c1', title: 'Homework question', channel: 'email' }),
        conversation({ id: 'c2', title: 'Margin note', channel: 'docs_comment' }),
        conversation({ id: 'c3', title: 'Script', channel: 'api' }),
        conversation({ id: 'c4', title: 'Derivatives', channel: 'chat' }),
      ]);
    api.routes['GET /api/conversations/c1'] = () =>
      json({
        ...conversation({ id: 'c1', title: 'Homework question', channel: 'email' }),
        messages: [
          message({ id: 'm1', role: 'user', content: 'How do I integrate x^2?' }),
          message({ id: 'm2', role: 'assistant', content: 'x^3/3 + C.', usage: USAGE }),
        ],
      });
    api.routes['GET /api/conversations/c4'] = () => json({ ...conversation({ id: 'c4' }), messages: [] });
    renderPanel();

    // The list: a tag per channel, none for chat; the tag is part of the button's name.
    const email = await screen.findByRole('button', { name: 'Homework question E-mail' });
    expect(email).toHaveAttribute('aria-current', 'true');
    expect(screen.getByRole('button', { name: 'Margin note Docs comment' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Script API' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Derivatives' })).toBeInTheDocument();
    const tags = screen.getAllByTestId('conversation-channel');
    expect(tags.map((t) => t.getAttribute('data-channel'))).toEqual(['email', 'docs_comment', 'api', 'email']);

    // The open conversation's header: its title, the E-mail tag and what sending here does.
    expect(await screen.findByText('How do I integrate x^2?')).toBeInTheDocument();
    const header = screen.getByTestId('chat-conversation-title').parentElement!;
    expect(screen.getByTestId('chat-conversation-title')).toHaveTextContent(/^Homework question$/);
    expect(within(header).getByTestId('conversation-channel')).toHaveTextContent('E-mail');
    expect(screen.getByTestId('chat-channel-note')).toHaveTextContent(
      'This conversation started by e-mail. Replies to the e-mail thread continue it; messages you send here are answered here, not by e-mail.',
    );

    // It can be continued in the chat.
    api.routes['POST /api/conversations/c1/messages'] = messagesRoute();
    await sendText('And x^3?');
    await waitFor(() => expect(streams).toHaveLength(1));
    expect(bodyOf(api.callsTo('POST /api/conversations/c1/messages')[0])).toMatchObject({ content: 'And x^3?' });
    // The first message of a non-empty e-mail conversation does not rename it.
    expect(api.callsTo('PATCH /api/conversations/c1')).toHaveLength(0);

    // A chat conversation has no tag and no note.
    fireEvent.click(screen.getByRole('button', { name: 'Derivatives' }));
    await waitFor(() => expect(screen.getByTestId('chat-conversation-title')).toHaveTextContent(/^Derivatives$/));
    expect(within(screen.getByTestId('chat-conversation-title').parentElement!).queryByTestId('conversation-channel')).toBeNull();
    expect(screen.queryByTestId('chat-channel-note')).toBeNull();
  });
});
