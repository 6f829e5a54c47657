import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { User as FirebaseUser } from 'firebase/auth';
import { fakeIdentity } from '@/test/fake-firebase';

vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => ({ auth: { currentUser: null } })) }));

const { onboardUser } = await import('./onboarding');

const fetchMock = vi.fn<typeof fetch>();
beforeEach(() => {
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

const asUser = (u: ReturnType<typeof fakeIdentity>) => u as unknown as FirebaseUser;

describe('onboardUser', () => {
  it('POSTs {displayName} with the identity token and returns data.user', async () => {
    const identity = fakeIdentity({ displayName: 'Ada' });
    fetchMock.mockResolvedValueOnce(
      new Response(JSON.stringify({ success: true, data: { user: { username: 'ada' } } }), { status: 200 }),
    );
    await expect(onboardUser(asUser(identity), 'Ada')).resolves.toEqual({ username: 'ada' });
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/user/onboarding');
    expect(init?.method).toBe('POST');
    expect(init?.body).toBe('{"displayName":"Ada"}');
    expect(new Headers(init?.headers).get('Authorization')).toBe('Bearer token-123');
    expect(identity.getIdToken).toHaveBeenCalledWith(true);
  });

  it('sends no body when the identity has no display name', async () => {
    fetchMock.mockResolvedValueOnce(new Response(JSON.stringify({ data: { user: {} } }), { status: 200 }));
    await onboardUser(asUser(fakeIdentity()), null);
    expect(fetchMock.mock.calls[0]![1]?.body).toBeUndefined();
  });

  it("uses the error body's message on failure", async () => {
    fetchMock.mockResolvedValueOnce(
      new Response(JSON.stringify({ error: 'invalid_token', message: 'Invalid or expired authentication token.' }), {
        status: 401,
      }),
    );
    await expect(onboardUser(asUser(fakeIdentity()))).rejects.toThrow('Invalid or expired authentication token.');
  });

  it("falls back to 'HTTP error! status: {code}'", async () => {
    fetchMock.mockResolvedValueOnce(new Response('oops', { status: 500 }));
    await expect(onboardUser(asUser(fakeIdentity()))).rejects.toThrow('HTTP error! status: 500');
  });
});
