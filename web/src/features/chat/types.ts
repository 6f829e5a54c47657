/** Shapes of docs/conversations-api.md (the conversations service's HTTP contract). */

/**
 * Who pays for the answers: 'owner' (their own wallet: usage + fee), 'subscriber' (the owner pays) or
 * 'consumer' (a marketplace user: their own wallet, usage + fee + the creator's markup and greeting cost).
 */
export type ChatRole = 'owner' | 'subscriber' | 'consumer';

export interface Conversation {
  id: string;
  agentId: string;
  title: string;
  channel?: 'chat' | 'email' | 'docs_comment' | 'api' | (string & {});
  createdAt: string;
  updatedAt: string;
  lastMessageAt?: string | null;
}

export interface Citation {
  documentId: string;
  documentName: string;
  url: string;
  labels?: string[];
  /** The answer's [n] markers that cite this document (when the server sends them). */
  markers?: number[];
  /** The cited passages' text, by marker (when the server sends it; never when the agent hides its sources). */
  passages?: CitedPassage[] | null;
}

/** One cited passage of a document: `n` is its marker in the answer ([n]). */
export interface CitedPassage {
  n: number;
  text: string;
}

export interface Usage {
  model?: string;
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
  feeMicros: number;
  /** The creator's markup (marketplace consumers only; absent or 0 otherwise). */
  markupMicros?: number;
  /** The greeting cost, charged with a conversation's first answer (marketplace consumers only). */
  greetingMicros?: number;
  totalMicros: number;
}

export type MessageStatus = 'complete' | 'partial' | 'failed' | 'stopped';

export interface Message {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  citations?: Citation[] | null;
  usage?: Usage | null;
  status?: MessageStatus | (string & {});
  clientMessageId?: string | null;
  createdAt: string;
}

export interface ConversationWithMessages extends Conversation {
  messages?: Message[] | null;
}

/** GET /api/agents/{agentId}/chat-info */
export interface ChatInfo {
  model: string;
  simulated: boolean;
  role: ChatRole;
  /** How a follow-up question is searched for: rewritten by the model, or by a fixed rule (the simulator). */
  followUpSearch?: 'model' | 'rule';
}

/** Payloads of the named SSE events of POST /api/conversations/{id}/messages. */
export interface StartEvent {
  userMessageId: string;
  assistantMessageId: string;
  model?: string;
  simulated?: boolean;
}
