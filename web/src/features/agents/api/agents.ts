import { useMutation, useQuery, useQueryClient, type UseMutationOptions } from '@tanstack/react-query';
import { api, ApiError, authFetch, getIdToken, requestIdOf } from '@/lib/api-client';
import type { Agent, AgentSavePayload, NewAgentPayload, Subscriber, SubscriberCapPayload } from '../types';

/** The agents query key (spec §7): the default fetch GETs its first element. */
export const AGENTS_QUERY_KEY = ['/api/agents'] as const;

export const subscribersQueryKey = (agentId: string) => [`/api/agents/${agentId}/subscribers`] as const;

/** The `message` of a JSON error body ({error, message, fields}), else the raw text, and its per-field messages. */
async function errorBodyOf(response: Response): Promise<{ message: string; fields?: Record<string, string> }> {
  let text: string;
  try {
    text = await response.text();
  } catch {
    return { message: '' };
  }
  try {
    const body = JSON.parse(text) as { message?: unknown; fields?: unknown };
    const fields = fieldsOf(body?.fields);
    if (body && typeof body.message === 'string' && body.message) return { message: body.message, fields };
    return { message: text, fields };
  } catch {
    // not JSON: fall through to the text
  }
  return { message: text };
}

/** The string members of a 400 validation_failed `fields` object (field name → message). */
function fieldsOf(value: unknown): Record<string, string> | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, message] of Object.entries(value)) {
    if (typeof message === 'string' && message) out[key] = message;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Reads `message` from a JSON error body ({error, message}), else the raw text. */
export async function errorMessageOf(response: Response): Promise<string> {
  return (await errorBodyOf(response)).message;
}

/** Thrown for a failed call whose server message may be shown to the user. */
export class ApiMessageError extends ApiError {
  /** Per-field messages of a 400 validation_failed, keyed by the JSON field name. */
  readonly fields?: Record<string, string>;

  constructor(message: string, status: number, requestId?: string, fields?: Record<string, string>) {
    super(message, status, { requestId });
    this.name = 'ApiMessageError';
    if (fields) this.fields = fields;
  }
}

/** The server's message for one field of a failed call (400 validation_failed), if it named that field. */
export function fieldError(error: unknown, field: string): string | undefined {
  return error instanceof ApiMessageError ? error.fields?.[field] : undefined;
}

/**
 * The error of a failed response: the server's `message` (else the body text, else the status text) and its
 * per-field messages.
 */
export async function messageErrorOf(response: Response): Promise<ApiMessageError> {
  const { message, fields } = await errorBodyOf(response);
  return new ApiMessageError(
    message || response.statusText || `HTTP error! status: ${response.status}`,
    response.status,
    requestIdOf(response),
    fields,
  );
}

async function requestWithMessage<T>(path: string, init: Parameters<typeof authFetch>[1]): Promise<T> {
  const response = await authFetch(path, init);
  if (!response.ok) {
    const { message, fields } = await errorBodyOf(response);
    throw new ApiMessageError(message, response.status, requestIdOf(response), fields);
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
    onSuccess: (created) => {
      // The new agent is in the list at once: its editor opens next (issue 29), before the list is refetched.
      if (created?.id) {
        queryClient.setQueryData<Agent[]>(AGENTS_QUERY_KEY, (old) =>
          old ? [created, ...old.filter((agent) => agent.id !== created.id)] : [created],
        );
      }
      return queryClient.invalidateQueries({ queryKey: AGENTS_QUERY_KEY });
    },
  });
}

/** DELETE /api/agents/{id} → 204 (issue 29); 404 when the agent is gone or not the caller's. */
export function deleteAgent(agentId: string): Promise<void> {
  return requestWithMessage<void>(`/api/agents/${encodeURIComponent(agentId)}`, { method: 'DELETE' });
}

/** True for a query whose key names this agent's own resources (`/api/agents/{id}/...`). */
function isAgentQuery(key: readonly unknown[], agentId: string): boolean {
  const prefixes = [`/api/agents/${agentId}`, `/api/agents/${encodeURIComponent(agentId)}`];
  return key.some(
    (part) => typeof part === 'string' && prefixes.some((prefix) => part === prefix || part.startsWith(`${prefix}/`)),
  );
}

/**
 * Deletes an agent. Afterwards it leaves the cached list at once, its own queries (documents, subscribers,
 * keys, conversations, fee…) are dropped, and every other query is invalidated (the dashboard's counts, the
 * activity feed and the wallet change with it).
 */
export function useDeleteAgent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (agentId: string) => deleteAgent(agentId),
    onSettled: (_data, error, agentId) => {
      // 404: already gone (or never the caller's) — the list is refreshed either way.
      if (error && !(error instanceof ApiError && error.status === 404)) return;
      queryClient.setQueryData<Agent[]>(AGENTS_QUERY_KEY, (old) => old?.filter((agent) => agent.id !== agentId));
      queryClient.removeQueries({ predicate: (query) => isAgentQuery(query.queryKey, agentId) });
      void queryClient.invalidateQueries();
    },
  });
}

/**
 * PATCH /api/agents/{id}; failure: 'Failed to update agent: {status} {status text} - {body}', carrying the
 * per-field messages of a 400 validation_failed (`fields`) so the editor can show them at the fields.
 */
export async function updateAgent(agentId: string, payload: AgentSavePayload): Promise<Agent> {
  const response = await authFetch(`/api/agents/${encodeURIComponent(agentId)}`, { method: 'PATCH', body: payload });
  if (!response.ok) {
    const body = await response.text().catch(() => '');
    let fields: Record<string, string> | undefined;
    try {
      fields = fieldsOf((JSON.parse(body) as { fields?: unknown } | null)?.fields);
    } catch {
      // not JSON: no field messages
    }
    throw new ApiMessageError(
      `Failed to update agent: ${response.status} ${response.statusText} - ${body}`,
      response.status,
      requestIdOf(response),
      fields,
    );
  }
  return (await response.json()) as Agent;
}

export function useUpdateAgent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, payload }: { id: string; payload: AgentSavePayload }) => updateAgent(id, payload),
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

const agentPath = (agentId: string) => `/api/agents/${encodeURIComponent(agentId)}`;

/** PATCH /api/agents/{id} {subscriberMonthlyCapCents}: the default monthly cap per subscriber (null = no cap). */
export function updateSubscriberCapDefault(agentId: string, cents: number | null): Promise<Agent> {
  return requestWithMessage<Agent>(agentPath(agentId), { method: 'PATCH', body: { subscriberMonthlyCapCents: cents } });
}

/**
 * Saves the agent's default cap on its own (not with the editor's Save Changes). The saved agent replaces
 * the cached one; the agent list and the subscribers (whose default caps change) are refetched.
 */
export function useUpdateSubscriberCapDefault(agentId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (cents: number | null) => updateSubscriberCapDefault(agentId, cents),
    onSuccess: (updated) => {
      if (updated?.id) {
        queryClient.setQueryData<Agent[]>(AGENTS_QUERY_KEY, (old) =>
          old?.map((agent) => (agent.id === updated.id ? updated : agent)),
        );
      }
      void queryClient.invalidateQueries({ queryKey: AGENTS_QUERY_KEY });
      void queryClient.invalidateQueries({ queryKey: subscribersQueryKey(agentId) });
    },
  });
}

/** PATCH /api/agents/{id}/subscribers/{subscriberId} {capMode, monthlyCapCents}: one subscriber's cap. */
export function updateSubscriberCap(agentId: string, subscriberId: string, payload: SubscriberCapPayload): Promise<Subscriber> {
  return requestWithMessage<Subscriber>(`${agentPath(agentId)}/subscribers/${encodeURIComponent(subscriberId)}`, {
    method: 'PATCH',
    body: payload,
  });
}

/** Changes one subscriber's cap; the saved row replaces the cached one and the list is refetched. */
export function useUpdateSubscriberCap(agentId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ subscriberId, payload }: { subscriberId: string; payload: SubscriberCapPayload }) =>
      updateSubscriberCap(agentId, subscriberId, payload),
    onSuccess: (saved, { subscriberId }) => {
      if (saved?.id) {
        queryClient.setQueryData<Subscriber[]>(subscribersQueryKey(agentId), (old) =>
          old?.map((s) => (s.id === subscriberId ? { ...s, ...saved } : s)),
        );
      }
      void queryClient.invalidateQueries({ queryKey: subscribersQueryKey(agentId) });
    },
  });
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

/** UI callbacks of a mutation hook (toasts, form state); the hook supplies the request. */
export type MutationCallbacks<TData, TVariables> = Pick<
  UseMutationOptions<TData, Error, TVariables>,
  'onMutate' | 'onSuccess' | 'onError'
>;

/** Invites an e-mail address to the agent (POST /api/agents/{id}/subscribers). */
export function useInviteSubscriber(agentId: string, callbacks: MutationCallbacks<Subscriber, string>) {
  return useMutation({ mutationFn: (address: string) => inviteSubscriber(agentId, address), ...callbacks });
}

/** Revokes a subscriber's access to the agent. */
export function useRevokeSubscriber(agentId: string, callbacks: MutationCallbacks<void, Subscriber>) {
  return useMutation({ mutationFn: (subscriber: Subscriber) => revokeSubscriber(agentId, subscriber.id), ...callbacks });
}
