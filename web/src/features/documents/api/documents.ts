import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, authFetch, requestIdOf } from '@/lib/api-client';
import { isSyncing } from '../lib/sync-status';
import type { AgentDocument, NewDocumentPayload } from '../types';

/** Query key of one agent's documents; its first element is the GET path. */
export const documentsQueryKey = (agentId: string) => [`/api/agents/${encodeURIComponent(agentId)}/documents`] as const;

const documentPath = (agentId: string, documentId: string) =>
  `/api/agents/${encodeURIComponent(agentId)}/documents/${encodeURIComponent(documentId)}`;

/** A failed documents call; `message` is the server's human text ('' when it had none). */
export class DocumentApiError extends ApiError {
  constructor(
    message: string,
    status: number,
    readonly fields?: Record<string, string>,
    requestId?: string,
  ) {
    super(message, status, { requestId });
    this.name = 'DocumentApiError';
  }
}

/**
 * The human text of an error body: `message` (our services), else `errorDetails` (spec §7 POST),
 * else ''. The `error` field is a machine code (`conflict`) and is never shown.
 */
export async function readErrorBody(response: Response): Promise<DocumentApiError> {
  let message = '';
  let fields: Record<string, string> | undefined;
  try {
    const body = JSON.parse(await response.text()) as { message?: unknown; errorDetails?: unknown; fields?: unknown };
    if (typeof body?.message === 'string') message = body.message;
    else if (typeof body?.errorDetails === 'string') message = body.errorDetails;
    if (body?.fields && typeof body.fields === 'object') fields = body.fields as Record<string, string>;
  } catch {
    // not JSON: no server message
  }
  return new DocumentApiError(message, response.status, fields, requestIdOf(response));
}

async function request<T>(path: string, init: Parameters<typeof authFetch>[1]): Promise<T> {
  const response = await authFetch(path, init);
  if (!response.ok) throw await readErrorBody(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** The toast description of a failed call: the server's message, else `fallback` (spec §8). */
export function errorDescription(error: unknown, fallback: string): string {
  return error instanceof DocumentApiError && error.message ? error.message : fallback;
}

/** Missing or null labels read as none. */
function normalise(doc: AgentDocument): AgentDocument {
  return { ...doc, labels: Array.isArray(doc.labels) ? doc.labels : [] };
}

export async function fetchDocuments(agentId: string, signal?: AbortSignal): Promise<AgentDocument[]> {
  const docs = await request<AgentDocument[] | null>(documentsQueryKey(agentId)[0], { method: 'GET', signal });
  return Array.isArray(docs) ? docs.map(normalise) : [];
}

/** How often the list is re-read while a document is queued or syncing. */
export const SYNC_POLL_INTERVAL_MS = 2000;

/**
 * How often the list is re-read while a document is not shared with the agent: the service checks
 * such a document every few seconds for its first minutes, so it turns Shared within seconds of
 * the owner sharing it, without Sync now.
 */
export const NOT_SHARED_POLL_INTERVAL_MS = 5000;

/** The list's polling interval for these documents (false: no polling). */
export function documentsPollInterval(docs: AgentDocument[] | undefined): number | false {
  if (docs?.some(isSyncing)) return SYNC_POLL_INTERVAL_MS;
  if (docs?.some((d) => d.sharingStatus === 'not_shared')) return NOT_SHARED_POLL_INTERVAL_MS;
  return false;
}

/**
 * The agent's documents, oldest first (GET /api/agents/{id}/documents). While any document is
 * queued or syncing the list is polled every 2 s; polling stops once every sync has finished.
 */
export function useDocuments(agentId: string, enabled = true) {
  return useQuery({
    queryKey: documentsQueryKey(agentId),
    queryFn: ({ signal }) => fetchDocuments(agentId, signal),
    enabled,
    staleTime: 0,
    refetchInterval: (query) => documentsPollInterval(query.state.data),
  });
}

/** GET …/documents/preview?url=: the document's Google Docs title when the agent can open it. */
export interface DocumentPreview {
  title: string | null;
  shared: boolean;
}

export function previewDocument(agentId: string, url: string, signal?: AbortSignal): Promise<DocumentPreview> {
  return request<DocumentPreview>(`${documentsQueryKey(agentId)[0]}/preview?url=${encodeURIComponent(url)}`, {
    method: 'GET',
    signal,
  });
}

/** The preview of a valid link (disabled while `url` is null); failures are no title. */
export function useDocumentPreview(agentId: string, url: string | null) {
  return useQuery({
    queryKey: [...documentsQueryKey(agentId), 'preview', url] as const,
    queryFn: ({ signal }) => previewDocument(agentId, url!, signal),
    enabled: url !== null,
    retry: false,
    staleTime: 30_000,
  });
}

export function addDocument(agentId: string, payload: NewDocumentPayload): Promise<AgentDocument> {
  return request<AgentDocument>(documentsQueryKey(agentId)[0], { method: 'POST', body: payload });
}

/** PUT: the full document with name and labels changed (spec §7). */
export function updateDocument(agentId: string, doc: AgentDocument): Promise<AgentDocument> {
  return request<AgentDocument>(documentPath(agentId, doc.id), { method: 'PUT', body: doc });
}

export function deleteDocument(agentId: string, documentId: string): Promise<void> {
  return request<void>(documentPath(agentId, documentId), { method: 'DELETE' });
}

/** POST …/documents/{id}/sync → 202 with the document, now queued (issue 13 "Sync now"). */
export async function syncDocument(agentId: string, documentId: string): Promise<AgentDocument | undefined> {
  const doc = await request<AgentDocument | undefined>(`${documentPath(agentId, documentId)}/sync`, { method: 'POST' });
  return doc && typeof doc === 'object' ? normalise(doc) : undefined;
}

export function useAddDocument(agentId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (payload: NewDocumentPayload) => addDocument(agentId, payload),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: documentsQueryKey(agentId) }),
  });
}

export function useUpdateDocument(agentId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (doc: AgentDocument) => updateDocument(agentId, doc),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: documentsQueryKey(agentId) }),
  });
}

/** No confirmation; a failure is only logged (spec §7); the list is refreshed either way. */
export function useDeleteDocument(agentId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (documentId: string) => deleteDocument(agentId, documentId),
    onError: (error) => console.error('Error deleting document:', error),
    onSettled: () => queryClient.invalidateQueries({ queryKey: documentsQueryKey(agentId) }),
  });
}

/**
 * Sync now: the returned (queued) document replaces its row at once, which starts the polling;
 * the list is then re-read either way.
 */
export function useSyncDocument(agentId: string) {
  const queryClient = useQueryClient();
  const key = documentsQueryKey(agentId);
  return useMutation({
    mutationFn: (documentId: string) => syncDocument(agentId, documentId),
    onSuccess: (doc, documentId) => {
      queryClient.setQueryData<AgentDocument[]>(key, (docs) =>
        docs?.map((d) => (d.id === documentId ? (doc ?? { ...d, syncState: 'queued' }) : d)),
      );
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
}
