import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeApi, fakeApi, json, text } from '@/test/fake-api';
import { authValue, renderApp } from '@/test/render';

const identity = { uid: 'u1', getIdToken: vi.fn(async () => 'token-1') };
vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => ({ auth: { currentUser: identity } })) }));

const slow = { timeout: 10_000 };
const signedIn = { uid: 'u1', email: 'ada@example.com', displayName: 'Ada', interestedInPublicAgents: false };

const INTEREST = 'POST /api/user/public-agent-interest';
let api: FakeApi;

beforeEach(() => {
  // The navigation asks for the user's agents (for the Earnings link).
  api = fakeApi({ 'GET /api/agents': [], [INTEREST]: { success: true, data: {} } });
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

describe('marketplace page', () => {
  it('shows the title, the six feature chips and the Notify button', async () => {
    renderApp('/dashboard/marketplace', authValue({ user: signedIn }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Marketplace Coming Soon' }, slow)).toBeInTheDocument();
    const chips = screen.getByRole('list', { name: 'Coming features' });
    expect(chips.querySelectorAll('li')).toHaveLength(6);
    expect(screen.getByRole('button', { name: 'Notify Me When Available' })).toBeEnabled();
    expect(screen.queryByText("Your interest has been recorded. We'll notify you!")).not.toBeInTheDocument();
  });

  it('registers interest with a body-less POST, toasts and refreshes the user', async () => {
    let finish!: () => void;
    api.use({
      [INTEREST]: () =>
        new Promise<Response>((resolve) => {
          finish = () => resolve(json({ success: true }));
        }),
    });
    const auth = authValue({ user: signedIn });
    renderApp('/dashboard/marketplace', auth);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Notify Me When Available' }, slow));

    expect(await screen.findByRole('button', { name: 'Registering Interest...' })).toBeDisabled();
    // (The navigation also asks for the user's agents: the Earnings link shows with a listed agent.)
    const interest = () => api.calls.find((c) => c.input === '/api/user/public-agent-interest');
    await waitFor(() => expect(interest()).toBeDefined());
    const { init, headers } = interest()!;
    expect(init.method).toBe('POST');
    expect(init.body).toBeUndefined();
    expect(headers.get('Authorization')).toBe('Bearer token-1');
    finish();

    const toast = await screen.findByRole('status', { name: 'Interest Registered' });
    expect(toast).toHaveAccessibleDescription("We'll notify you when the marketplace is available!");
    await waitFor(() => expect(auth.refreshUser).toHaveBeenCalled());
    expect(screen.getByText("Your interest has been recorded. We'll notify you!")).toBeInTheDocument();
  });

  it('shows the recorded text instead of the button when the user is interested', async () => {
    renderApp('/dashboard/marketplace', authValue({ user: { ...signedIn, interestedInPublicAgents: true } }));
    expect(await screen.findByText("Your interest has been recorded. We'll notify you!", {}, slow)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Notify Me When Available' })).not.toBeInTheDocument();
  });

  it('shows the server message, or the fallback, in a destructive Error toast', async () => {
    api.use({ [INTEREST]: () => json({ error: 'internal', message: 'Internal server error' }, 500) });
    const auth = authValue({ user: signedIn });
    renderApp('/dashboard/marketplace', auth);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Notify Me When Available' }, slow));
    expect(await screen.findByRole('alert', { name: 'Error' })).toHaveAccessibleDescription('Internal server error');
    expect(auth.refreshUser).not.toHaveBeenCalled();

    api.use({ [INTEREST]: () => text('bad gateway', 502) });
    await user.click(await screen.findByRole('button', { name: 'Notify Me When Available' }));
    await waitFor(() =>
      expect(screen.getAllByRole('alert', { name: 'Error' })[0]).toHaveAccessibleDescription('Failed to register interest.'),
    );
    expect(screen.getByRole('button', { name: 'Notify Me When Available' })).toBeEnabled();
  });
});
