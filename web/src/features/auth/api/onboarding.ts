import type { User as FirebaseUser } from 'firebase/auth';
import { authFetch } from '@/lib/api-client';
import type { UserProfile } from '../lib/current-user';

export const ONBOARDING_PATH = '/api/user/onboarding';

/**
 * POST /api/user/onboarding, called every time an authenticated identity is seen.
 * The body `{ displayName }` is sent only when there is a display name (otherwise no body).
 * On a non-ok status the error body's `message` is used, else 'HTTP error! status: {code}'.
 */
export async function onboardUser(identity: FirebaseUser, displayName?: string | null): Promise<UserProfile> {
  const response = await authFetch(ONBOARDING_PATH, {
    method: 'POST',
    user: identity,
    body: displayName ? { displayName } : undefined,
  });

  if (!response.ok) {
    let message: string | undefined;
    try {
      const body: unknown = await response.json();
      if (typeof body === 'object' && body !== null && 'message' in body) {
        const candidate = (body as { message: unknown }).message;
        if (typeof candidate === 'string' && candidate !== '') message = candidate;
      }
    } catch {
      message = undefined;
    }
    throw new Error(message ?? `HTTP error! status: ${response.status}`);
  }

  const body = (await response.json()) as { data?: { user?: UserProfile } } | null;
  return body?.data?.user ?? {};
}
