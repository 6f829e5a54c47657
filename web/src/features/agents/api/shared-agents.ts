import { useQuery } from '@tanstack/react-query';
import { readChatError } from '@/features/chat';
import { authFetch } from '@/lib/api-client';
import type { Agent } from '../types';

export const SHARED_AGENTS_KEY = ['/api/agents/shared'] as const;

/** GET /api/agents/shared; errors are read like the chat calls' (the page shows them with chatErrorText). */
export async function fetchSharedAgents(signal?: AbortSignal): Promise<Agent[]> {
  const response = await authFetch(SHARED_AGENTS_KEY[0], { method: 'GET', signal });
  if (!response.ok) throw await readChatError(response);
  if (response.status === 204) return [];
  const text = await response.text();
  const list = (text ? JSON.parse(text) : undefined) as Agent[] | null | undefined;
  return Array.isArray(list) ? list : [];
}

/** Agents the caller is an active subscriber of. */
export function useSharedAgents() {
  return useQuery({
    queryKey: SHARED_AGENTS_KEY,
    queryFn: ({ signal }) => fetchSharedAgents(signal),
    staleTime: 0,
  });
}
