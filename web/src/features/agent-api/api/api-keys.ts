import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, authFetch, requestIdOf } from '@/lib/api-client';
import type { ApiKey, CreatedApiKey, NewApiKeyPayload } from '../types';

export const apiKeysQueryKey = (agentId: string) => [`/api/agents/${agentId}/api-keys`] as const;

const keysPath = (agentId: string) => `/api/agents/${encodeURIComponent(agentId)}/api-keys`;

/** A failed key call, with the server's message (`{error, message}`) when it sent one. */
export class ApiKeyError extends ApiError {
  constructor(
    message: string,
    status: number,
    readonly code?: string,
    requestId?: string,
  ) {
    super(message, status, { requestId });
    this.name = 'ApiKeyError';
  }
}

async function failure(response: Response, fallback: string): Promise<ApiKeyError> {
  let code: string | undefined;
  let message = '';
  try {
    const body = (await response.json()) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') code = body.error;
    if (typeof body.message === 'string') message = body.message;
  } catch {
    // not JSON
  }
  return new ApiKeyError(message || `${fallback} (${response.status})`, response.status, code, requestIdOf(response));
}

export async function fetchApiKeys(agentId: string, signal?: AbortSignal): Promise<ApiKey[]> {
  const response = await authFetch(keysPath(agentId), { method: 'GET', signal });
  if (!response.ok) throw await failure(response, 'Could not load the API keys');
  return (await response.json()) as ApiKey[];
}

export async function createApiKey(agentId: string, payload: NewApiKeyPayload): Promise<CreatedApiKey> {
  const response = await authFetch(keysPath(agentId), { method: 'POST', body: payload });
  if (!response.ok) throw await failure(response, 'Could not create the API key');
  return (await response.json()) as CreatedApiKey;
}

export async function revokeApiKey(agentId: string, keyId: string): Promise<void> {
  const response = await authFetch(`${keysPath(agentId)}/${encodeURIComponent(keyId)}`, { method: 'DELETE' });
  if (!response.ok) throw await failure(response, 'Could not revoke the API key');
}

/** The agent's live keys (newest first); only while the editor is open. */
export function useApiKeys(agentId: string, enabled = true) {
  return useQuery({
    queryKey: apiKeysQueryKey(agentId),
    queryFn: ({ signal }) => fetchApiKeys(agentId, signal),
    enabled,
    staleTime: 0,
  });
}

export function useCreateApiKey(agentId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (payload: NewApiKeyPayload) => createApiKey(agentId, payload),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiKeysQueryKey(agentId) }),
  });
}

export function useRevokeApiKey(agentId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (key: ApiKey) => revokeApiKey(agentId, key.id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiKeysQueryKey(agentId) }),
  });
}
