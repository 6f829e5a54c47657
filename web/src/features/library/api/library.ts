import { useQuery } from '@tanstack/react-query';
import { authFetch } from '@/lib/api-client';
import { readChatError } from '@/features/chat';

/** GET /api/library (docs/conversations-api.md, "Library"): the agents the caller used from the marketplace. */
export const LIBRARY_PATH = '/api/library';
export const LIBRARY_QUERY_KEY = [LIBRARY_PATH] as const;

export interface LibraryConversation {
  id: string;
  title: string;
  updatedAt: string;
}

export interface LibraryAgent {
  agentId: string;
  /** '' when the catalog no longer knows the agent (deleted). */
  name: string;
  iconName: string;
  iconColor: string;
  slug: string;
  /** False once the agent is no longer in the marketplace: its conversations are read-only. */
  listed: boolean;
  lastActivityAt: string;
  conversations: LibraryConversation[];
}

export interface Library {
  agents: LibraryAgent[];
}

export async function fetchLibrary(signal?: AbortSignal): Promise<Library> {
  const response = await authFetch(LIBRARY_PATH, { method: 'GET', signal });
  if (!response.ok) throw await readChatError(response);
  const body = (await response.json()) as Partial<Library> | null;
  const agents = Array.isArray(body?.agents) ? body.agents : [];
  return {
    agents: agents.map((a) => ({ ...a, conversations: Array.isArray(a.conversations) ? a.conversations : [] })),
  };
}

/** The caller's Library (refetched whenever the page is shown: chats change it). */
export function useLibrary(enabled = true) {
  return useQuery({
    queryKey: LIBRARY_QUERY_KEY,
    queryFn: ({ signal }) => fetchLibrary(signal),
    staleTime: 0,
    enabled,
  });
}
