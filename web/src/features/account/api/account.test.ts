import { describe, expect, it, vi } from 'vitest';
import { fakeApi, json, noContent, text } from '@/test/fake-api';

const identity = { getIdToken: vi.fn(async () => 'token-1') };
vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => ({ auth: { currentUser: identity } })) }));

const { deleteAccount, revokeSessions, ACCOUNT_PATH, REVOKE_SESSIONS_PATH } = await import('./account');

describe('account API', () => {
  it('revokes the sessions and deletes the account with the bearer token', async () => {
    const api = fakeApi({ [`POST ${REVOKE_SESSIONS_PATH}`]: noContent, [`DELETE ${ACCOUNT_PATH}`]: noContent });
    await revokeSessions();
    await deleteAccount();
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual([`POST ${REVOKE_SESSIONS_PATH}`, `DELETE ${ACCOUNT_PATH}`]);
    expect(api.calls[0]!.headers.get('Authorization')).toBe('Bearer token-1');
  });

  it("rejects with the server's reason", async () => {
    const message = 'Your wallet holds $12.34: spend or withdraw it before deleting your account.';
    const api = fakeApi({ [`DELETE ${ACCOUNT_PATH}`]: () => json({ error: 'account_not_empty', message }, 409) });
    await expect(deleteAccount()).rejects.toMatchObject({ message, status: 409 });
    api.use({ [`DELETE ${ACCOUNT_PATH}`]: () => text('', 500) });
    await expect(deleteAccount()).rejects.toMatchObject({ status: 500, message: 'Your account could not be deleted. Try again later.' });
  });
});
