import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFakeSdk, fakeIdentity } from '@/test/fake-firebase';

const fake = createFakeSdk();
vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => fake.sdk) }));

const { api, ApiError, apiRequest, errorRequestId, getIdToken } = await import('./api-client');
const { defaultQueryFn } = await import('./query-client');

const fetchMock = vi.fn<typeof fetch>();

beforeEach(() => {
  fake.auth.currentUser = null;
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('getIdToken', () => {
  it('fails without a signed-in user', async () => {
    await expect(getIdToken()).rejects.toThrow('Authentication token not available. User must be logged in.');
  });

  it('force-refreshes the token', async () => {
    const user = fakeIdentity();
    fake.auth.currentUser = user;
    await expect(getIdToken()).resolves.toBe('token-123');
    expect(user.getIdToken).toHaveBeenCalledWith(true);
  });

  it("reports 'Failed to get ID token' when the token cannot be obtained", async () => {
    const user = fakeIdentity();
    user.getIdToken.mockRejectedValueOnce(new Error('network'));
    fake.auth.currentUser = user;
    vi.spyOn(console, 'error').mockImplementation(() => {});
    await expect(getIdToken()).rejects.toThrow('Failed to get ID token');
  });
});

describe('apiRequest', () => {
  it('sends the Bearer token with credentials and a JSON body', async () => {
    fake.auth.currentUser = fakeIdentity();
    fetchMock.mockResolvedValueOnce(new Response(JSON.stringify({ success: true, data: { id: 1 } }), { status: 200 }));

    const body = await api.post('/api/agents', { name: 'Tutor' });

    expect(body).toEqual({ success: true, data: { id: 1 } });
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/agents');
    expect(init?.method).toBe('POST');
    expect(init?.credentials).toBe('include');
    const headers = new Headers(init?.headers);
    expect(headers.get('Authorization')).toBe('Bearer token-123');
    expect(headers.get('Content-Type')).toBe('application/json');
    expect(init?.body).toBe(JSON.stringify({ name: 'Tutor' }));
  });

  it('does not call fetch without a user', async () => {
    await expect(api.get('/api/agents')).rejects.toThrow(
      'Authentication token not available. User must be logged in.',
    );
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("turns a non-ok response into '<status>: <body text>'", async () => {
    fake.auth.currentUser = fakeIdentity();
    fetchMock.mockResolvedValueOnce(new Response('{"error":"not_found"}', { status: 404, statusText: 'Not Found' }));
    await expect(apiRequest('/api/agents/x')).rejects.toThrow('404: {"error":"not_found"}');
  });

  it('falls back to the status text when the body is empty', async () => {
    fake.auth.currentUser = fakeIdentity();
    fetchMock.mockResolvedValueOnce(new Response(null, { status: 502, statusText: 'Bad Gateway' }));
    await expect(apiRequest('/api/agents')).rejects.toThrow('502: Bad Gateway');
  });
});

describe('defaultQueryFn', () => {
  it('GETs the first element of the query key as JSON with the token', async () => {
    fake.auth.currentUser = fakeIdentity();
    fetchMock.mockResolvedValueOnce(new Response('[1,2]', { status: 200 }));
    const result = await (defaultQueryFn as (ctx: unknown) => Promise<unknown>)({
      queryKey: ['/api/activities', { page: 1 }],
      signal: new AbortController().signal,
    });
    expect(result).toEqual([1, 2]);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/activities');
    expect(init?.method).toBe('GET');
    expect(init?.credentials).toBe('include');
    expect(new Headers(init?.headers).get('Authorization')).toBe('Bearer token-123');
  });
});

describe('query client defaults', () => {
  it('has no retry, no refetch on focus and infinite stale time', async () => {
    const { createQueryClient } = await import('./query-client');
    const queries = createQueryClient().getDefaultOptions().queries!;
    expect(queries.retry).toBe(false);
    expect(queries.refetchOnWindowFocus).toBe(false);
    expect(queries.staleTime).toBe(Infinity);
  });
});

describe('request ids', () => {
  it("puts the response's x-request-id into the error", async () => {
    fake.auth.currentUser = fakeIdentity();
    fetchMock.mockResolvedValueOnce(
      new Response('{"error":"conflict"}', { status: 409, statusText: 'Conflict', headers: { 'X-Request-Id': 'abc123' } }),
    );
    const error = await apiRequest('/api/agents').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ message: '409: {"error":"conflict"}', status: 409, requestId: 'abc123' });
    expect(errorRequestId(error)).toBe('abc123');
  });

  it('has no request id when the response had none', async () => {
    fake.auth.currentUser = fakeIdentity();
    fetchMock.mockResolvedValueOnce(new Response(null, { status: 500, statusText: 'Internal Server Error' }));
    const error = await apiRequest('/api/agents').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as InstanceType<typeof ApiError>).requestId).toBeUndefined();
    expect(errorRequestId(error)).toBeUndefined();
  });

  it('finds the request id of an error, or of its cause; none for other values', () => {
    const failed = new ApiError('boom', 502, { requestId: 'req-1' });
    expect(errorRequestId(failed)).toBe('req-1');
    expect(errorRequestId(new Error('wrapped', { cause: failed }))).toBe('req-1');
    expect(errorRequestId(new Error('plain'))).toBeUndefined();
    expect(errorRequestId('req-1')).toBeUndefined();
    expect(errorRequestId(undefined)).toBeUndefined();
  });
});
