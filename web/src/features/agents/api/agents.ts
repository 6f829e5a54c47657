import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, authFetch, getIdToken, requestIdOf } from '@/lib/api-client';
import type { Agent, AgentUpdatePayload, NewAgentPayload, Subscriber } from '../types';

/** The agents query key (spec §7): the default fetch GETs its first element. */
export const AGENTS_QUERY_KEY = ['/api/agents'] as const;

export const subscribersQueryKey = (agentId: string) => [`/api/agents/${agentId}/subscribers`] as const;

/** Reads `message` from a JSON error body ({error, message}), else the raw text. */
export async function errorMessageOf(response: Response): Promise<string> {
  let text: string;
  try {
    text = await response.text();
  } catch {
    return '';
  }
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (body && typeof body.message === 'string' && body.message) return body.message;
  } catch {
    // not JSON: fall through to the text
  }
  return text;
}

/** Thrown for a failed call whose server message may be shown to the user. */
export class ApiMessageError extends ApiError {
  constructor(message: string, status: number, requestId?: string) {
    super(message, status, { requestId });
    this.name = 'ApiMessageError';
  }
}

async function requestWithMessage<T>(path: string, init: Parameters<typeof authFetch>[1]): Promise<T> {
  const response = await authFetch(path, init);
  if (!response.ok) {
    throw new ApiMessageError(await errorMessageOf(response), response.status, requestIdOf(response));
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export async function fetchAgents(signal?: AbortSignal): Promise<Agent[]> {
  const response = await authFetch(AGENTS_QUERY_KEY[0], { method: 'GET', signal });
  if (!response.ok) {
    throw new Error(`Failed to fetch agents: ${response.statusText}`);
  }
  return (await response.json()) as Agent[];
}

/** The signed-in user's agents, newest first. Stale time 0 (spec §7). */
export function useAgents() {
  return useQuery({
    queryKey: AGENTS_QUERY_KEY,
    queryFn: ({ signal }) => fetchAgents(signal),
    staleTime: 0,
  });
}

export function createAgent(payload: NewAgentPayload): Promise<Agent> {
  return requestWithMessage<Agent>('/api/agents', { method: 'POST', body: payload });
}

export function useCreateAgent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createAgent,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: AGENTS_QUERY_KEY }),
  });
}

/** PATCH /api/agents/{id}; failure: 'Failed to update agent: {status} {status text} - {body}'. */
export async function updateAgent(agentId: string, payload: AgentUpdatePayload): Promise<Agent> {
  const response = await authFetch(`/api/agents/${encodeURIComponent(agentId)}`, { method: 'PATCH', body: payload });
  if (!response.ok) {
    const body = await response.text().catch(() => '');
    throw new Error(`Failed to update agent: ${response.status} ${response.statusText} - ${body}`);
  }
  return (await response.json()) as Agent;
}

export function useUpdateAgent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, payload }: { id: string; payload: AgentUpdatePayload }) => updateAgent(id, payload),
    onSuccess: (updated) => {
      queryClient.setQueryData<Agent[]>(AGENTS_QUERY_KEY, (old) =>
        old?.map((agent) => (agent.id === updated.id ? updated : agent)),
      );
    },
  });
}

/** Subscribers of one agent; runs only while `enabled` (the editor is open). */
export function useSubscribers(agentId: string, enabled: boolean) {
  return useQuery({
    queryKey: subscribersQueryKey(agentId),
    queryFn: ({ signal }) => api.get<Subscriber[]>(subscribersQueryKey(agentId)[0], { signal }),
    enabled,
    staleTime: 0,
  });
}

export function inviteSubscriber(agentId: string, email: string): Promise<Subscriber> {
  return requestWithMessage<Subscriber>(`/api/agents/${encodeURIComponent(agentId)}/subscribers`, {
    method: 'POST',
    body: { email },
  });
}

export function revokeSubscriber(agentId: string, subscriberId: string): Promise<void> {
  return requestWithMessage<void>(
    `/api/agents/${encodeURIComponent(agentId)}/subscribers/${encodeURIComponent(subscriberId)}`,
    { method: 'DELETE' },
  );
}

/**
 * POST /api/user/public-agent-interest. The create dialog sends the identity token in the
 * body ({idToken}); the editor sends no body (spec §7).
 */
export async function registerPublicAgentInterest(options: { withIdToken: boolean }): Promise<unknown> {
  if (options.withIdToken) {
    const idToken = await getIdToken();
    return requestWithMessage('/api/user/public-agent-interest', { method: 'POST', body: { idToken } });
  }
  return requestWithMessage('/api/user/public-agent-interest', { method: 'POST' });
}

/** 'User not authenticated.' (spec §6): creating an agent without a signed-in user. */
export const USER_NOT_AUTHENTICATED = 'User not authenticated.';

/**
 * The description of an 'Error' toast: the server's message (or one of our own
 * user-facing messages), else the given fallback.
 */
export function toastMessage(error: unknown, fallback: string): string {
  if (error instanceof ApiMessageError && error.message) return error.message;
  if (error instanceof Error && error.message === USER_NOT_AUTHENTICATED) return error.message;
  return fallback;
}
