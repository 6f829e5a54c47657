import { QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import { useEffect } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '@/lib/query-client';
import { type FakeApi, fakeApi, json, type RouteHandler, text as textReply } from '@/test/fake-api';
import { createFakeSdk, fakeIdentity } from '@/test/fake-firebase';

const fake = createFakeSdk();
vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => fake.sdk) }));

const { AuthProvider } = await import('./AuthProvider');
const { useAuth } = await import('./auth-context');
const { getToasts } = await import('@/components/toast/toast-store');
const toastStore = await import('@/components/toast/toast-store');
type Ctx = ReturnType<typeof useAuth>;

let ctx: Ctx;
function Probe() {
  const value = useAuth();
  // Expose the committed context to the test (after render, not during it).
  useEffect(() => {
    ctx = value;
  });
  return (
    <dl>
      <dt>loading</dt>
      <dd data-testid="loading">{String(value.loading)}</dd>
      <dt>profileLoading</dt>
      <dd data-testid="profileLoading">{String(value.profileLoading)}</dd>
      <dt>error</dt>
      <dd data-testid="error">{value.error?.message ?? ''}</dd>
      <dt>user</dt>
      <dd data-testid="user">{value.user ? JSON.stringify(value.user) : 'null'}</dd>
    </dl>
  );
}

let api: FakeApi;
/** POST /api/user/onboarding answers with `reply`. */
const onboardingAnswers = (reply: RouteHandler) => api.use({ 'POST /api/user/onboarding': reply });

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function okUser(user: Record<string, unknown>) {
  return json({ success: true, data: { user } });
}

async function renderProvider() {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <AuthProvider>
        <Probe />
      </AuthProvider>
    </QueryClientProvider>,
  );
  await waitFor(() => expect(fake.sdk.onAuthStateChanged).toHaveBeenCalled());
}

const text = (id: string) => screen.getByTestId(id).textContent;

beforeEach(() => {
  api = fakeApi();
  vi.spyOn(console, 'error').mockImplementation(() => {});
  fake.sdk.onAuthStateChanged.mockClear();
  toastStore.removeToast();
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('AuthProvider state machine', () => {
  it('starts loading and ends with no user when there is no identity', async () => {
    await renderProvider();
    expect(text('loading')).toBe('true');
    act(() => fake.emit(null));
    expect(text('loading')).toBe('false');
    expect(text('profileLoading')).toBe('false');
    expect(text('user')).toBe('null');
    expect(api.fetch).not.toHaveBeenCalled();
  });

  it('onboards a signed-in identity and stores the merged user', async () => {
    const response = deferred<Response>();
    onboardingAnswers(() => response.promise);
    await renderProvider();

    act(() => fake.emit(fakeIdentity({ uid: 'u1', email: 'ada@example.com', displayName: 'Ada' })));
    expect(text('loading')).toBe('true');
    await waitFor(() => expect(text('profileLoading')).toBe('true'));
    await waitFor(() => expect(api.fetch).toHaveBeenCalledTimes(1));

    const [call] = api.calls;
    expect(call!.input).toBe('/api/user/onboarding');
    expect(call!.init.method).toBe('POST');
    expect(call!.init.body).toBe('{"displayName":"Ada"}');
    expect(call!.headers.get('Authorization')).toBe('Bearer token-123');

    await act(async () => response.resolve(okUser({ username: 'ada', interestedInPublicAgents: false })));
    await waitFor(() => expect(text('loading')).toBe('false'));
    expect(text('profileLoading')).toBe('false');
    expect(text('error')).toBe('');
    expect(JSON.parse(text('user')!)).toEqual({
      uid: 'u1',
      email: 'ada@example.com',
      displayName: 'Ada',
      username: 'ada',
      interestedInPublicAgents: false,
    });
  });

  it('keeps the error and clears the user when onboarding fails', async () => {
    onboardingAnswers(() => json({ error: 'internal', message: 'Internal server error' }, 500));
    await renderProvider();
    act(() => fake.emit(fakeIdentity()));
    await waitFor(() => expect(text('loading')).toBe('false'));
    expect(text('profileLoading')).toBe('false');
    expect(text('error')).toBe('Internal server error');
    expect(text('user')).toBe('null');
  });

  it('clears a previous profile error on the next auth change', async () => {
    onboardingAnswers(() => textReply('', 503));
    await renderProvider();
    act(() => fake.emit(fakeIdentity()));
    await waitFor(() => expect(text('error')).toBe('HTTP error! status: 503'));
    act(() => fake.emit(null));
    expect(text('error')).toBe('');
    expect(text('loading')).toBe('false');
  });

  it('register: creates the account, sets displayName, re-runs onboarding with it and toasts', async () => {
    await renderProvider();
    const identity = fakeIdentity({ uid: 'new', email: 'new@example.com' });
    fake.sdk.createUserWithEmailAndPassword.mockImplementation(async () => {
      fake.auth.currentUser = identity;
      return { user: identity };
    });
    fake.sdk.updateProfile.mockImplementation(async (u: typeof identity, p: { displayName: string }) => {
      u.displayName = p.displayName;
    });
    onboardingAnswers(() => okUser({ username: 'newbie' }));

    await act(() => ctx.register({ email: 'new@example.com', password: 'secret1', username: 'newbie' }));

    expect(fake.sdk.createUserWithEmailAndPassword).toHaveBeenCalledWith(fake.auth, 'new@example.com', 'secret1');
    expect(fake.sdk.updateProfile).toHaveBeenCalledWith(identity, { displayName: 'newbie' });
    expect(api.calls.at(-1)!.init.body).toBe('{"displayName":"newbie"}');
    expect(JSON.parse(text('user')!)).toMatchObject({ uid: 'new', displayName: 'newbie', username: 'newbie' });
    expect(getToasts()[0]).toMatchObject({ title: 'Registration successful', description: 'Welcome, new@example.com!' });
  });

  it('login failure: shows the mapped toast, logs and rethrows', async () => {
    await renderProvider();
    const failure = Object.assign(new Error('Firebase: Error (auth/wrong-password).'), { code: 'auth/wrong-password' });
    fake.sdk.signInWithEmailAndPassword.mockRejectedValueOnce(failure);
    await expect(ctx.login('a@b.co', 'secret1')).rejects.toBe(failure);
    expect(console.error).toHaveBeenCalled();
    expect(getToasts()[0]).toMatchObject({
      title: 'Login failed',
      description: 'Incorrect password.',
      variant: 'destructive',
    });
  });

  it('login success toasts a welcome back', async () => {
    await renderProvider();
    fake.sdk.signInWithEmailAndPassword.mockResolvedValueOnce({ user: { email: 'ada@example.com' } });
    await act(() => ctx.login('ada@example.com', 'secret1'));
    expect(getToasts()[0]).toMatchObject({ title: 'Login successful', description: 'Welcome back, ada@example.com!' });
  });

  it('logout signs out and toasts', async () => {
    await renderProvider();
    fake.sdk.signOut.mockResolvedValueOnce(undefined);
    await act(() => ctx.logout());
    expect(fake.sdk.signOut).toHaveBeenCalledWith(fake.auth);
    expect(getToasts()[0]).toMatchObject({ title: 'Logged out', description: 'You have been successfully logged out.' });
  });
});
