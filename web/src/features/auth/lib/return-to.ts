/**
 * Where /auth sends a visitor once signed in, when a marketplace page sent them there (issue 27: "sign-in first
 * when signed out, then back here"). Carried in the router's location state as `{ returnTo }`, never in the
 * address; only marketplace paths of this app are honoured (no open redirect). Anything else: /dashboard.
 */
export interface ReturnToState {
  returnTo: string;
}

export function returnToOf(state: unknown): string | null {
  if (typeof state !== 'object' || state === null) return null;
  const value = (state as { returnTo?: unknown }).returnTo;
  if (typeof value !== 'string') return null;
  return /^\/marketplace(\/[^/\\]|$|\?)/.test(value) && !value.includes('//') ? value : null;
}

export function returnToState(path: string): ReturnToState {
  return { returnTo: path };
}

/**
 * `/auth?next=<path>` (issue 29: the invitation e-mail links to `/auth?next=/dashboard/shared`, which signs the
 * invitee in and opens Shared with me): where to go once signed in. Only a same-origin relative path is honoured
 * — it starts with one `/` (not `//` or `/\`), has no backslash or control character, resolves to this origin and
 * is not /auth itself; anything else is ignored (no open redirect).
 */
export function nextPathOf(search: string): string | null {
  const value = new URLSearchParams(search).get('next');
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return null;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return null;
  const base = 'https://app.invalid';
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return null;
  }
  if (url.origin !== base || url.pathname === '/auth' || url.pathname.startsWith('/auth/')) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}
