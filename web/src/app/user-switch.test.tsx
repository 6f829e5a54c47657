/**
 * Issue 18: "the query cache is cleared on sign-out and keyed by user, so a second user in the same
 * tab never sees the first one's data". The real providers (AuthProvider + the app's QueryClient) and
 * the real route table, with a fake Firebase whose users get different ID tokens and a fetch that
 * answers each token with that user's agents.
 */
import { act, configure, render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ApiCall, type FakeApi, fakeApi, json, text } from '@/test/fake-api';
import { createFakeSdk, fakeIdentity } from '@/test/fake-firebase';

// Visibility checks walk antd's injected styles in jsdom (slow); every queried element is visible.
configure({ defaultHidden: true });

const fake = createFakeSdk();
vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => fake.sdk) }));

const { AppProviders } = await import('./providers');
const { routes } = await import('./router');
const { queryClient } = await import('@/lib/query-client');

const alice = fakeIdentity({ uid: 'uid-alice', email: 'alice@example.com', displayName: 'Alice' });
alice.getIdToken.mockImplementation(async () => 'token-alice');
const bob = fakeIdentity({ uid: 'uid-bob', email: 'bob@example.com', displayName: 'Bob' });
bob.getIdToken.mockImplementation(async () => 'token-bob');

const ALICE_AGENT = 'Alice Private Tutor';
const BOB_AGENT = 'Bob Tax Helper';

function agent(userId: string, name: string) {
  return {
    id: `agent-${userId}`,
    userId,
    name,
    description: `${name} description`,
    category: 'Education',
    status: 'active',
    isPublic: false,
    iconName: 'ri-robot-line',
    iconColor: '#4076D6',
    instructions: '',
    tags: [],
    subscribers: 0,
    totalInteractions: 0,
    email: `${userId}@agents.example.com`,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
  };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Per-token answers of GET /api/agents (a deferred one stays pending until resolved). */
let agentsAnswer: Record<string, () => Promise<Response>>;

let api: FakeApi;
const tokenOf = (req: ApiCall) => req.headers.get('Authorization')?.replace('Bearer ', '') ?? '';
const notFound = () => text('not found', 404, { statusText: 'Not Found' });

function agentsRequestsBy(token: string) {
  return api.callsTo('GET /api/agents').filter((call) => call.headers.get('Authorization') === `Bearer ${token}`).length;
}

/** Records whether `text` is ever shown from now on (every DOM mutation is checked). */
function watchFor(text: string) {
  let seen = document.body.textContent?.includes(text) ?? false;
  const observer = new MutationObserver(() => {
    if (document.body.textContent?.includes(text)) seen = true;
  });
  observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  return {
    get seen() {
      return seen || (document.body.textContent?.includes(text) ?? false);
    },
    stop: () => observer.disconnect(),
  };
}

async function renderAt(path: string) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  render(
    <AppProviders>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  await waitFor(() => expect(fake.sdk.onAuthStateChanged).toHaveBeenCalled());
  return router;
}

async function aliceSeesHerAgents() {
  const router = await renderAt('/dashboard/agentic-users');
  act(() => fake.emit(alice));
  expect(await screen.findByText(ALICE_AGENT)).toBeInTheDocument();
  return router;
}

beforeEach(() => {
  api = fakeApi({
    'POST /api/user/onboarding': (req) => {
      const who = tokenOf(req) === 'token-alice' ? alice : bob;
      return { success: true, data: { user: { email: who.email, displayName: who.displayName } } };
    },
    'GET /api/agents': (req) => {
      const answer = agentsAnswer[tokenOf(req)];
      return answer ? answer() : text('unexpected token', 401);
    },
    // The dashboard Bob lands on reads its figures; they do not matter here (not found).
    'GET /api/dashboard/stats': notFound,
    'GET /api/activities': notFound,
    'GET /api/user/balance': notFound,
    'GET /api/usage': notFound,
  });
  vi.spyOn(console, 'error').mockImplementation(() => {});
  fake.sdk.onAuthStateChanged.mockClear();
  fake.sdk.signOut.mockImplementation(async () => fake.emit(null));
  agentsAnswer = { 'token-alice': async () => json([agent(alice.uid, ALICE_AGENT)]) };
});

afterEach(() => {
  vi.unstubAllGlobals();
  queryClient.clear();
});

describe('two users in one tab', () => {
  it('after sign-out, the next user never sees the previous user’s data', async () => {
    const router = await aliceSeesHerAgents();

    // Alice signs out: back to /auth.
    act(() => fake.emit(null));
    await waitFor(() => expect(router.state.location.pathname).toBe('/auth'));
    const leak = watchFor(ALICE_AGENT);

    // Bob signs in in the same tab; his agent list is still on its way.
    const bobsAgents = deferred<Response>();
    agentsAnswer['token-bob'] = () => bobsAgents.promise;
    act(() => fake.emit(bob));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    await act(() => router.navigate('/dashboard/agentic-users'));
    await waitFor(() => expect(agentsRequestsBy('token-bob')).toBe(1));
    expect(leak.seen).toBe(false);

    bobsAgents.resolve(json([agent(bob.uid, BOB_AGENT)]));
    expect(await screen.findByText(BOB_AGENT)).toBeInTheDocument();
    expect(leak.seen).toBe(false);
    leak.stop();
  });

  it('a direct switch to another account drops the cache, even a late answer for the first user', async () => {
    const router = await aliceSeesHerAgents();

    // Alice's list is being refetched when Firebase reports Bob (e.g. sign-in with another account).
    const lateAlice = deferred<Response>();
    agentsAnswer['token-alice'] = () => lateAlice.promise;
    void queryClient.invalidateQueries({ queryKey: ['/api/agents'] });
    await waitFor(() => expect(agentsRequestsBy('token-alice')).toBe(2));

    const bobsAgents = deferred<Response>();
    agentsAnswer['token-bob'] = () => bobsAgents.promise;
    act(() => fake.emit(bob));
    expect(screen.queryByText(ALICE_AGENT)).not.toBeInTheDocument();
    // Alice's answer arrives after the switch: it must not become Bob's list.
    lateAlice.resolve(json([agent(alice.uid, ALICE_AGENT)]));

    await waitFor(() => expect(agentsRequestsBy('token-bob')).toBe(1));
    expect(router.state.location.pathname).toBe('/dashboard/agentic-users');
    expect(screen.queryByText(ALICE_AGENT)).not.toBeInTheDocument();
    bobsAgents.resolve(json([agent(bob.uid, BOB_AGENT)]));
    expect(await screen.findByText(BOB_AGENT)).toBeInTheDocument();
    expect(screen.queryByText(ALICE_AGENT)).not.toBeInTheDocument();
  });
});
