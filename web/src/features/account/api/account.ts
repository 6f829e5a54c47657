import { authFetch } from '@/lib/api-client';
import { ApiError, requestIdOf } from '@/lib/api-error';

export const REVOKE_SESSIONS_PATH = '/api/user/sessions/revoke';
export const ACCOUNT_PATH = '/api/user/account';

/** Turns a non-ok response into an ApiError carrying the server's message. */
async function failure(response: Response, fallback: string): Promise<ApiError> {
  let message = fallback;
  try {
    const body = (await response.json()) as { message?: unknown } | null;
    if (typeof body?.message === 'string' && body.message !== '') message = body.message;
  } catch {
    // not JSON: keep the fallback
  }
  return new ApiError(message, response.status, { requestId: requestIdOf(response) });
}

/** POST /api/user/sessions/revoke → 204: every refresh token of the caller is revoked. */
export async function revokeSessions(): Promise<void> {
  const response = await authFetch(REVOKE_SESSIONS_PATH, { method: 'POST' });
  if (!response.ok) throw await failure(response, 'Could not sign out everywhere. Try again.');
}

/**
 * DELETE /api/user/account → 204. 409 account_not_empty while the wallet holds money: the error's message
 * says why ("Your wallet holds $12.34: spend or withdraw it before deleting your account.").
 */
export async function deleteAccount(): Promise<void> {
  const response = await authFetch(ACCOUNT_PATH, { method: 'DELETE' });
  if (!response.ok) throw await failure(response, 'Your account could not be deleted. Try again later.');
}
