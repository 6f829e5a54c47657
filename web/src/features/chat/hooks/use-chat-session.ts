import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { AGENT_FEES_PATH } from '@/features/wallet';
import { useLatest } from '@/lib/use-latest';
import { conversationKey, conversationsKey } from '../api/conversations';
import { sendMessage, type SendOutcome } from '../api/send-message';
import { rateLimitMessage } from '../lib/format';
import type { ChatRole, Citation, Usage } from '../types';

export const UNAVAILABLE_MESSAGE = 'This agent is unavailable right now.';
export const INSUFFICIENT_FUNDS_MESSAGE = 'Insufficient funds: add funds to your wallet to keep talking to this agent.';
export const MODEL_UNAVAILABLE_MESSAGE = 'The model is unavailable right now. Nothing was charged.';
export const STREAM_FAILED_MESSAGE = 'The model stopped before finishing this answer.';
export const CONNECTION_LOST_MESSAGE = 'The connection was lost before the answer finished.';

/** Why a turn has no (complete) answer. */
export type TurnError =
  /** 402: the paying wallet cannot cover an answer. */
  | { kind: 'funds'; message: string }
  /** 429. */
  | { kind: 'rate'; message: string }
  /** 502 before the stream, an `error` event, or another refusal: shown on the answer. */
  | { kind: 'answer'; message: string }
  /** The network failed: Retry resends with the same clientMessageId. */
  | { kind: 'network'; message: string };

/** How long after a Stop the conversation is re-read (the server records the stopped answer first). */
export const STOPPED_REFETCH_DELAY_MS = 1500;

export type TurnPhase = 'waiting' | 'streaming' | 'done' | 'stopped' | 'error';

/** A message sent in this session and its answer, as it streams. */
export interface Turn {
  /** Local key (= the first clientMessageId). */
  id: string;
  conversationId: string;
  content: string;
  clientMessageId: string;
  /** The conversation query's dataUpdatedAt when the turn was sent: a later refetch contains it. */
  base: number;
  userMessageId?: string;
  assistantMessageId?: string;
  answer: string;
  citations: Citation[];
  usage: Usage | null;
  model?: string;
  simulated?: boolean;
  phase: TurnPhase;
  error?: TurnError;
}

export const isInFlight = (turn: Turn) => turn.phase === 'waiting' || turn.phase === 'streaming';

function newId(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/** The turn's phase and error after `outcome`. */
export function settle(outcome: SendOutcome, role: ChatRole): Pick<Turn, 'phase' | 'error'> {
  switch (outcome.kind) {
    case 'done':
      return { phase: 'done', error: undefined };
    case 'stopped':
      return { phase: 'stopped', error: undefined };
    case 'stream-error':
      return { phase: 'error', error: { kind: 'answer', message: outcome.message || STREAM_FAILED_MESSAGE } };
    case 'interrupted':
      return { phase: 'error', error: { kind: 'network', message: CONNECTION_LOST_MESSAGE } };
    case 'failed':
      return { phase: 'error', error: { kind: 'answer', message: outcome.message } };
    case 'refused':
      if (outcome.status === 403 && outcome.code === 'agent_unavailable') {
        // A listed agent whose creator has not paid its monthly fee: nothing was charged.
        return { phase: 'error', error: { kind: 'answer', message: UNAVAILABLE_MESSAGE } };
      }
      if (outcome.status === 402) {
        const fallback = role === 'subscriber' ? UNAVAILABLE_MESSAGE : INSUFFICIENT_FUNDS_MESSAGE;
        return { phase: 'error', error: { kind: 'funds', message: outcome.message || fallback } };
      }
      if (outcome.status === 429) {
        return { phase: 'error', error: { kind: 'rate', message: rateLimitMessage(outcome.retryAfter) } };
      }
      if (outcome.status === 502) {
        return { phase: 'error', error: { kind: 'answer', message: outcome.message || MODEL_UNAVAILABLE_MESSAGE } };
      }
      if (outcome.status >= 500 || outcome.status === 0) {
        // A gateway or server fault before the stream: nothing was answered, the same id may be retried.
        return { phase: 'error', error: { kind: 'network', message: outcome.message || `The server could not answer (${outcome.status}).` } };
      }
      return {
        phase: 'error',
        error: { kind: 'answer', message: outcome.message || `The message could not be sent (${outcome.status}).` },
      };
  }
}

/**
 * The turns of one chat panel: sending (streamed into local state), Stop (abort) and Retry (same
 * clientMessageId). In-flight requests are aborted when the panel unmounts.
 */
export function useChatSession(agentId: string, role: ChatRole) {
  const queryClient = useQueryClient();
  const [turns, setTurns] = useState<Turn[]>([]);
  const turnsRef = useLatest(turns);
  const controllers = useRef(new Map<string, AbortController>());

  useEffect(() => {
    const map = controllers.current;
    return () => {
      map.forEach((controller) => controller.abort());
      map.clear();
    };
  }, []);

  const patch = useCallback((id: string, update: (turn: Turn) => Partial<Turn>) => {
    setTurns((list) => list.map((t) => (t.id === id ? { ...t, ...update(t) } : t)));
  }, []);

  const run = useCallback(
    async (turn: Turn) => {
      const controller = new AbortController();
      controllers.current.get(turn.id)?.abort();
      controllers.current.set(turn.id, controller);
      const outcome = await sendMessage({
        conversationId: turn.conversationId,
        content: turn.content,
        clientMessageId: turn.clientMessageId,
        signal: controller.signal,
        handlers: {
          onStart: (start) =>
            patch(turn.id, (t) => ({
              phase: 'streaming',
              // A replay (retry) starts the answer again.
              answer: '',
              citations: [],
              usage: null,
              userMessageId: start.userMessageId || t.userMessageId,
              assistantMessageId: start.assistantMessageId || t.assistantMessageId,
              model: start.model || t.model,
              simulated: start.simulated ?? t.simulated,
            })),
          onDelta: (text) => patch(turn.id, (t) => ({ phase: 'streaming', answer: t.answer + text })),
          onCitations: (citations) => patch(turn.id, () => ({ citations })),
          onUsage: (usage) => patch(turn.id, (t) => ({ usage, model: usage.model || t.model })),
        },
      });
      if (controllers.current.get(turn.id) === controller) controllers.current.delete(turn.id);
      patch(turn.id, () => settle(outcome, role));
      // The stored conversation changed: refetch it when it is opened again; the list's order changed too.
      void queryClient.invalidateQueries({ queryKey: conversationKey(turn.conversationId), refetchType: 'none' });
      void queryClient.invalidateQueries({ queryKey: conversationsKey(agentId) });
      // The owner's answer may have started the agent's monthly fee (the Chat tab's fee notice).
      if (role === 'owner') void queryClient.invalidateQueries({ queryKey: [AGENT_FEES_PATH] });
      if (outcome.kind === 'stopped') {
        // Stopped: the server keeps the question and records the stopped answer (and what reading the
        // question cost, if the model had it) once it sees the request end. Re-read the conversation
        // a moment later so the stored answer ("Stopped · charged …") replaces this turn.
        setTimeout(() => {
          void queryClient.invalidateQueries({ queryKey: conversationKey(turn.conversationId) });
        }, STOPPED_REFETCH_DELAY_MS);
      }
      return outcome;
    },
    [agentId, patch, queryClient, role],
  );

  /** Sends `content` to the conversation as a new turn. */
  const send = useCallback(
    (conversationId: string, content: string) => {
      const clientMessageId = newId();
      const turn: Turn = {
        id: clientMessageId,
        conversationId,
        content,
        clientMessageId,
        base: queryClient.getQueryState(conversationKey(conversationId))?.dataUpdatedAt ?? 0,
        answer: '',
        citations: [],
        usage: null,
        phase: 'waiting',
      };
      setTurns((list) => [...list, turn]);
      return run(turn);
    },
    [queryClient, run],
  );

  /** Resends a turn whose connection failed, with the SAME clientMessageId (no second answer or charge). */
  const retry = useCallback(
    (turnId: string) => {
      const turn = turnsRef.current.find((t) => t.id === turnId);
      if (!turn || isInFlight(turn)) return Promise.resolve(undefined);
      patch(turnId, () => ({ phase: 'waiting', error: undefined }));
      return run({ ...turn, phase: 'waiting', error: undefined });
    },
    [patch, run, turnsRef],
  );

  /** Stops the in-flight answers of a conversation (the server keeps and charges what was generated). */
  const stop = useCallback((conversationId: string) => {
    for (const t of turnsRef.current) {
      if (t.conversationId === conversationId) controllers.current.get(t.id)?.abort();
    }
  }, [turnsRef]);

  /** Forgets the turns of a deleted conversation (and aborts them). */
  const forget = useCallback((conversationId: string) => {
    for (const t of turnsRef.current) {
      if (t.conversationId === conversationId) controllers.current.get(t.id)?.abort();
    }
    setTurns((list) => list.filter((t) => t.conversationId !== conversationId));
  }, [turnsRef]);

  return { turns, send, retry, stop, forget };
}
