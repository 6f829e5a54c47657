import { describe, expect, it, vi } from 'vitest';
import type { User as FirebaseUser } from 'firebase/auth';
import { fakeApi, json, type RouteHandler, text } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';

vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => ({ auth: { currentUser: null } })) }));

const { onboardUser } = await import('./onboarding');

/** The onboarding endpoint answers with `reply`. */
const onboardingAnswers = (reply: RouteHandler) => fakeApi({ 'POST /api/user/onboarding': reply });

const asUser = (u: ReturnType<typeof fakeIdentity>) => u as unknown as FirebaseUser;

describe('onboardUser', () => {
  it('POSTs {displayName} with the identity token and returns data.user', async () => {
    const identity = fakeIdentity({ displayName: 'Ada' });
    const api = onboardingAnswers(() => json({ success: true, data: { user: { username: 'ada' } } }));
    await expect(onboardUser(asUser(identity), 'Ada')).resolves.toEqual({ username: 'ada' });
    const [call] = api.calls;
    expect(call!.input).toBe('/api/user/onboarding');
    expect(call!.init.method).toBe('POST');
    expect(call!.init.body).toBe('{"displayName":"Ada"}');
    expect(call!.headers.get('Authorization')).toBe('Bearer token-123');
    expect(identity.getIdToken).toHaveBeenCalledWith(true);
  });

  it('sends no body when the identity has no display name', async () => {
    const api = onboardingAnswers(() => ({ data: { user: {} } }));
    await onboardUser(asUser(fakeIdentity()), null);
    expect(api.calls[0]!.init.body).toBeUndefined();
  });

  it("uses the error body's message on failure", async () => {
    onboardingAnswers(() => json({ error: 'invalid_token', message: 'Invalid or expired authentication token.' }, 401));
    await expect(onboardUser(asUser(fakeIdentity()))).rejects.toThrow('Invalid or expired authentication token.');
  });

  it("falls back to 'HTTP error! status: {code}'", async () => {
    onboardingAnswers(() => text('oops', 500));
    await expect(onboardUser(asUser(fakeIdentity()))).rejects.toThrow('HTTP error! status: 500');
  });
});
