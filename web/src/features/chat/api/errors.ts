import { ApiError, requestIdOf } from '@/lib/api-client';

/** A failed conversations call: `message` is the server's human text ('' when it had none). */
export class ChatApiError extends ApiError {
  constructor(
    message: string,
    status: number,
    readonly code: string = '',
    requestId?: string,
  ) {
    super(message, status, { requestId });
    this.name = 'ChatApiError';
  }
}

/** Reads the platform error body `{error, message}`; anything else yields an empty message. */
export async function readChatError(response: Response): Promise<ChatApiError> {
  let message = '';
  let code = '';
  try {
    const body = JSON.parse(await response.text()) as { error?: unknown; message?: unknown };
    if (typeof body?.message === 'string') message = body.message;
    if (typeof body?.error === 'string') code = body.error;
  } catch {
    // not JSON: no server message
  }
  return new ChatApiError(message, response.status, code, requestIdOf(response));
}

/** The text to show for a failed call: the server's message, else `fallback`. */
export function chatErrorText(error: unknown, fallback: string): string {
  if (error instanceof ChatApiError) return error.message || fallback;
  if (error instanceof Error && error.message && !(error instanceof TypeError)) return error.message;
  return fallback;
}
