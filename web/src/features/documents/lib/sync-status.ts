import { formatDistance } from 'date-fns';
import type { AgentDocument } from '../types';

/** What the Status column shows about the agent's access to a document (issue 13). */
export type SyncDisplay = 'syncing' | 'shared' | 'not_shared' | 'error';

/** A sync job is queued or running for this document (the list is polled meanwhile). */
export function isSyncing(doc: Pick<AgentDocument, 'syncState'>): boolean {
  return doc.syncState === 'queued' || doc.syncState === 'syncing';
}

/**
 * Whether Sync now is offered: not while a sync runs or is freshly queued (it is de-duplicated
 * anyway), but yes when a failed attempt waits for its automatic retry (queued with a `syncError`):
 * Sync now then retries at once.
 */
export function canSyncNow(doc: Pick<AgentDocument, 'syncState' | 'syncError'>): boolean {
  if (doc.syncState === 'syncing') return false;
  if (doc.syncState === 'queued') return Boolean(doc.syncError?.trim());
  return true;
}

/**
 * 'syncing' while a sync is queued or running, else the server's sharing check. An unknown
 * sharingStatus reads as 'error' (the service only sends the three of spec §3).
 */
export function syncDisplay(doc: Pick<AgentDocument, 'syncState' | 'sharingStatus'>): SyncDisplay {
  if (isSyncing(doc)) return 'syncing';
  if (doc.sharingStatus === 'shared') return 'shared';
  if (doc.sharingStatus === 'not_shared') return 'not_shared';
  return 'error';
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** '1 token', '1,234 tokens'; null when the size is unknown. */
export function formatTokenCount(count: number | null | undefined): string | null {
  if (typeof count !== 'number' || !Number.isFinite(count) || count < 0) return null;
  return `${integer.format(count)} ${count === 1 ? 'token' : 'tokens'}`;
}

/**
 * 'Synced 2 minutes ago' (date-fns distance wording, as the dashboard's activity feed), or with
 * `prefix` 'Last synced' for a document whose last read failed; null if unknown.
 */
export function formatSyncedAgo(
  syncedAt: string | null | undefined,
  now: Date | number = Date.now(),
  prefix = 'Synced',
): string | null {
  if (!syncedAt) return null;
  const then = new Date(syncedAt);
  if (Number.isNaN(then.getTime())) return null;
  // A server clock slightly ahead of ours must not read 'in a few seconds'.
  const current = Math.max(typeof now === 'number' ? now : now.getTime(), then.getTime());
  return `${prefix} ${formatDistance(then, current, { addSuffix: true })}`;
}

/**
 * The service's reason for a Not shared row, without the advice the row already gives once
 * ("Share this document with … so the agent can read it."): sentences asking to share it or to
 * press Sync now are dropped, and so is a reason that then only says the agent cannot open it.
 * What remains is news (the text was removed, or the last synced text is still used); null if none.
 */
export function notSharedReason(reason: string | null | undefined): string | null {
  const text = reason?.trim();
  if (!text) return null;
  const sentences = text.split(/(?<=[.!?])\s+/);
  const kept = sentences
    .map((s) => s.trim())
    .filter((s) => s && !/^share it with\b/i.test(s) && !/\bpress sync now\b/i.test(s))
    .filter((s) => !/cannot open this document\.?$/i.test(s) && !/refused the agent \(.*\) access to this document\.?$/i.test(s));
  return kept.length > 0 ? kept.join(' ') : null;
}

/** The Google Docs title when it is known and differs from the name the creator typed. */
export function differingDriveTitle(doc: Pick<AgentDocument, 'name' | 'driveTitle'>): string | null {
  const title = doc.driveTitle?.trim();
  return title && title !== doc.name ? title : null;
}
