import { useMemo } from 'react';
import { useDocuments } from '../api/documents';
import { referencedDocumentIds } from '../lib/references';
import type { AgentDocument } from '../types';
import '../documents.css';
import { DocumentsPanel } from './DocumentsPanel';
import { InstructionsEditor } from './InstructionsEditor';
import { TestRetrieval } from './TestRetrieval';

interface InstructionsAndDocumentsProps {
  agentId: string;
  /** The agent's own e-mail address (documents are shared with it). */
  agentEmail?: string;
  instructions: string;
  onInstructionsChange: (value: string) => void;
}

const NO_DOCUMENTS: AgentDocument[] = [];

/**
 * The editor tab 'Instructions & Documents' (spec §2): documents (with their sync status, issue 13),
 * the Test retrieval box, then the instructions editor.
 */
export function InstructionsAndDocuments({ agentId, agentEmail, instructions, onInstructionsChange }: InstructionsAndDocumentsProps) {
  const { data, isPending, error } = useDocuments(agentId);
  const documents = data ?? NO_DOCUMENTS;
  const referenced = useMemo(() => referencedDocumentIds(instructions, documents), [instructions, documents]);

  return (
    <div className="agent-editor__section instructions-tab">
      <DocumentsPanel
        agentId={agentId}
        agentEmail={agentEmail}
        documents={documents}
        referenced={referenced}
        loading={isPending}
        error={error}
      />
      <TestRetrieval agentId={agentId} />
      <InstructionsEditor
        id={`agent-instructions-${agentId}`}
        value={instructions}
        onChange={onInstructionsChange}
        documents={documents}
      />
    </div>
  );
}
