/**
 * The agent editor's addresses (issue 29): `/dashboard/agentic-users/{id}` opens an agent's editor on its
 * first tab, `/dashboard/agentic-users/{id}/{tab}` on that tab. Reload, Back/Forward and shared links work.
 */

/** The agent list; the editor's addresses live below it. */
export const AGENTS_PATH = '/dashboard/agentic-users';

/** The editor's tabs in their order, by the name they have in the address. */
export const EDITOR_TABS = ['instructions', 'users', 'settings', 'chat', 'channels', 'api'] as const;

export type EditorTab = (typeof EDITOR_TABS)[number];

export const DEFAULT_EDITOR_TAB: EditorTab = 'instructions';

/** The tabs whose edits Save Changes saves: the Save Changes bar shows only on these. */
export const SAVE_CHANGES_TABS: ReadonlySet<EditorTab> = new Set<EditorTab>(['instructions', 'settings']);

export function isEditorTab(value: unknown): value is EditorTab {
  return typeof value === 'string' && (EDITOR_TABS as readonly string[]).includes(value);
}

/** The editor's address for an agent, on a tab (no tab: the first tab's short address). */
export function editorPath(agentId: string, tab?: EditorTab): string {
  const base = `${AGENTS_PATH}/${encodeURIComponent(agentId)}`;
  return tab ? `${base}/${tab}` : base;
}

/** The tab an address names: none → the first tab; an unknown name → null (the address is corrected). */
export function tabOf(segment: string | undefined): EditorTab | null {
  if (segment === undefined || segment === '') return DEFAULT_EDITOR_TAB;
  return isEditorTab(segment) ? segment : null;
}

/** The agent id of an editor address, or null for any other path (the list included). */
export function editorAgentIdOf(pathname: string): string | null {
  const prefix = `${AGENTS_PATH}/`;
  if (!pathname.startsWith(prefix)) return null;
  const id = pathname.slice(prefix.length).split('/')[0];
  if (!id) return null;
  try {
    return decodeURIComponent(id);
  } catch {
    return id;
  }
}
