import { beforeEach, describe, expect, it, vi } from 'vitest';
import { type ApiCall, type FakeApi, fakeApi, text } from '@/test/fake-api';
import { createFakeSdk, fakeIdentity } from '@/test/fake-firebase';

const fake = createFakeSdk();
vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => fake.sdk) }));

const { api: client, ApiError, apiRequest, errorRequestId, getIdToken } = await import('./api-client');
const { defaultQueryFn } = await import('./query-client');

let server: FakeApi;

beforeEach(() => {
  fake.auth.currentUser = null;
  server = fakeApi();
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
    server.use({ 'POST /api/agents': { success: true, data: { id: 1 } } });

    const body = await client.post('/api/agents', { name: 'Tutor' });

    expect(body).toEqual({ success: true, data: { id: 1 } });
    const [{ input, init, headers }] = server.calls as [ApiCall];
    expect(input).toBe('/api/agents');
    expect(init.method).toBe('POST');
    expect(init.credentials).toBe('include');
    expect(headers.get('Authorization')).toBe('Bearer token-123');
    expect(headers.get('Content-Type')).toBe('application/json');
    expect(init.body).toBe(JSON.stringify({ name: 'Tutor' }));
  });

  it('does not call fetch without a user', async () => {
    await expect(client.get('/api/agents')).rejects.toThrow(
      'Authentication token not available. User must be logged in.',
    );
    expect(server.fetch).not.toHaveBeenCalled();
  });

  it("turns a non-ok response into '<status>: <body text>'", async () => {
    fake.auth.currentUser = fakeIdentity();
    server.use({ 'GET /api/agents/x': () => text('{"error":"not_found"}', 404, { statusText: 'Not Found' }) });
    await expect(apiRequest('/api/agents/x')).rejects.toThrow('404: {"error":"not_found"}');
  });

  it('falls back to the status text when the body is empty', async () => {
    fake.auth.currentUser = fakeIdentity();
    server.use({ 'GET /api/agents': () => text('', 502, { statusText: 'Bad Gateway' }) });
    await expect(apiRequest('/api/agents')).rejects.toThrow('502: Bad Gateway');
  });
});

describe('defaultQueryFn', () => {
  it('GETs the first element of the query key as JSON with the token', async () => {
    fake.auth.currentUser = fakeIdentity();
    server.use({ 'GET /api/activities': [1, 2] });
    const result = await (defaultQueryFn as (ctx: unknown) => Promise<unknown>)({
      queryKey: ['/api/activities', { page: 1 }],
      signal: new AbortController().signal,
    });
    expect(result).toEqual([1, 2]);
    const [{ input, init, headers }] = server.calls as [ApiCall];
    expect(input).toBe('/api/activities');
    expect(init.method).toBe('GET');
    expect(init.credentials).toBe('include');
    expect(headers.get('Authorization')).toBe('Bearer token-123');
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
    server.use({
      'GET /api/agents': () => text('{"error":"conflict"}', 409, { statusText: 'Conflict', headers: { 'X-Request-Id': 'abc123' } }),
    });
    const error = await apiRequest('/api/agents').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ message: '409: {"error":"conflict"}', status: 409, requestId: 'abc123' });
    expect(errorRequestId(error)).toBe('abc123');
  });

  it('has no request id when the response had none', async () => {
    fake.auth.currentUser = fakeIdentity();
    server.use({ 'GET /api/agents': () => text('', 500, { statusText: 'Internal Server Error' }) });
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
