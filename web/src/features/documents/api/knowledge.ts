import { useMutation } from '@tanstack/react-query';
import { authFetch } from '@/lib/api-client';
import type { KnowledgePassage, KnowledgeSearchRequest, KnowledgeSearchResult, RetrievalMode } from '../types';
import { readErrorBody } from './documents';

const searchPath = (agentId: string) => `/api/agents/${encodeURIComponent(agentId)}/knowledge/search`;

/**
 * POST /api/agents/{id}/knowledge/search → the passages the agent would use, best first, and how the search
 * ran (the X-Retrieval-Mode, X-Embeddings-Model and X-Embeddings-Simulated headers; null from servers that
 * do not say). A 400 (`invalid_query`) or any other failure rejects with a DocumentApiError carrying the
 * server's `message`.
 */
export async function searchKnowledge(agentId: string, body: KnowledgeSearchRequest, signal?: AbortSignal): Promise<KnowledgeSearchResult> {
  const response = await authFetch(searchPath(agentId), { method: 'POST', body, signal });
  if (!response.ok) throw await readErrorBody(response);
  const passages = (await response.json()) as KnowledgePassage[] | null;
  return {
    passages: Array.isArray(passages) ? passages.map((p) => ({ ...p, labels: Array.isArray(p.labels) ? p.labels : [] })) : [],
    mode: retrievalMode(response.headers),
  };
}

function retrievalMode(headers: Headers): RetrievalMode | null {
  const mode = headers.get('X-Retrieval-Mode');
  if (mode !== 'lexical' && mode !== 'hybrid' && mode !== 'fallback') return null;
  return { mode, model: headers.get('X-Embeddings-Model') ?? '', simulated: headers.get('X-Embeddings-Simulated') === 'true' };
}

/** The Test retrieval box's search (a mutation: each question is asked on demand, nothing is cached). */
export function useKnowledgeSearch(agentId: string) {
  return useMutation({
    mutationFn: (body: KnowledgeSearchRequest) => searchKnowledge(agentId, body),
  });
}
