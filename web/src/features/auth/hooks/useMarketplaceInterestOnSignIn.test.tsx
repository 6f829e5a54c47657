import { screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeApi, fakeApi, text } from '@/test/fake-api';
import { authValue, renderApp } from '@/test/render';

const identity = { uid: 'u1', getIdToken: vi.fn(async () => 'token-1') };
vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => ({ auth: { currentUser: identity } })) }));

const slow = { timeout: 10_000 };
const signedIn = { uid: 'u1', email: 'ada@example.com', displayName: 'Ada', interestedInPublicAgents: false };
let api: FakeApi;
const interestCalls = () => api.calls.filter((c) => c.path === '/api/user/public-agent-interest');

beforeEach(() => {
  api = fakeApi({
    'POST /api/user/public-agent-interest': {},
    // The dashboard it lands on reads its figures; what they are does not matter here.
    'GET /api/agents': {},
    'GET /api/dashboard/stats': {},
    'GET /api/activities': {},
    'GET /api/user/balance': {},
    'GET /api/usage': {},
  });
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

describe('/auth?interest=marketplace', () => {
  it('registers the interest once a user is signed in, refreshes the user, then goes to /dashboard', async () => {
    const auth = authValue({ user: signedIn });
    const { router } = renderApp('/auth?interest=marketplace', auth);
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'), slow);
    expect(interestCalls()).toHaveLength(1);
    expect(interestCalls()[0]!.init.method).toBe('POST');
    expect(auth.refreshUser).toHaveBeenCalledTimes(1);
    expect(await screen.findByRole('status', { name: 'Interest Registered' })).toBeInTheDocument();
  });

  it('does nothing more for a user who is already interested, or without the parameter', async () => {
    const first = renderApp('/auth?interest=marketplace', authValue({ user: { ...signedIn, interestedInPublicAgents: true } }));
    await waitFor(() => expect(first.router.state.location.pathname).toBe('/dashboard'), slow);
    first.unmount();
    const second = renderApp('/auth', authValue({ user: signedIn }));
    await waitFor(() => expect(second.router.state.location.pathname).toBe('/dashboard'), slow);
    expect(interestCalls()).toHaveLength(0);
  });

  it('still redirects after a failure, with the Error toast', async () => {
    api.use({ 'POST /api/user/public-agent-interest': () => text('nope', 500) });
    const auth = authValue({ user: signedIn });
    const { router } = renderApp('/auth?interest=marketplace', auth);
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'), slow);
    expect(await screen.findByRole('alert', { name: 'Error' })).toHaveAccessibleDescription('Failed to register interest.');
    expect(auth.refreshUser).not.toHaveBeenCalled();
  });
});
