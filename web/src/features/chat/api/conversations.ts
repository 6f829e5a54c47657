import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { authFetch } from '@/lib/api-client';
import type { ChatInfo, ChatRole, Conversation, ConversationWithMessages } from '../types';
import { readChatError } from './errors';

const enc = encodeURIComponent;

/** Query keys; the first element is the GET path (as elsewhere in the app). */
export const conversationsKey = (agentId: string) => [`/api/agents/${enc(agentId)}/conversations`] as const;
export const conversationKey = (conversationId: string) => [`/api/conversations/${enc(conversationId)}`] as const;
export const chatInfoKey = (agentId: string) => [`/api/agents/${enc(agentId)}/chat-info`] as const;

async function request<T>(path: string, init: Parameters<typeof authFetch>[1]): Promise<T> {
  const response = await authFetch(path, init);
  if (!response.ok) throw await readChatError(response);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export async function fetchConversations(agentId: string, signal?: AbortSignal): Promise<Conversation[]> {
  const list = await request<Conversation[] | null>(conversationsKey(agentId)[0], { method: 'GET', signal });
  return Array.isArray(list) ? list : [];
}

export async function fetchConversation(conversationId: string, signal?: AbortSignal): Promise<ConversationWithMessages> {
  const conversation = await request<ConversationWithMessages>(conversationKey(conversationId)[0], { method: 'GET', signal });
  return { ...conversation, messages: Array.isArray(conversation.messages) ? conversation.messages : [] };
}

export function createConversation(agentId: string, title?: string): Promise<Conversation> {
  return request<Conversation>(conversationsKey(agentId)[0], { method: 'POST', body: title ? { title } : {} });
}

export function renameConversation(conversationId: string, title: string): Promise<Conversation> {
  return request<Conversation>(conversationKey(conversationId)[0], { method: 'PATCH', body: { title } });
}

export function deleteConversation(conversationId: string): Promise<void> {
  return request<void>(conversationKey(conversationId)[0], { method: 'DELETE' });
}

export async function fetchChatInfo(agentId: string, signal?: AbortSignal): Promise<ChatInfo> {
  return request<ChatInfo>(chatInfoKey(agentId)[0], { method: 'GET', signal });
}

/** The caller's conversations with the agent, newest activity first. */
export function useConversations(agentId: string) {
  return useQuery({
    queryKey: conversationsKey(agentId),
    queryFn: ({ signal }) => fetchConversations(agentId, signal),
    staleTime: 0,
  });
}

/** One conversation with its messages (oldest first). */
export function useConversation(conversationId: string | null) {
  return useQuery({
    queryKey: conversationKey(conversationId ?? ''),
    queryFn: ({ signal }) => fetchConversation(conversationId!, signal),
    enabled: !!conversationId,
  });
}

/** The model the agent answers with and whether it is the simulator. */
export function useChatInfo(agentId: string) {
  return useQuery({
    queryKey: chatInfoKey(agentId),
    queryFn: ({ signal }) => fetchChatInfo(agentId, signal),
    staleTime: 60_000,
  });
}

/**
 * The new conversation with its first messages. The server may open a marketplace agent's conversation with its
 * greeting: when the POST answer does not carry the messages, a consumer's conversation is read back once, so
 * the greeting is shown before the first message is sent (and this session's turns follow it).
 */
export async function createConversationWithMessages(
  agentId: string,
  title: string | undefined,
  role: ChatRole,
): Promise<ConversationWithMessages> {
  const created = (await createConversation(agentId, title)) as ConversationWithMessages;
  if (Array.isArray(created.messages)) return created;
  if (role === 'consumer') return fetchConversation(created.id);
  return { ...created, messages: [] };
}

export function useCreateConversation(agentId: string, role: ChatRole = 'owner') {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (title?: string) => createConversationWithMessages(agentId, title, role),
    onSuccess: (conversation) => {
      // Seed the new conversation's cache (no messages, or the greeting) so opening it needs no request.
      const { messages, ...summary } = conversation;
      queryClient.setQueryData<ConversationWithMessages>(conversationKey(conversation.id), { ...summary, messages: messages ?? [] });
      queryClient.setQueryData<Conversation[]>(conversationsKey(agentId), (list) => [
        summary,
        ...(list ?? []).filter((c) => c.id !== conversation.id),
      ]);
      void queryClient.invalidateQueries({ queryKey: conversationsKey(agentId) });
    },
  });
}

export function useRenameConversation(agentId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, title }: { id: string; title: string }) => renameConversation(id, title),
    onSuccess: (saved, { id, title }) => {
      const merged = (c: Conversation): Conversation => (c.id === id ? { ...c, ...(saved ?? {}), title: saved?.title ?? title } : c);
      queryClient.setQueryData<Conversation[]>(conversationsKey(agentId), (list) => list?.map(merged));
      queryClient.setQueryData<ConversationWithMessages>(conversationKey(id), (c) => (c ? { ...c, title: saved?.title ?? title } : c));
    },
  });
}

export function useDeleteConversation(agentId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => deleteConversation(id),
    onSuccess: (_, id) => {
      queryClient.setQueryData<Conversation[]>(conversationsKey(agentId), (list) => list?.filter((c) => c.id !== id));
      queryClient.removeQueries({ queryKey: conversationKey(id) });
    },
  });
}
