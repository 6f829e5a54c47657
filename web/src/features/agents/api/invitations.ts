import { useMutation } from '@tanstack/react-query';
import { authFetch } from '@/lib/api-client';
import type { Subscriber } from '../types';
import { messageErrorOf, type MutationCallbacks } from './agents';

/**
 * POST /api/agents/{id}/subscribers/{subscriberId}/resend-invitation → 202: e-mails a pending invitation again
 * (owner only; rate limited per subscriber, 429 with a message stating the limit).
 */
export async function resendInvitation(agentId: string, subscriberId: string): Promise<Subscriber | undefined> {
  const response = await authFetch(
    `/api/agents/${encodeURIComponent(agentId)}/subscribers/${encodeURIComponent(subscriberId)}/resend-invitation`,
    { method: 'POST' },
  );
  if (!response.ok) throw await messageErrorOf(response);
  try {
    return (await response.json()) as Subscriber;
  } catch {
    return undefined;
  }
}

/** Resends a pending subscriber's invitation e-mail. */
export function useResendInvitation(agentId: string, callbacks: MutationCallbacks<Subscriber | undefined, Subscriber>) {
  return useMutation({ mutationFn: (subscriber: Subscriber) => resendInvitation(agentId, subscriber.id), ...callbacks });
}
