import { authFetch } from '@/lib/api-client';
import { retryAfterSeconds } from '../lib/format';
import { readSseStream, type SseEvent } from '../lib/sse';
import type { Citation, Message, StartEvent, Usage } from '../types';
import { conversationKey } from './conversations';
import { readChatError } from './errors';

export interface StreamHandlers {
  onStart?: (event: StartEvent) => void;
  onDelta?: (text: string) => void;
  onCitations?: (citations: Citation[]) => void;
  onUsage?: (usage: Usage) => void;
}

/** How one send ended. */
export type SendOutcome =
  /** `done`: the answer is complete. */
  | { kind: 'done'; messageId?: string }
  /** An `error` event: the model failed mid-way (the partial answer is kept and charged). */
  | { kind: 'stream-error'; code: string; message: string }
  /** The caller aborted (Stop). */
  | { kind: 'stopped' }
  /** The network failed, or the stream ended without `done`/`error`: resend with the same clientMessageId. */
  | { kind: 'interrupted' }
  /** The server refused before streaming (402, 404, 429, 502, ...). */
  | { kind: 'refused'; status: number; code: string; message: string; retryAfter?: number }
  /** Anything else (no signed-in user, token failure). */
  | { kind: 'failed'; message: string };

export interface SendMessageOptions {
  conversationId: string;
  content: string;
  clientMessageId: string;
  signal: AbortSignal;
  handlers: StreamHandlers;
}

function isAbort(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (error instanceof DOMException && error.name === 'AbortError') || (error as Error)?.name === 'AbortError';
}

function parse<T>(data: string): T | undefined {
  try {
    return JSON.parse(data) as T;
  } catch {
    return undefined;
  }
}

/**
 * POST /api/conversations/{id}/messages with `Accept: text/event-stream` (Firebase bearer token from
 * the app's API client) and reads the named events into `handlers`. Never throws: every ending is a
 * SendOutcome. A JSON answer (a retry the server answers as JSON) is handled as well.
 */
export async function sendMessage({ conversationId, content, clientMessageId, signal, handlers }: SendMessageOptions): Promise<SendOutcome> {
  let response: Response;
  try {
    response = await authFetch(`${conversationKey(conversationId)[0]}/messages`, {
      method: 'POST',
      headers: { Accept: 'text/event-stream' },
      body: { content, clientMessageId },
      signal,
      cache: 'no-store',
    });
  } catch (error) {
    if (isAbort(error, signal)) return { kind: 'stopped' };
    if (error instanceof TypeError) return { kind: 'interrupted' };
    return { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
  }

  if (!response.ok) {
    const error = await readChatError(response);
    return {
      kind: 'refused',
      status: response.status,
      code: error.code,
      message: error.message,
      retryAfter: response.status === 429 ? retryAfterSeconds(response.headers.get('Retry-After')) : undefined,
    };
  }

  const type = response.headers.get('Content-Type') ?? '';
  if (!type.includes('text/event-stream')) {
    return readJsonAnswer(response, handlers, signal);
  }
  if (!response.body) return { kind: 'interrupted' };

  let outcome: SendOutcome | undefined;
  const onEvent = ({ event, data }: SseEvent) => {
    if (outcome) return; // nothing after done/error
    switch (event) {
      case 'start': {
        const start = parse<StartEvent>(data);
        if (start) handlers.onStart?.(start);
        break;
      }
      case 'delta': {
        const delta = parse<{ text?: unknown }>(data);
        if (typeof delta?.text === 'string' && delta.text) handlers.onDelta?.(delta.text);
        break;
      }
      case 'citations': {
        const citations = parse<Citation[]>(data);
        if (Array.isArray(citations)) handlers.onCitations?.(citations);
        break;
      }
      case 'usage': {
        const usage = parse<Usage>(data);
        if (usage && typeof usage === 'object') handlers.onUsage?.(usage);
        break;
      }
      case 'done': {
        const done = parse<{ messageId?: string }>(data);
        outcome = { kind: 'done', messageId: done?.messageId };
        break;
      }
      case 'error': {
        const error = parse<{ error?: string; message?: string }>(data);
        outcome = { kind: 'stream-error', code: error?.error ?? '', message: error?.message ?? '' };
        break;
      }
      default:
        break; // unknown events are ignored
    }
  };

  try {
    await readSseStream(response.body, onEvent);
  } catch (error) {
    if (outcome) return outcome;
    if (isAbort(error, signal)) return { kind: 'stopped' };
    return { kind: 'interrupted' };
  }
  if (outcome) return outcome;
  return signal.aborted ? { kind: 'stopped' } : { kind: 'interrupted' };
}

async function readJsonAnswer(response: Response, handlers: StreamHandlers, signal: AbortSignal): Promise<SendOutcome> {
  let body: { userMessage?: Message; assistantMessage?: Message } | undefined;
  try {
    body = parse(await response.text());
  } catch (error) {
    return isAbort(error, signal) ? { kind: 'stopped' } : { kind: 'interrupted' };
  }
  const answer = body?.assistantMessage;
  if (!answer) return { kind: 'interrupted' };
  handlers.onStart?.({
    userMessageId: body?.userMessage?.id ?? '',
    assistantMessageId: answer.id,
    model: answer.usage?.model,
  });
  if (answer.content) handlers.onDelta?.(answer.content);
  if (answer.citations?.length) handlers.onCitations?.(answer.citations);
  if (answer.usage) handlers.onUsage?.(answer.usage);
  if (answer.status === 'failed' || answer.status === 'partial') {
    return { kind: 'stream-error', code: answer.status, message: '' };
  }
  return { kind: 'done', messageId: answer.id };
}
