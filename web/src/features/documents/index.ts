export { documentsQueryKey, fetchDocuments, useDocuments } from './api/documents';
export { InstructionsAndDocuments } from './components/InstructionsAndDocuments';
export { copyToClipboard } from './lib/clipboard';
export { syncDisplay, type SyncDisplay } from './lib/sync-status';
export type { AgentDocument } from './types';
