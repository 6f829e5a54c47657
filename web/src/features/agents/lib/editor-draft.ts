/**
 * The local copy of an agent's unsaved instructions (issue 29, "never lose work"): kept in localStorage per
 * signed-in user and agent while the editor holds changes, removed when they are saved or discarded, and
 * offered back ("Restore your unsaved draft?") when the editor opens again after a crash or a reload.
 */

const PREFIX = 'agentic.editor-draft.v1';

export interface LocalDraft {
  instructions: string;
  /** When the draft was written (ISO time). */
  savedAt: string;
}

export function draftKey(uid: string, agentId: string): string {
  return `${PREFIX}:${uid}:${agentId}`;
}

function storage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    // Storage disabled (privacy settings): no local drafts.
    return null;
  }
}

export function readDraft(uid: string, agentId: string): LocalDraft | null {
  const raw = storage()?.getItem(draftKey(uid, agentId));
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<LocalDraft> | null;
    if (!value || typeof value.instructions !== 'string') return null;
    return { instructions: value.instructions, savedAt: typeof value.savedAt === 'string' ? value.savedAt : '' };
  } catch {
    return null;
  }
}

export function writeDraft(uid: string, agentId: string, instructions: string, now: Date = new Date()): void {
  try {
    storage()?.setItem(draftKey(uid, agentId), JSON.stringify({ instructions, savedAt: now.toISOString() }));
  } catch {
    // Quota exceeded or storage disabled: the in-memory draft and the discard question remain.
  }
}

export function clearDraft(uid: string, agentId: string): void {
  try {
    storage()?.removeItem(draftKey(uid, agentId));
  } catch {
    // nothing to clear
  }
}
