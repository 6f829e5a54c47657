import { beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeApi, fakeApi, type RouteHandler } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { START, USAGE, CITATION, controllableSse, json, sseFrame } from '../test/fake-stream';
import { sendMessage, type StreamHandlers } from './send-message';

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

let api: FakeApi;
/** POST .../messages answers with `reply` from now on. */
const messagesAnswer = (reply: RouteHandler) => api.use({ 'POST /api/conversations/:id/messages': reply });

beforeEach(() => {
  api = fakeApi();
});

function handlers() {
  const log: [string, unknown][] = [];
  const h: StreamHandlers = {
    onStart: (e) => log.push(['start', e]),
    onDelta: (t) => log.push(['delta', t]),
    onCitations: (c) => log.push(['citations', c]),
    onUsage: (u) => log.push(['usage', u]),
  };
  return { h, log };
}

const send = (h: StreamHandlers, signal = new AbortController().signal) =>
  sendMessage({ conversationId: 'c 1', content: 'Hi', clientMessageId: 'cm-1', signal, handlers: h });

describe('sendMessage', () => {
  it('POSTs with the bearer token and Accept: text/event-stream, and reads the named events', async () => {
    const body =
      sseFrame('start', START) +
      sseFrame('delta', { text: 'Hel' }) +
      sseFrame('delta', { text: 'lo' }) +
      sseFrame('citations', [CITATION]) +
      sseFrame('usage', USAGE) +
      sseFrame('done', { messageId: 'm-a1' });
    // Split mid-line across three chunks.
    messagesAnswer(() => {
      const s = controllableSse();
      s.raw(body.slice(0, 17));
      s.raw(body.slice(17, 150));
      s.raw(body.slice(150));
      s.close();
      return s.response;
    });
    const { h, log } = handlers();
    await expect(send(h)).resolves.toEqual({ kind: 'done', messageId: 'm-a1' });
    expect(log).toEqual([
      ['start', START],
      ['delta', 'Hel'],
      ['delta', 'lo'],
      ['citations', [CITATION]],
      ['usage', USAGE],
    ]);
    const [call] = api.calls;
    expect(call!.input).toBe('/api/conversations/c%201/messages');
    expect(call!.init.method).toBe('POST');
    expect(call!.headers.get('Accept')).toBe('text/event-stream');
    expect(call!.headers.get('Authorization')).toBe('Bearer token-123');
    expect(call!.body).toEqual({ content: 'Hi', clientMessageId: 'cm-1' });
  });

  it('ends with the error event, keeping what streamed before', async () => {
    messagesAnswer(() => {
      const s = controllableSse();
      s.send('start', START);
      s.send('delta', { text: 'Part' });
      s.send('error', { error: 'model_failed', message: 'The model stopped.' });
      s.close();
      return s.response;
    });
    const { h, log } = handlers();
    await expect(send(h)).resolves.toEqual({ kind: 'stream-error', code: 'model_failed', message: 'The model stopped.' });
    expect(log.map(([k]) => k)).toEqual(['start', 'delta']);
  });

  it('reports refusals before the stream with status, code, message and Retry-After', async () => {
    messagesAnswer(() => json({ error: 'insufficient_funds', message: 'Insufficient funds: add funds.' }, 402));
    await expect(send(handlers().h)).resolves.toEqual({
      kind: 'refused',
      status: 402,
      code: 'insufficient_funds',
      message: 'Insufficient funds: add funds.',
      retryAfter: undefined,
    });
    messagesAnswer(() => json({ error: 'rate_limited', message: 'Slow down' }, 429, { headers: { 'Retry-After': '12' } }));
    await expect(send(handlers().h)).resolves.toMatchObject({ kind: 'refused', status: 429, retryAfter: 12 });
  });

  it('treats a network failure, or a stream that ends without done, as interrupted', async () => {
    messagesAnswer(() => {
      throw new TypeError('Failed to fetch');
    });
    await expect(send(handlers().h)).resolves.toEqual({ kind: 'interrupted' });

    messagesAnswer(() => {
      const s = controllableSse();
      s.send('start', START);
      s.send('delta', { text: 'cut' });
      s.close();
      return s.response;
    });
    await expect(send(handlers().h)).resolves.toEqual({ kind: 'interrupted' });

    let stream: ReturnType<typeof controllableSse> | undefined;
    messagesAnswer(() => {
      stream = controllableSse();
      stream.send('delta', { text: 'a' });
      return stream.response;
    });
    const pending = send(handlers().h);
    await vi.waitFor(() => expect(stream).toBeDefined());
    stream!.fail(new TypeError('network error'));
    await expect(pending).resolves.toEqual({ kind: 'interrupted' });
  });

  it('is stopped by aborting its signal', async () => {
    const controller = new AbortController();
    messagesAnswer((req) => {
      const s = controllableSse(req.signal);
      s.send('start', START);
      s.send('delta', { text: 'Some' });
      return s.response;
    });
    const { h, log } = handlers();
    const pending = send(h, controller.signal);
    await vi.waitFor(() => expect(log.some(([k]) => k === 'delta')).toBe(true));
    controller.abort();
    await expect(pending).resolves.toEqual({ kind: 'stopped' });
  });

  it('accepts a JSON answer (a retry answered as JSON)', async () => {
    messagesAnswer(() =>
      json({
        userMessage: { id: 'm-u1', role: 'user', content: 'Hi', citations: [], usage: null, status: 'complete', createdAt: '' },
        assistantMessage: { id: 'm-a1', role: 'assistant', content: 'Hello', citations: [CITATION], usage: USAGE, status: 'complete', createdAt: '' },
      }),
    );
    const { h, log } = handlers();
    await expect(send(h)).resolves.toEqual({ kind: 'done', messageId: 'm-a1' });
    expect(log.map(([k]) => k)).toEqual(['start', 'delta', 'citations', 'usage']);
  });

  it('reports a missing user as failed with the client message', async () => {
    const { loadFirebase } = await import('@/lib/firebase');
    vi.mocked(loadFirebase).mockResolvedValueOnce({ auth: { currentUser: null } } as never);
    await expect(send(handlers().h)).resolves.toEqual({
      kind: 'failed',
      message: 'Authentication token not available. User must be logged in.',
    });
  });
});
