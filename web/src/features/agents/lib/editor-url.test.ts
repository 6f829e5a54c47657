import { describe, expect, it } from 'vitest';
import { AGENTS_PATH, editorAgentIdOf, editorPath, EDITOR_TABS, isEditorTab, SAVE_CHANGES_TABS, tabOf } from './editor-url';

describe('the editor addresses (issue 29)', () => {
  it('names the six tabs as the address does, in the editor order', () => {
    expect(EDITOR_TABS).toEqual(['instructions', 'users', 'settings', 'chat', 'channels', 'api']);
    expect(isEditorTab('api')).toBe(true);
    expect(isEditorTab('Settings')).toBe(false);
    expect(isEditorTab(undefined)).toBe(false);
  });

  it('builds /dashboard/agentic-users/{id} and /dashboard/agentic-users/{id}/{tab}', () => {
    expect(AGENTS_PATH).toBe('/dashboard/agentic-users');
    expect(editorPath('a1')).toBe('/dashboard/agentic-users/a1');
    expect(editorPath('a1', 'channels')).toBe('/dashboard/agentic-users/a1/channels');
    expect(editorPath('a/b', 'api')).toBe('/dashboard/agentic-users/a%2Fb/api');
  });

  it('maps a missing tab to Instructions & Documents and an unknown one to null', () => {
    expect(tabOf(undefined)).toBe('instructions');
    expect(tabOf('')).toBe('instructions');
    expect(tabOf('users')).toBe('users');
    expect(tabOf('billing')).toBeNull();
  });

  it('reads the agent id of an editor address only', () => {
    expect(editorAgentIdOf('/dashboard/agentic-users/a1')).toBe('a1');
    expect(editorAgentIdOf('/dashboard/agentic-users/a1/settings')).toBe('a1');
    expect(editorAgentIdOf('/dashboard/agentic-users/a%2Fb/api')).toBe('a/b');
    expect(editorAgentIdOf('/dashboard/agentic-users')).toBeNull();
    expect(editorAgentIdOf('/dashboard/agentic-users/')).toBeNull();
    expect(editorAgentIdOf('/dashboard/wallet')).toBeNull();
  });

  it('shows Save Changes only on the tabs whose edits it saves', () => {
    expect(EDITOR_TABS.filter((t) => SAVE_CHANGES_TABS.has(t))).toEqual(['instructions', 'settings']);
  });
});
