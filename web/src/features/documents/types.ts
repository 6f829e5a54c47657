/** Entity "Document" of spec §3, as the documents service returns it (docs/documents.md). */
export type SharingStatus = 'shared' | 'not_shared' | 'error';

/** Where the service's Drive sync of a document stands (issue 13). */
export type SyncState = 'queued' | 'syncing' | 'synced';

export interface AgentDocument {
  id: string;
  agentId: string;
  name: string;
  url: string;
  driveFileId: string;
  labels: string[];
  sharingStatus: SharingStatus | (string & {});
  createdAt: string;
  updatedAt: string;
  /*
   * Drive sync (issue 13). Optional: a service without sync omits them, and the UI then shows only
   * `sharingStatus`. `sharingStatus` is the server's real check once a sync has run.
   */
  syncState?: SyncState | (string & {}) | null;
  /** Why the last sync failed (`sharingStatus` 'error'), else null. */
  syncError?: string | null;
  /** The document's title in Google Docs (the creator's `name` stays the document's name). */
  driveTitle?: string | null;
  /** ISO time of the last successful read of the document. */
  syncedAt?: string | null;
  /** ISO `modifiedTime` of the document in Drive at the last sync. */
  modifiedTime?: string | null;
  /** Size of the agent's copy of the text, in tokens. */
  tokenCount?: number | null;
}

/** POST /api/agents/{id}/documents body (spec §7); the web app always sends sharingStatus 'shared'. */
export interface NewDocumentPayload {
  name: string;
  url: string;
  driveFileId: string;
  labels: string[];
  sharingStatus: 'shared';
}

/** One passage of POST /api/agents/{id}/knowledge/search (issue 13 "Retrieval"). */
export interface KnowledgePassage {
  documentId: string;
  documentName: string;
  labels: string[];
  text: string;
  /** The document's title and the headings above the passage, joined by " › " (absent from older servers). */
  headingPath?: string;
  score: number;
  /** The score as a share (0–1) of what a passage holding every word of the question would score. */
  relevance?: number;
  /** Relevant enough for the agent to answer from it (false: shown, but the agent would not use it). */
  relevant?: boolean;
  /** Character offsets of the passage in the document's text. */
  start: number;
  end: number;
  /** The Google Docs URL of the document. */
  url: string;
  tokenCount: number;
}

/** How a knowledge search ran: full text only, fused with an embeddings provider's vectors, or full text because the provider failed. */
export interface RetrievalMode {
  mode: 'lexical' | 'hybrid' | 'fallback';
  /** The embeddings model ('' when none is configured). */
  model: string;
  /** The LLM simulator's embeddings: deterministic, not semantic. */
  simulated: boolean;
}

/** The answer of a knowledge search. */
export interface KnowledgeSearchResult {
  passages: KnowledgePassage[];
  mode: RetrievalMode | null;
}

/** POST /api/agents/{id}/knowledge/search body. */
export interface KnowledgeSearchRequest {
  query: string;
  limit?: number;
}
