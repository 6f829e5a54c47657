import { ApiError, authFetch, requestIdOf } from '@/lib/api-client';

export const PUBLIC_AGENT_INTEREST_PATH = '/api/user/public-agent-interest';
/** Spec §8: the 'Error' toast shows the server message, or this fallback. */
export const REGISTER_INTEREST_FALLBACK = 'Failed to register interest.';

async function serverMessage(response: Response): Promise<string | undefined> {
  try {
    const body: unknown = await response.json();
    if (typeof body === 'object' && body !== null && 'message' in body) {
      const message = (body as { message: unknown }).message;
      if (typeof message === 'string' && message !== '') return message;
    }
  } catch {
    // not JSON: fall back
  }
  return undefined;
}

/**
 * POST /api/user/public-agent-interest (spec §7): the marketplace page and the editor send no body;
 * the create dialog sends `{ idToken }`. Rejects with the server's message, or with
 * 'Failed to register interest.' when there is none (network, token or non-JSON failures).
 */
export async function registerPublicAgentInterest(body?: { idToken: string }): Promise<void> {
  let response: Response;
  try {
    response = await authFetch(PUBLIC_AGENT_INTEREST_PATH, { method: 'POST', body });
  } catch (error) {
    console.error('Error registering interest:', error);
    throw new Error(REGISTER_INTEREST_FALLBACK, { cause: error });
  }
  if (!response.ok) {
    throw new ApiError((await serverMessage(response)) ?? REGISTER_INTEREST_FALLBACK, response.status, {
      requestId: requestIdOf(response),
    });
  }
}
