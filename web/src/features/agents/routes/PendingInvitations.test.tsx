import { configure, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { VERIFY_TEXTS } from '@/features/auth/components/EmailVerificationBanner';
import { type FakeApi, fakeApi } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { authValue, renderApp } from '@/test/render';
import { pendingInvitationsText } from '../api/pending-invitations';
import '@/features/chat/test/jsdom-stubs';

configure({ defaultHidden: true });
vi.setConfig({ testTimeout: 30_000 });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u2', email: 'erin@example.org' }) } })),
}));

const unverified = { uid: 'u2', email: 'erin@example.org', displayName: 'Erin', username: 'erin', emailVerified: false };

let api: FakeApi;
beforeEach(() => {
  // The navigation asks for the user's own agents (for the Earnings link).
  api = fakeApi({ 'GET /api/agents': [], 'GET /api/agents/shared': [] });
});

const banners = () => screen.queryAllByRole('region', { name: VERIFY_TEXTS.label });

describe('Shared with me: pending invitations of an unverified address', () => {
  it('says how many invitations wait, with the Send verification e-mail button, in place of the layout banner', async () => {
    api.use({ 'GET /api/user/pending-invitations': { count: 2 } });
    renderApp('/dashboard/shared', authValue({ user: unverified }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Shared with me' })).toBeInTheDocument();
    await waitFor(() => expect(banners()[0]).toHaveTextContent('You have 2 pending invitations: verify your e-mail to accept them'));
    expect(banners()).toHaveLength(1);
    expect(within(banners()[0]).getByRole('button', { name: 'Send verification e-mail' })).toBeInTheDocument();
  });

  it('keeps the usual notice when nothing waits, and the singular for one', async () => {
    api.use({ 'GET /api/user/pending-invitations': { count: 0 } });
    const first = renderApp('/dashboard/shared', authValue({ user: unverified }));
    await waitFor(() => expect(api.callsTo('GET /api/user/pending-invitations')).toHaveLength(1));
    expect(banners()).toHaveLength(1);
    expect(banners()[0]).toHaveTextContent(VERIFY_TEXTS.notice);
    first.unmount();
    expect(pendingInvitationsText(1)).toBe('You have 1 pending invitation: verify your e-mail to accept it');
  });

  it('asks nothing for a verified user, who sees no banner', async () => {
    renderApp('/dashboard/shared', authValue({ user: { ...unverified, emailVerified: true } }));
    expect(await screen.findByText('No agents have been shared with you yet.')).toBeInTheDocument();
    expect(banners()).toHaveLength(0);
    expect(api.callsTo('GET /api/user/pending-invitations')).toHaveLength(0);
  });

  it('leaves the layout banner with its usual notice on the other dashboard screens', async () => {
    api.use({ 'GET /api/user/pending-invitations': { count: 2 } });
    renderApp('/dashboard/library', authValue({ user: unverified }));
    await waitFor(() => expect(banners()).toHaveLength(1));
    expect(banners()[0]).toHaveTextContent(VERIFY_TEXTS.notice);
    expect(api.callsTo('GET /api/user/pending-invitations')).toHaveLength(0);
  });
});
