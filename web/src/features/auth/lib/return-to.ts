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
