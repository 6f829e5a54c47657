import { PlusOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useState } from 'react';
import { toast } from '@/components/toast';
import { errorDescription, useDeleteDocument, useSyncDocument } from '../api/documents';
import type { AgentDocument } from '../types';
import { DocumentDialog } from './DocumentDialog';
import { DocumentsTable } from './DocumentsTable';

interface DocumentsPanelProps {
  agentId: string;
  agentEmail?: string;
  documents: readonly AgentDocument[];
  referenced: ReadonlySet<string>;
  loading: boolean;
  error: Error | null;
}

/**
 * The Documents part of the tab: heading, Add Document, the sharing note, the table (with each
 * document's sync status and Sync now) and the dialogs.
 */
export function DocumentsPanel({ agentId, agentEmail, documents, referenced, loading, error }: DocumentsPanelProps) {
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<AgentDocument | null>(null);
  const remove = useDeleteDocument(agentId);
  const sync = useSyncDocument(agentId);
  const syncNow = (doc: AgentDocument) =>
    sync.mutate(doc.id, {
      onError: (err) => {
        console.error('Error syncing document:', err);
        toast({
          title: 'Error syncing document',
          description: errorDescription(err, 'Failed to sync the document. Please try again.'),
          variant: 'destructive',
          error: err,
        });
      },
    });
  const headingId = `agent-documents-heading-${agentId}`;

  return (
    <section className="documents-section" aria-labelledby={headingId}>
      <div className="documents-section__header">
        <h3 id={headingId} className="documents-section__title">
          Documents
        </h3>
        <Button type="primary" icon={<PlusOutlined aria-hidden="true" />} onClick={() => setAdding(true)}>
          Add Document
        </Button>
      </div>
      <p className="documents-note" data-testid="documents-share-note">
        {agentEmail
          ? `Documents should be shared with this agent's e-mail address, ${agentEmail}, so the agent can read them.`
          : "Documents should be shared with this agent's e-mail address so the agent can read them."}
      </p>
      {loading ? (
        <div role="status" aria-label="Loading documents" className="loading">
          <span className="loading__spinner" aria-hidden="true" />
        </div>
      ) : error ? (
        <p role="alert" className="documents-error">
          {error.message || 'Failed to load documents.'}
        </p>
      ) : (
        <DocumentsTable
          documents={documents}
          referenced={referenced}
          onEdit={setEditing}
          onDelete={(doc) => remove.mutate(doc.id)}
          onSync={syncNow}
          deletingId={remove.isPending ? remove.variables : null}
          syncRequestId={sync.isPending ? sync.variables : null}
          agentEmail={agentEmail}
        />
      )}
      <DocumentDialog mode="add" open={adding} agentId={agentId} agentEmail={agentEmail} onClose={() => setAdding(false)} />
      <DocumentDialog
        mode="edit"
        open={editing !== null}
        agentId={agentId}
        agentEmail={agentEmail}
        document={editing}
        onClose={() => setEditing(null)}
      />
    </section>
  );
}
