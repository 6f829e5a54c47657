/** Entity "Document" of spec §3, as the documents service returns it (docs/documents.md). */
export type SharingStatus = 'shared' | 'not_shared' | 'error';

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
}

/** POST /api/agents/{id}/documents body (spec §7); the web app always sends sharingStatus 'shared'. */
export interface NewDocumentPayload {
  name: string;
  url: string;
  driveFileId: string;
  labels: string[];
  sharingStatus: 'shared';
}
