/**
 * Authenticated calls to the product's `/api/*` endpoints (spec §7 Conventions):
 * every call force-refreshes the Firebase ID token, sends it as a Bearer token and
 * includes credentials. A response that is not ok becomes an ApiError (with the response's
 * `x-request-id` as `requestId`).
 */
import type { User as FirebaseUser } from 'firebase/auth';
import { ApiError, requestIdOf } from './api-error';
import { loadFirebase } from './firebase';

export { ApiError, errorRequestId, REQUEST_ID_HEADER, requestIdOf } from './api-error';

export const NOT_LOGGED_IN_MESSAGE = 'Authentication token not available. User must be logged in.';
export const TOKEN_FAILURE_MESSAGE = 'Failed to get ID token';

/** Returns a freshly minted ID token of `user` (default: the current Firebase user). */
export async function getIdToken(user?: FirebaseUser | null): Promise<string> {
  const identity = user ?? (await loadFirebase()).auth.currentUser;
  if (!identity) {
    throw new Error(NOT_LOGGED_IN_MESSAGE);
  }
  try {
    return await identity.getIdToken(true);
  } catch (error) {
    console.error('Error getting ID token:', error);
    throw new Error(TOKEN_FAILURE_MESSAGE, { cause: error });
  }
}

export interface ApiRequestOptions extends Omit<RequestInit, 'body'> {
  /** Sent as JSON when defined. */
  body?: unknown;
  /** The identity to authenticate as (default: the current Firebase user). */
  user?: FirebaseUser | null;
}

/** Performs an authenticated request and returns the raw Response, whatever its status. */
export async function authFetch(path: string, options: ApiRequestOptions = {}): Promise<Response> {
  const { body, user, headers, ...init } = options;
  const token = await getIdToken(user);
  const merged = new Headers(headers);
  merged.set('Authorization', `Bearer ${token}`);
  if (body !== undefined) {
    merged.set('Content-Type', 'application/json');
  }
  return fetch(path, {
    ...init,
    headers: merged,
    credentials: 'include',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/**
 * The spec's generic error: `${status}: ${body text}`, falling back to the status text; it carries the status and
 * the response's request id.
 */
export async function responseError(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  return new ApiError(`${response.status}: ${text || response.statusText}`, response.status, {
    requestId: requestIdOf(response),
  });
}

async function readJson<T>(response: Response): Promise<T> {
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Authenticated request; resolves to the parsed JSON body, rejects on a non-ok status. */
export async function apiRequest<T = unknown>(path: string, options: ApiRequestOptions = {}): Promise<T> {
  const response = await authFetch(path, options);
  if (!response.ok) {
    throw await responseError(response);
  }
  return readJson<T>(response);
}

export const api = {
  get: <T = unknown>(path: string, options?: ApiRequestOptions) =>
    apiRequest<T>(path, { ...options, method: 'GET' }),
  post: <T = unknown>(path: string, body?: unknown, options?: ApiRequestOptions) =>
    apiRequest<T>(path, { ...options, method: 'POST', body }),
  patch: <T = unknown>(path: string, body?: unknown, options?: ApiRequestOptions) =>
    apiRequest<T>(path, { ...options, method: 'PATCH', body }),
  put: <T = unknown>(path: string, body?: unknown, options?: ApiRequestOptions) =>
    apiRequest<T>(path, { ...options, method: 'PUT', body }),
  delete: <T = unknown>(path: string, options?: ApiRequestOptions) =>
    apiRequest<T>(path, { ...options, method: 'DELETE' }),
};
