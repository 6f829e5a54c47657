import { CopyOutlined, LoadingOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useId, type ReactNode } from 'react';
import { toast } from '@/components/toast';
import { copyToClipboard } from '../lib/clipboard';
import { formatSyncedAgo, formatTokenCount, notSharedReason, syncDisplay, type SyncDisplay } from '../lib/sync-status';
import type { AgentDocument } from '../types';

interface DocumentSyncStatusProps {
  doc: AgentDocument;
  /** The agent's e-mail address (a Not shared document is shared with it). */
  agentEmail?: string;
  /** The current time, ticking, for 'Synced … ago'. */
  now: number;
  /** Other badges shown next to the status badge ('Referenced'). */
  children?: ReactNode;
}

const BADGES: Record<SyncDisplay, { text: string; className: string }> = {
  syncing: { text: 'Syncing…', className: 'documents-badge--gray' },
  shared: { text: 'Shared', className: 'documents-badge--blue' },
  not_shared: { text: 'Not shared', className: 'documents-badge--amber' },
  error: { text: 'Error', className: 'documents-badge--red' },
};

/** Fallback reason of an Error status without `syncError`. */
export const UNKNOWN_SYNC_ERROR = 'The document could not be read.';

/**
 * Whether the agent can read a linked document (issue 13), in the Status column: Syncing…,
 * Shared (size in tokens, when it was last synced), Not shared (the hint to share it with the
 * agent's address + Copy address, and the service's reason) or Error (the reason). A sync waiting
 * for its retry shows the failure too, and a failed one when the text was last read. The badge is a polite live region, so the end of
 * a sync is announced.
 */
export function DocumentSyncStatus({ doc, agentEmail, now, children }: DocumentSyncStatusProps) {
  const display = syncDisplay(doc);
  const badge = BADGES[display];
  const hintId = useId();
  const tokens = display === 'shared' ? formatTokenCount(doc.tokenCount) : null;
  const synced = formatSyncedAgo(doc.syncedAt, now, display === 'shared' ? 'Synced' : 'Last synced');
  // The service's reason: why it is not shared / failed, or that a failed attempt is being retried.
  // A Not shared row gives its advice once (the hint below): the reason keeps only what is news.
  const reason = display === 'not_shared' ? notSharedReason(doc.syncError) : doc.syncError?.trim() || null;

  const copyAddress = async () => {
    if (!agentEmail) return;
    if (await copyToClipboard(agentEmail)) {
      toast({ title: 'Address copied', description: `${agentEmail} is on the clipboard. Share the document with it in Google Docs.` });
    } else {
      toast({ title: 'Could not copy the address', description: `Copy it by hand: ${agentEmail}`, variant: 'destructive' });
    }
  };

  return (
    <div className="documents-sync" data-sync-status={display}>
      <div className="documents-sync__badges">
        <span aria-live="polite">
          <span className={`documents-badge ${badge.className}`} data-testid="sync-status">
            {display === 'syncing' && <LoadingOutlined spin aria-hidden="true" />}
            {badge.text}
          </span>
        </span>
        {children}
      </div>
      {display === 'not_shared' && (
        <p id={hintId} className="documents-sync__detail">
          {agentEmail
            ? `Share this document with ${agentEmail} so the agent can read it.`
            : "Share this document with the agent's e-mail address so the agent can read it."}
        </p>
      )}
      {display === 'error' && <p className="documents-sync__detail documents-sync__error">{reason ?? UNKNOWN_SYNC_ERROR}</p>}
      {(display === 'not_shared' || display === 'syncing') && reason && (
        <p className="documents-sync__detail documents-muted" data-testid="sync-reason">
          {reason}
        </p>
      )}
      {(tokens || synced) && (
        <p className="documents-sync__detail documents-muted">
          {tokens && <span data-testid="token-size">{tokens}</span>}
          {tokens && synced && <span aria-hidden="true"> · </span>}
          {synced && (
            <time dateTime={doc.syncedAt ?? undefined} title={new Date(doc.syncedAt!).toLocaleString()}>
              {synced}
            </time>
          )}
        </p>
      )}
      {display === 'not_shared' && agentEmail && (
        <Button size="small" icon={<CopyOutlined aria-hidden="true" />} aria-describedby={hintId} onClick={() => void copyAddress()}>
          Copy address
        </Button>
      )}
    </div>
  );
}
