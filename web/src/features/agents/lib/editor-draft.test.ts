import { afterEach, describe, expect, it } from 'vitest';
import { clearDraft, draftKey, readDraft, writeDraft } from './editor-draft';

afterEach(() => localStorage.clear());

describe('the local instructions draft (issue 29)', () => {
  it('is kept per user and agent, and cleared', () => {
    writeDraft('u1', 'a1', 'Be kind.', new Date('2026-03-01T10:00:00Z'));
    expect(readDraft('u1', 'a1')).toEqual({ instructions: 'Be kind.', savedAt: '2026-03-01T10:00:00.000Z' });
    expect(readDraft('u2', 'a1')).toBeNull();
    expect(readDraft('u1', 'a2')).toBeNull();
    expect(localStorage.getItem(draftKey('u1', 'a1'))).not.toBeNull();

    clearDraft('u1', 'a1');
    expect(readDraft('u1', 'a1')).toBeNull();
  });

  it('ignores what is not a draft', () => {
    localStorage.setItem(draftKey('u1', 'a1'), 'not json');
    expect(readDraft('u1', 'a1')).toBeNull();
    localStorage.setItem(draftKey('u1', 'a1'), JSON.stringify({ instructions: 42 }));
    expect(readDraft('u1', 'a1')).toBeNull();
    localStorage.setItem(draftKey('u1', 'a1'), JSON.stringify({ instructions: '' }));
    expect(readDraft('u1', 'a1')).toEqual({ instructions: '', savedAt: '' });
  });
});
