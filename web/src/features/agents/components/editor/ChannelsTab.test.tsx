import { QueryClientProvider } from '@tanstack/react-query';
import { configure, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/toast';
import { removeToast } from '@/components/toast/toast-store';
import type { AgentDocument } from '@/features/documents/types';
import { createQueryClient } from '@/lib/query-client';
import { type FakeApi, fakeApi, json, type RouteHandler } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { ChannelsTab, UNREADABLE_DOCUMENT } from './ChannelsTab';

// Role queries' visibility check is very slow with antd's styles in jsdom (see AgentsPage.test).
configure({ defaultHidden: true });
vi.setConfig({ testTimeout: 30_000 });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

const EMAIL = 'math-tutor-3f9a@agents.example.com';
const LIST = '/api/agents/a1/documents';

function doc(overrides: Partial<AgentDocument>): AgentDocument {
  const id = overrides.id ?? 'd1';
  return {
    id,
    agentId: 'a1',
    name: 'Syllabus',
    url: `https://docs.google.com/document/d/${id}-0123456789abcdefghijklmnop/edit`,
    driveFileId: `${id}-0123456789abcdefghijklmnop`,
    labels: [],
    sharingStatus: 'shared',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    syncState: 'synced',
    syncError: null,
    ...overrides,
  };
}

let api: FakeApi;
const listAnswers = (reply: RouteHandler | AgentDocument[]) => api.use({ [`GET ${LIST}`]: reply });

beforeEach(() => {
  removeToast();
  api = fakeApi({ [`GET ${LIST}`]: [] });
});

afterEach(() => {
  Reflect.deleteProperty(navigator, 'clipboard');
  Reflect.deleteProperty(document, 'execCommand');
});

function renderTab(props: Partial<Parameters<typeof ChannelsTab>[0]> = {}) {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <ChannelsTab agentId="a1" agentEmail={EMAIL} agentStatus="active" {...props} />
      <Toaster />
    </QueryClientProvider>,
  );
}

const item = (name: string) => screen.getByRole('link', { name }).closest('li')!;

describe('ChannelsTab', () => {
  it('shows the e-mail address with Copy, the hint and who may write to it', async () => {
    renderTab();
    const email = screen.getByRole('region', { name: 'E-mail' });
    expect(within(email).getByTestId('channels-email')).toHaveTextContent(EMAIL);
    expect(within(email).getByTestId('channels-email')).toHaveAttribute('href', `mailto:${EMAIL}`);
    expect(within(email).getByText('Send it an e-mail to try it.')).toBeInTheDocument();
    expect(email).toHaveTextContent("You and the agent's active subscribers can write to this address");
    expect(email).toHaveTextContent('reply in the same thread');
    expect(email).toHaveTextContent('Answers are charged to your wallet');
    expect(within(email).getByRole('button', { name: 'Copy' })).toBeInTheDocument();
    expect(within(email).queryByRole('alert')).toBeNull();
    expect(await screen.findByText(/No documents are linked to this agent yet/)).toBeInTheDocument();
  });

  it('Copy puts the address on the clipboard with a toast, and says when it cannot', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } });
    renderTab();
    fireEvent.click(screen.getByRole('button', { name: 'Copy' }));
    expect(await screen.findByRole('status', { name: 'Address copied' })).toHaveTextContent(`${EMAIL} is on the clipboard.`);
    expect(writeText).toHaveBeenCalledWith(EMAIL);

    writeText.mockRejectedValueOnce(new Error('denied'));
    Object.defineProperty(document, 'execCommand', { configurable: true, value: vi.fn(() => false) });
    fireEvent.click(screen.getByRole('button', { name: 'Copy' }));
    expect(await screen.findByRole('alert', { name: 'Could not copy the address' })).toHaveTextContent(`Copy it by hand: ${EMAIL}`);
  });

  it('lists the linked documents: shared ones are watched for mentions, others say how to fix it', async () => {
    listAnswers([
      doc({ id: 'd1', name: 'Syllabus', sharingStatus: 'shared' }),
      doc({ id: 'd2', name: 'Private notes', sharingStatus: 'not_shared' }),
      doc({ id: 'd3', name: 'Broken', sharingStatus: 'error', syncError: 'Google Drive refused: quota exceeded.' }),
      doc({ id: 'd4', name: 'Legacy', sharingStatus: 'error', syncError: null }),
      doc({ id: 'd5', name: 'Fresh', sharingStatus: 'shared', syncState: 'syncing' }),
    ]);
    renderTab();
    const docs = screen.getByRole('region', { name: 'Google Docs comments' });
    expect(within(docs).getByTestId('channels-mention-hint')).toHaveTextContent(`Mention ${EMAIL} in a comment to ask the agent.`);
    expect(await within(docs).findByRole('list', { name: 'Linked documents' })).toBeInTheDocument();
    expect(within(docs).getByTestId('channels-watched-count')).toHaveTextContent('1 of 5 linked documents are watched for mentions.');

    expect(item('Syllabus')).toHaveAttribute('data-watched', 'true');
    expect(within(item('Syllabus')).getByTestId('watch-status')).toHaveTextContent('Watched for mentions');
    expect(screen.getByRole('link', { name: 'Syllabus' })).toHaveAttribute('target', '_blank');

    expect(item('Private notes')).toHaveAttribute('data-watched', 'false');
    expect(within(item('Private notes')).getByTestId('watch-status')).toHaveTextContent('Not watched');
    expect(item('Private notes')).toHaveTextContent(`Share this document with ${EMAIL} so the agent can see and answer its comments.`);

    expect(within(item('Broken')).getByTestId('watch-status')).toHaveTextContent('Not watched');
    expect(item('Broken')).toHaveTextContent('Google Drive refused: quota exceeded.');
    expect(item('Legacy')).toHaveTextContent(UNREADABLE_DOCUMENT);

    expect(item('Fresh')).toHaveAttribute('data-watched', 'false');
    expect(within(item('Fresh')).getByTestId('watch-status')).toHaveTextContent('Checking access…');
  });

  it('all documents watched; the load error; an inactive agent; no address', async () => {
    listAnswers([doc({ id: 'd1', name: 'Syllabus' })]);
    const { unmount } = renderTab({ agentStatus: 'inactive' });
    expect(await screen.findByText('All 1 linked document is watched for mentions.')).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'E-mail' })).getByRole('alert')).toHaveTextContent(
      'This agent is not active, so e-mail to it is refused.',
    );
    unmount();

    listAnswers(() => json({ error: 'internal', message: 'The documents service is unavailable.' }, 500));
    const second = renderTab();
    expect(await screen.findByText('The documents service is unavailable.', {}, { timeout: 10_000 })).toHaveAttribute('role', 'alert');
    second.unmount();

    listAnswers([]);
    renderTab({ agentEmail: undefined });
    expect(screen.getByText('This agent has no e-mail address yet.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Copy' })).toBeNull();
    expect(screen.getByTestId('channels-mention-hint')).toHaveTextContent("Mention the agent's e-mail address in a comment to ask the agent.");
  });

  it('does not load the documents while the editor is closed', () => {
    renderTab({ enabled: false });
    expect(api.fetch).not.toHaveBeenCalled();
  });
});
