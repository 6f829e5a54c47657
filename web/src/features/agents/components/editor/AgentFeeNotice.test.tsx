import { QueryClientProvider } from '@tanstack/react-query';
import { configure, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { AuthContext } from '@/features/auth/auth-context';
import { createQueryClient } from '@/lib/query-client';
import { type FakeApi, fakeApi, json, type RouteHandler } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { authValue } from '@/test/render';
import { AgentFeeStatus, AgentFirstAnswerFeeNotice, AgentPausedNotice, feeDate } from './AgentFeeNotice';

// Role queries' visibility check is very slow with antd's styles in jsdom (see AgentsPage.test).
configure({ defaultHidden: true });
vi.setConfig({ testTimeout: 30_000 });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

const FEES = '/api/user/agent-fees';

function fee(status: 'paid' | 'paused', agentId = 'a1') {
  // Midday, so the local date is the same in every time zone the tests may run in.
  return { agentId, agentName: 'Math Tutor', periodStart: '2026-01-01T12:00:00Z', periodEnd: '2026-01-30T12:00:00Z', status };
}

let api: FakeApi;
/** The wallet's fee list answers `reply`. */
const feesAnswer = (reply: RouteHandler | object) => {
  api = fakeApi({ [`GET ${FEES}`]: reply });
};

function renderNotices(enabled = true) {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <AuthContext.Provider value={authValue({ user: { uid: 'u1', email: 'ada@example.com', displayName: 'Ada' } })}>
        <MemoryRouter>
          <AgentPausedNotice agentId="a1" enabled={enabled} />
          <AgentFeeStatus agentId="a1" enabled={enabled} />
        </MemoryRouter>
      </AuthContext.Provider>
    </QueryClientProvider>,
  );
}

const requests = () => api.callsTo(`GET ${FEES}`);

describe('AgentPausedNotice / AgentFeeStatus', () => {
  it('a paused agent: "Paused: add funds to resume" with Add Funds → the wallet', async () => {
    feesAnswer({ success: true, data: [fee('paid', 'a0'), fee('paused')] });
    renderNotices();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Paused: add funds to resume');
    expect(alert).toHaveTextContent('Adding funds pays the fee and resumes it.');
    expect(screen.getByRole('link', { name: 'Add Funds' })).toHaveAttribute('href', '/dashboard/wallet');
    expect(screen.queryByTestId('agent-fee-status')).not.toBeInTheDocument();
    // One request for both (shared query), with the Bearer token.
    expect(requests()).toHaveLength(1);
    expect(requests()[0]!.headers.get('Authorization')).toBe('Bearer token-123');
  });

  it('a paid agent: no notice, and the Settings line says until when', async () => {
    feesAnswer({ success: true, data: [fee('paid')] });
    renderNotices();
    expect(await screen.findByTestId('agent-fee-status')).toHaveTextContent('Monthly fee paid until Jan 30, 2026');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.queryByText('Paused: add funds to resume')).not.toBeInTheDocument();
  });

  it('an agent that is not listed (never answered) shows nothing', async () => {
    feesAnswer({ success: true, data: [fee('paused', 'other')] });
    renderNotices();
    await waitFor(() => expect(requests()).toHaveLength(1));
    // Let the answer render.
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.queryByTestId('agent-fee-status')).not.toBeInTheDocument();
  });

  it('a failed request shows nothing', async () => {
    feesAnswer(() => json({ error: 'internal', message: 'boom' }, 500));
    renderNotices();
    await waitFor(() => expect(requests()).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.queryByTestId('agent-fee-status')).not.toBeInTheDocument();
  });

  it('asks nothing while the editor is closed', async () => {
    feesAnswer({ success: true, data: [fee('paused')] });
    renderNotices(false);
    await new Promise((r) => setTimeout(r, 50));
    expect(requests()).toHaveLength(0);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('formats the end of the period', () => {
    expect(feeDate('2026-03-09T12:00:00Z')).toBe('Mar 9, 2026');
    expect(feeDate('')).toBeNull();
    expect(feeDate('not a date')).toBeNull();
  });
});

describe('AgentFirstAnswerFeeNotice', () => {
  const TEXT = "The first answer starts this agent's $10.00 monthly fee.";
  function renderFirst() {
    return render(
      <QueryClientProvider client={createQueryClient()}>
        <AuthContext.Provider value={authValue({ user: { uid: 'u1', email: 'ada@example.com', displayName: 'Ada' } })}>
          <MemoryRouter>
            <AgentFirstAnswerFeeNotice agentId="a1" />
          </MemoryRouter>
        </AuthContext.Provider>
      </QueryClientProvider>,
    );
  }
  const future = new Date(Date.now() + 10 * 24 * 3600 * 1000).toISOString();

  it('an agent with no paid period (never answered): the first answer starts the fee', async () => {
    feesAnswer({ success: true, data: [{ ...fee('paid', 'other'), periodEnd: future }] });
    renderFirst();
    expect(await screen.findByTestId('agent-fee-first-answer')).toHaveTextContent(TEXT);
  });

  it('a period that has ended counts as unpaid', async () => {
    feesAnswer({ success: true, data: [fee('paid')] }); // ended Jan 30, 2026
    renderFirst();
    expect(await screen.findByTestId('agent-fee-first-answer')).toHaveTextContent(TEXT);
  });

  it('nothing while a period is paid, when paused, or when the wallet cannot be asked', async () => {
    for (const body of [
      json({ success: true, data: [{ ...fee('paid'), periodEnd: future }] }),
      json({ success: true, data: [fee('paused')] }),
      json({ error: 'internal', message: 'boom' }, 500),
    ]) {
      feesAnswer(() => body);
      const { unmount } = renderFirst();
      await waitFor(() => expect(requests()).toHaveLength(1));
      await new Promise((r) => setTimeout(r, 50));
      expect(screen.queryByTestId('agent-fee-first-answer')).not.toBeInTheDocument();
      unmount();
    }
  });
});
