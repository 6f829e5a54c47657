import { configure, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { VERIFY_TEXTS } from '@/features/auth/components/EmailVerificationBanner';
import { fakeIdentity } from '@/test/fake-firebase';
import { authValue, renderApp } from '@/test/render';
import { pendingInvitationsText } from '../api/pending-invitations';
import '../test/jsdom-stubs';
import { json } from '../test/fake-stream';

configure({ defaultHidden: true });
vi.setConfig({ testTimeout: 30_000 });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u2', email: 'erin@example.org' }) } })),
}));

const unverified = { uid: 'u2', email: 'erin@example.org', displayName: 'Erin', username: 'erin', emailVerified: false };

let routes: Record<string, () => Response | Promise<Response>>;
const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
  const route = routes[`${init.method ?? 'GET'} ${String(input)}`];
  return route ? route() : json({ error: 'not_found', message: 'Not found' }, 404);
});
const gets = (url: string) => fetchMock.mock.calls.filter(([u, init]) => String(u) === url && (init?.method ?? 'GET') === 'GET');

beforeEach(() => {
  fetchMock.mockClear();
  vi.stubGlobal('fetch', fetchMock);
  routes = { 'GET /api/agents/shared': () => json([]) };
});
afterEach(() => {
  vi.unstubAllGlobals();
});

const banners = () => screen.queryAllByRole('region', { name: VERIFY_TEXTS.label });

describe('Shared with me: pending invitations of an unverified address', () => {
  it('says how many invitations wait, with the Send verification e-mail button, in place of the layout banner', async () => {
    routes['GET /api/user/pending-invitations'] = () => json({ count: 2 });
    renderApp('/dashboard/shared', authValue({ user: unverified }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Shared with me' })).toBeInTheDocument();
    await waitFor(() => expect(banners()[0]).toHaveTextContent('You have 2 pending invitations: verify your e-mail to accept them'));
    expect(banners()).toHaveLength(1);
    expect(within(banners()[0]).getByRole('button', { name: 'Send verification e-mail' })).toBeInTheDocument();
  });

  it('keeps the usual notice when nothing waits, and the singular for one', async () => {
    routes['GET /api/user/pending-invitations'] = () => json({ count: 0 });
    const first = renderApp('/dashboard/shared', authValue({ user: unverified }));
    await waitFor(() => expect(gets('/api/user/pending-invitations')).toHaveLength(1));
    expect(banners()).toHaveLength(1);
    expect(banners()[0]).toHaveTextContent(VERIFY_TEXTS.notice);
    first.unmount();
    expect(pendingInvitationsText(1)).toBe('You have 1 pending invitation: verify your e-mail to accept it');
  });

  it('asks nothing for a verified user, who sees no banner', async () => {
    renderApp('/dashboard/shared', authValue({ user: { ...unverified, emailVerified: true } }));
    expect(await screen.findByText('No agents have been shared with you yet.')).toBeInTheDocument();
    expect(banners()).toHaveLength(0);
    expect(gets('/api/user/pending-invitations')).toHaveLength(0);
  });

  it('leaves the layout banner with its usual notice on the other dashboard screens', async () => {
    routes['GET /api/user/pending-invitations'] = () => json({ count: 2 });
    renderApp('/dashboard/library', authValue({ user: unverified }));
    await waitFor(() => expect(banners()).toHaveLength(1));
    expect(banners()[0]).toHaveTextContent(VERIFY_TEXTS.notice);
    expect(gets('/api/user/pending-invitations')).toHaveLength(0);
  });
});
