import { afterEach, describe, expect, it, vi } from 'vitest';

const identity = { getIdToken: vi.fn(async () => 'token-1') };
vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => ({ auth: { currentUser: identity } })) }));

const { deleteAccount, revokeSessions, ACCOUNT_PATH, REVOKE_SESSIONS_PATH } = await import('./account');

function stubFetch(status: number, body?: unknown) {
  const fetchMock = vi.fn(async () => new Response(body === undefined ? null : JSON.stringify(body), { status }));
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

describe('account API', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('revokes the sessions and deletes the account with the bearer token', async () => {
    const fetchMock = stubFetch(204);
    await revokeSessions();
    await deleteAccount();
    const calls = fetchMock.mock.calls as unknown as [string, RequestInit][];
    expect(calls.map(([p, i]) => `${i.method} ${p}`)).toEqual([`POST ${REVOKE_SESSIONS_PATH}`, `DELETE ${ACCOUNT_PATH}`]);
    expect(new Headers(calls[0][1].headers).get('Authorization')).toBe('Bearer token-1');
  });

  it("rejects with the server's reason", async () => {
    const message = 'Your wallet holds $12.34: spend or withdraw it before deleting your account.';
    stubFetch(409, { error: 'account_not_empty', message });
    await expect(deleteAccount()).rejects.toMatchObject({ message, status: 409 });
    stubFetch(500);
    await expect(deleteAccount()).rejects.toMatchObject({ status: 500, message: 'Your account could not be deleted. Try again later.' });
  });
});
