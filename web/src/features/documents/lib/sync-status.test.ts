import { describe, expect, it } from 'vitest';
import { canSyncNow, differingDriveTitle, formatSyncedAgo, formatTokenCount, isSyncing, syncDisplay } from './sync-status';

describe('sync status', () => {
  it('is syncing while queued or syncing, else shows the sharing check', () => {
    expect(isSyncing({ syncState: 'queued' })).toBe(true);
    expect(isSyncing({ syncState: 'syncing' })).toBe(true);
    expect(isSyncing({ syncState: 'synced' })).toBe(false);
    expect(isSyncing({})).toBe(false);
    expect(syncDisplay({ syncState: 'syncing', sharingStatus: 'shared' })).toBe('syncing');
    expect(syncDisplay({ syncState: 'synced', sharingStatus: 'shared' })).toBe('shared');
    expect(syncDisplay({ syncState: 'synced', sharingStatus: 'not_shared' })).toBe('not_shared');
    expect(syncDisplay({ syncState: 'synced', sharingStatus: 'error' })).toBe('error');
    expect(syncDisplay({ sharingStatus: 'weird' })).toBe('error');
  });

  it('offers Sync now unless a sync runs or is freshly queued', () => {
    expect(canSyncNow({ syncState: 'synced' })).toBe(true);
    expect(canSyncNow({})).toBe(true);
    expect(canSyncNow({ syncState: 'syncing', syncError: 'x' })).toBe(false);
    expect(canSyncNow({ syncState: 'queued', syncError: null })).toBe(false);
    expect(canSyncNow({ syncState: 'queued', syncError: 'Drive is busy. Retrying automatically.' })).toBe(true);
  });

  it('formats token counts', () => {
    expect(formatTokenCount(0)).toBe('0 tokens');
    expect(formatTokenCount(1)).toBe('1 token');
    expect(formatTokenCount(1234)).toBe('1,234 tokens');
    expect(formatTokenCount(1_234_567)).toBe('1,234,567 tokens');
    expect(formatTokenCount(null)).toBeNull();
    expect(formatTokenCount(undefined)).toBeNull();
    expect(formatTokenCount(Number.NaN)).toBeNull();
  });

  it('formats the last sync relative to now', () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    expect(formatSyncedAgo('2026-03-01T11:57:55Z', now)).toBe('Synced 2 minutes ago');
    expect(formatSyncedAgo('2026-03-01T11:59:50Z', now)).toBe('Synced less than a minute ago');
    expect(formatSyncedAgo('2026-03-01T10:59:00Z', now)).toBe('Synced about 1 hour ago');
    // A server clock a little ahead never reads as the future.
    expect(formatSyncedAgo('2026-03-01T12:00:03Z', now)).toBe('Synced less than a minute ago');
    expect(formatSyncedAgo('2026-03-01T11:57:55Z', now, 'Last synced')).toBe('Last synced 2 minutes ago');
    expect(formatSyncedAgo(null, now)).toBeNull();
    expect(formatSyncedAgo('not a date', now)).toBeNull();
  });

  it('shows the Drive title only when it differs from the name', () => {
    expect(differingDriveTitle({ name: 'Syllabus', driveTitle: 'CS101 Syllabus' })).toBe('CS101 Syllabus');
    expect(differingDriveTitle({ name: 'Syllabus', driveTitle: 'Syllabus' })).toBeNull();
    expect(differingDriveTitle({ name: 'Syllabus', driveTitle: '  ' })).toBeNull();
    expect(differingDriveTitle({ name: 'Syllabus', driveTitle: null })).toBeNull();
    expect(differingDriveTitle({ name: 'Syllabus' })).toBeNull();
  });
});

describe('notSharedReason', () => {
  it('drops the advice the row already gives, keeps the news', async () => {
    const { notSharedReason } = await import('./sync-status');
    const a = 'tutor@agents.example';
    expect(notSharedReason(`The agent (${a}) cannot open this document. Share it with that address in Google Docs, then press Sync now.`)).toBeNull();
    expect(
      notSharedReason(
        `The document is no longer shared with the agent (${a}): its text was removed from the agent's knowledge. Share it with that address and press Sync now.`,
      ),
    ).toBe(`The document is no longer shared with the agent (${a}): its text was removed from the agent's knowledge.`);
    expect(
      notSharedReason(`Google Drive refused the agent (${a}) access to this document. The last synced text is still used until the next check confirms it.`),
    ).toBe('The last synced text is still used until the next check confirms it.');
    expect(notSharedReason(null)).toBeNull();
  });
});
