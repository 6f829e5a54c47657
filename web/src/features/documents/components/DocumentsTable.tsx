import { DeleteOutlined, EditOutlined, ExportOutlined, FileTextOutlined, SyncOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { canSyncNow, differingDriveTitle, isSyncing } from '../lib/sync-status';
import { useNow } from '../lib/use-now';
import type { AgentDocument } from '../types';
import { DocumentSyncStatus } from './DocumentSyncStatus';

interface DocumentsTableProps {
  documents: readonly AgentDocument[];
  referenced: ReadonlySet<string>;
  onEdit: (doc: AgentDocument) => void;
  onDelete: (doc: AgentDocument) => void;
  /** Sync now (issue 13). */
  onSync: (doc: AgentDocument) => void;
  /** The document being deleted (its buttons are disabled). */
  deletingId?: string | null;
  /** The document whose Sync now call is running. */
  syncRequestId?: string | null;
  /** The agent's e-mail address (Not shared hint, Copy address). */
  agentEmail?: string;
}

/**
 * Documents table (spec "Instructions & Documents"): Name (a link opening a new tab, plus the
 * Google Docs title when it differs), Labels, Status (whether the agent can read it, issue 13, and
 * 'Referenced'), Actions (Sync now, edit, delete). Scrolls above 12rem with a sticky header.
 */
export function DocumentsTable({
  documents,
  referenced,
  onEdit,
  onDelete,
  onSync,
  deletingId,
  syncRequestId,
  agentEmail,
}: DocumentsTableProps) {
  const now = useNow();
  if (documents.length === 0) {
    return (
      <div className="documents-empty">
        <FileTextOutlined aria-hidden="true" className="documents-empty__icon" />
        <p className="documents-empty__title">No documents linked</p>
        <p className="documents-muted">
          Add documents shared from Google Drive to give this agent its knowledge.
        </p>
      </div>
    );
  }
  return (
    <div className="documents-table" data-testid="documents-table-scroll" tabIndex={0} role="region" aria-label="Linked documents">
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Labels</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {documents.map((doc) => {
            const driveTitle = differingDriveTitle(doc);
            const syncing = isSyncing(doc) || syncRequestId === doc.id;
            const syncDisabled = !canSyncNow(doc) || syncRequestId === doc.id || deletingId === doc.id;
            return (
              <tr key={doc.id}>
                <td>
                  <a href={doc.url} target="_blank" rel="noopener noreferrer" className="documents-table__link">
                    {doc.name}
                    <ExportOutlined aria-hidden="true" className="documents-table__external" />
                  </a>
                  {driveTitle && (
                    <span className="documents-table__drive-title" data-testid="drive-title">
                      Google Docs title: {driveTitle}
                    </span>
                  )}
                </td>
                <td>
                  {doc.labels.length > 0 ? (
                    <span className="documents-labels">
                      {doc.labels.map((label) => (
                        <span key={label} className="documents-badge documents-badge--gray">
                          {label}
                        </span>
                      ))}
                    </span>
                  ) : (
                    <span className="documents-muted" aria-label="No labels">
                      —
                    </span>
                  )}
                </td>
                <td className="documents-table__status">
                  <DocumentSyncStatus doc={doc} agentEmail={agentEmail} now={now}>
                    {referenced.has(doc.id) && (
                      <span className="documents-badge documents-badge--green" data-status="referenced">
                        Referenced
                      </span>
                    )}
                  </DocumentSyncStatus>
                </td>
                <td className="documents-table__actions">
                  <Button
                    type="text"
                    size="small"
                    icon={<SyncOutlined spin={syncing} aria-hidden="true" />}
                    aria-label={`Sync now ${doc.name}`}
                    title={syncDisabled && syncing ? 'Syncing…' : 'Sync now'}
                    onClick={() => onSync(doc)}
                    disabled={syncDisabled}
                  />
                  <Button
                    type="text"
                    size="small"
                    icon={<EditOutlined aria-hidden="true" />}
                    aria-label={`Edit ${doc.name}`}
                    title="Edit"
                    onClick={() => onEdit(doc)}
                    disabled={deletingId === doc.id}
                  />
                  <Button
                    type="text"
                    size="small"
                    danger
                    icon={<DeleteOutlined aria-hidden="true" />}
                    aria-label={`Delete ${doc.name}`}
                    title="Delete"
                    onClick={() => onDelete(doc)}
                    disabled={deletingId === doc.id}
                  />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
