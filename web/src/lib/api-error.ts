/**
 * Failed `/api/*` calls and their request ids. Every /api response carries an `x-request-id` header (the id the
 * gateway and the services log the request under); an error made from a failed response keeps it as `requestId`
 * so an error toast can show it ("Reference: <id>") for support to find the request in the logs.
 *
 * No dependencies: the toasts import it without pulling in the API client.
 */

export const REQUEST_ID_HEADER = 'x-request-id';

/** The request id a response was served under, when it has one (a stand-in without headers has none). */
export function requestIdOf(response: Pick<Response, 'headers'>): string | undefined {
  const headers = response.headers as Headers | undefined;
  return headers?.get?.(REQUEST_ID_HEADER)?.trim() || undefined;
}

export interface ApiErrorOptions {
  /** The response's `x-request-id`. */
  requestId?: string;
  cause?: unknown;
}

/** A failed `/api/*` call: the HTTP status and, when the response had one, its request id. */
export class ApiError extends Error {
  readonly status: number;
  readonly requestId?: string;

  constructor(message: string, status: number, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.status = status;
    if (options.requestId) this.requestId = options.requestId;
  }
}

/**
 * The request id of a failure: its `requestId` (an ApiError, or any error carrying one), else that of its `cause`
 * chain; undefined when there is none.
 */
export function errorRequestId(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { requestId } = current as { requestId?: unknown };
    if (typeof requestId === 'string' && requestId.trim()) return requestId.trim();
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
