import { QueryClientProvider } from '@tanstack/react-query';
import { configure, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/toast';
import { removeToast } from '@/components/toast/toast-store';
import { createQueryClient } from '@/lib/query-client';
import { type FakeApi, fakeApi, json } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import type { Subscriber } from '../../types';
import { INVITATION_TEXTS, UsersTab } from './UsersTab';

// Role queries' visibility check is very slow with antd's styles in jsdom (see AgentsPage.test).
configure({ defaultHidden: true });
vi.setConfig({ testTimeout: 30_000 });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

function subscriber(overrides: Partial<Subscriber>): Subscriber {
  return {
    id: 's1',
    name: 'Grace Hopper',
    email: 'grace@example.com',
    status: 'active',
    joinedDate: new Date().toISOString(),
    interactions: 3,
    capMode: 'default',
    monthlyCapCents: null,
    effectiveCapCents: null,
    ...overrides,
  };
}

const INVITED = subscriber({ id: 's2', name: 'carol@example.org', email: 'carol@example.org', status: 'invited', interactions: 0 });
const SUBSCRIBERS = [subscriber({}), INVITED];
const RESEND_URL = '/api/agents/a1/subscribers/s2/resend-invitation';
const LIMIT = 'Too many requests: at most 5 per hour. Try again in 3412 seconds.';

let api: FakeApi;
beforeEach(() => {
  removeToast();
  api = fakeApi({ 'GET /api/agents/a1/subscribers': SUBSCRIBERS });
});

function renderTab() {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <UsersTab agentId="a1" enabled />
      <Toaster />
    </QueryClientProvider>,
  );
}

const row = (email: string) => screen.getAllByText(email)[0].closest('tr')!;
const resendButton = () => screen.getByRole('button', { name: INVITATION_TEXTS.resendLabel('carol@example.org') });

describe('Users tab: invitations that arrive', () => {
  it('shows "Invitation e-mailed" and Resend on an invited row only', async () => {
    renderTab();
    await screen.findByText('grace@example.com');
    const invited = row('carol@example.org');
    expect(within(invited).getByText('Invitation e-mailed')).toBeInTheDocument();
    expect(within(invited).getByRole('button', { name: /^Resend/ })).toHaveTextContent('Resend');
    const active = row('grace@example.com');
    expect(within(active).queryByText('Invitation e-mailed')).not.toBeInTheDocument();
    expect(within(active).queryByRole('button', { name: /^Resend/ })).not.toBeInTheDocument();
  });

  it('resends with a POST, disabled while sending, and confirms', async () => {
    let release: () => void = () => {};
    api.use({
      [`POST ${RESEND_URL}`]: () =>
        new Promise<Response>((resolve) => {
          release = () => resolve(json(INVITED, 202));
        }),
    });
    const user = userEvent.setup();
    renderTab();
    await screen.findByText('grace@example.com');
    await user.click(resendButton());
    await waitFor(() => expect(resendButton()).toBeDisabled());
    expect(api.callsTo(`POST ${RESEND_URL}`)).toHaveLength(1);
    release();
    expect(await screen.findByText(INVITATION_TEXTS.resent('carol@example.org'))).toBeInTheDocument();
    await waitFor(() => expect(resendButton()).toBeEnabled());
  });

  it("shows the server's message when the resend is refused (429: the limit)", async () => {
    api.use({ [`POST ${RESEND_URL}`]: () => json({ error: 'rate_limited', message: LIMIT }, 429) });
    const user = userEvent.setup();
    renderTab();
    await screen.findByText('grace@example.com');
    await user.click(resendButton());
    const alert = await within(row('carol@example.org')).findByRole('alert');
    expect(alert).toHaveTextContent(LIMIT);
    expect(resendButton()).toBeEnabled();
    expect(screen.queryByText(INVITATION_TEXTS.resent('carol@example.org'))).not.toBeInTheDocument();
  });
});
