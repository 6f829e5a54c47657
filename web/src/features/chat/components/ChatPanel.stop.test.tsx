import { QueryClientProvider } from '@tanstack/react-query';
import { configure, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '@/lib/query-client';
import { fakeApi } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { controllableSse } from '../test/fake-stream';
import type { Message } from '../types';
import '../test/jsdom-stubs';
import { ChatPanel } from './ChatPanel';

// Issue 29 item 3: Stop pressed before the first token keeps the question; the answer shows
// "Stopped", and once the stored answer is read back, what reading the question cost (if anything).

configure({ defaultHidden: true });
vi.setConfig({ testTimeout: 30_000 });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

const AGENT = 'a1';
const conversation = {
  id: 'c1',
  agentId: AGENT,
  title: 'Derivatives',
  channel: 'chat',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  lastMessageAt: null,
};

let stored: Message[];
let streams: ReturnType<typeof controllableSse>[];
beforeEach(() => {
  stored = [];
  streams = [];
  fakeApi({
    [`GET /api/agents/${AGENT}/chat-info`]: { model: 'agentic-sim', simulated: true, role: 'owner' },
    [`GET /api/agents/${AGENT}/conversations`]: [conversation],
    'GET /api/conversations/c1': () => ({ ...conversation, messages: stored }),
    'POST /api/conversations/c1/messages': (req) => {
      const s = controllableSse(req.signal);
      streams.push(s);
      return s.response;
    },
  });
});

const answers = () => screen.queryAllByTestId('chat-message').filter((el) => el.getAttribute('data-role') === 'assistant');

async function stopBeforeFirstToken(question: string) {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter>
        <ChatPanel agentId={AGENT} agentName="Math Tutor" role="owner" />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  await screen.findByText('No messages yet');
  const box = await screen.findByRole('textbox', { name: 'Message' });
  fireEvent.change(box, { target: { value: question } });
  await waitFor(() => expect(box).toHaveValue(question));
  fireEvent.keyDown(box, { key: 'Enter', code: 'Enter' });
  await waitFor(() => expect(streams).toHaveLength(1));
  fireEvent.click(screen.getByRole('button', { name: 'Stop' }));
  // The question stays; the answer says it was stopped.
  expect(await screen.findByText(question)).toBeInTheDocument();
  await waitFor(() => expect(answers().at(-1)).toHaveTextContent(/Stopped/));
}

const userMsg = (content: string): Message => ({
  id: 'u1',
  role: 'user',
  content,
  citations: [],
  usage: null,
  status: 'complete',
  clientMessageId: 'x',
  createdAt: '2026-01-01T00:00:01Z',
});

describe('Stop before the first token', () => {
  it('keeps the question and shows "Stopped" (nothing charged)', async () => {
    await stopBeforeFirstToken('What is a derivative?');
    // The server stored the question and an empty stopped answer, free.
    stored = [userMsg('What is a derivative?'), { ...userMsg(''), id: 'a1', role: 'assistant', status: 'stopped' }];
    await waitFor(() => expect(screen.getByTestId('answer-stopped')).toHaveTextContent(/^Stopped$/), { timeout: 5000 });
    expect(screen.getByText('What is a derivative?')).toBeInTheDocument();
  });

  it('says what reading the question cost when the model had it', async () => {
    await stopBeforeFirstToken('What is an integral?');
    stored = [
      userMsg('What is an integral?'),
      {
        ...userMsg(''),
        id: 'a1',
        role: 'assistant',
        status: 'stopped',
        usage: { inputTokens: 120, outputTokens: 0, costMicros: 180, feeMicros: 20, totalMicros: 200 },
      },
    ];
    await waitFor(
      () => expect(screen.getByTestId('answer-stopped')).toHaveTextContent('Stopped · charged $0.0002 for reading your question'),
      { timeout: 5000 },
    );
    expect(screen.getByText('What is an integral?')).toBeInTheDocument();
  });
});
