import { QueryClientProvider } from '@tanstack/react-query';
import { configure, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/toast';
import { removeToast } from '@/components/toast/toast-store';
import { createQueryClient } from '@/lib/query-client';
import { type FakeApi, fakeApi, json, text } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { SYNC_POLL_INTERVAL_MS } from '../api/documents';
import { QUERY_REQUIRED_MESSAGE, QUERY_TOO_LONG_MESSAGE } from '../lib/knowledge-query';
import type { AgentDocument, KnowledgePassage } from '../types';
import { InstructionsAndDocuments } from './InstructionsAndDocuments';

// Role queries' visibility check is very slow with antd's styles in jsdom (see AgentsPage.test).
configure({ defaultHidden: true });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

const EMAIL = 'tutor@agents.example.com';
const ID = '1aBcD_eFgH-iJkLmNoPqRsTuVwXyZ0123456789abcde';
const URL_OK = `https://docs.google.com/document/d/${ID}/edit`;
const LIST = '/api/agents/a1/documents';
const SEARCH = '/api/agents/a1/knowledge/search';

function doc(overrides: Partial<AgentDocument>): AgentDocument {
  return {
    id: 'd1',
    agentId: 'a1',
    name: 'Syllabus',
    url: URL_OK,
    driveFileId: ID,
    labels: [],
    sharingStatus: 'shared',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    syncState: 'synced',
    syncError: null,
    driveTitle: null,
    syncedAt: null,
    modifiedTime: null,
    tokenCount: null,
    ...overrides,
  };
}

let api: FakeApi;
const calls = (method: string, url: string) => api.callsTo(`${method} ${url}`);
/** The agent's document list answers `docs`. */
const listAnswers = (docs: unknown[]) => api.use({ [`GET ${LIST}`]: docs });

beforeEach(() => {
  removeToast();
  api = fakeApi();
});

afterEach(() => {
  Reflect.deleteProperty(navigator, 'clipboard');
  Reflect.deleteProperty(document, 'execCommand');
});

function renderTab() {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <InstructionsAndDocuments agentId="a1" agentEmail={EMAIL} instructions="" onInstructionsChange={() => {}} />
      <Toaster />
    </QueryClientProvider>,
  );
}

const rowOf = (name: string) => screen.getByRole('link', { name }).closest('tr')!;
const fill = (input: HTMLElement, value: string) => fireEvent.change(input, { target: { value } });

describe('document sync status', { timeout: 30_000 }, () => {
  it('shows Shared (tokens, synced time, Drive title), Not shared, Error and Syncing…', async () => {
    const twoMinutesAgo = new Date(Date.now() - 2 * 60_000 - 5_000).toISOString();
    listAnswers([
      doc({ name: 'Syllabus', driveTitle: 'CS101 Syllabus — Spring', tokenCount: 1234, syncedAt: twoMinutesAgo }),
      doc({ id: 'd2', name: 'Same', driveTitle: 'Same', tokenCount: 1, syncedAt: twoMinutesAgo }),
      doc({ id: 'd3', name: 'Private', sharingStatus: 'not_shared', syncError: `The agent (${EMAIL}) cannot open this document.` }),
      doc({ id: 'd4', name: 'Broken', sharingStatus: 'error', syncError: 'Document is larger than 2 MB of text', syncedAt: twoMinutesAgo }),
      doc({ id: 'd5', name: 'Fresh', syncState: 'queued' }),
      doc({ id: 'd6', name: 'Reading', syncState: 'syncing', sharingStatus: 'not_shared' }),
      doc({ id: 'd7', name: 'Retrying', syncState: 'queued', sharingStatus: 'error', syncError: 'Google Drive is busy. Retrying automatically.' }),
    ]);
    renderTab();
    await screen.findByRole('link', { name: 'Syllabus' });
    const status = (name: string) => within(rowOf(name)).getByTestId('sync-status');

    const shared = rowOf('Syllabus');
    expect(status('Syllabus')).toHaveTextContent(/^Shared$/);
    expect(shared.querySelector('[data-sync-status]')).toHaveAttribute('data-sync-status', 'shared');
    expect(within(shared).getByText('1,234 tokens')).toBeInTheDocument();
    const time = within(shared).getByText('Synced 2 minutes ago');
    expect(time.tagName).toBe('TIME');
    expect(time).toHaveAttribute('dateTime', twoMinutesAgo);
    expect(within(shared).getByTestId('drive-title')).toHaveTextContent('Google Docs title: CS101 Syllabus — Spring');
    // The creator's name stays the document's name.
    expect(within(shared).getByRole('link')).toHaveAccessibleName('Syllabus');
    expect(within(shared).queryByRole('button', { name: 'Copy address' })).not.toBeInTheDocument();

    expect(within(rowOf('Same')).getByText('1 token')).toBeInTheDocument();
    expect(within(rowOf('Same')).queryByTestId('drive-title')).not.toBeInTheDocument();

    expect(status('Private')).toHaveTextContent(/^Not shared$/);
    expect(within(rowOf('Private')).getByText(`Share this document with ${EMAIL} so the agent can read it.`)).toBeInTheDocument();
    const copy = within(rowOf('Private')).getByRole('button', { name: 'Copy address' });
    expect(copy).toHaveAccessibleDescription(`Share this document with ${EMAIL} so the agent can read it.`);
    // The advice is given once: the service's 'cannot open' reason adds nothing and is not repeated.
    expect(within(rowOf('Private')).queryByTestId('sync-reason')).toBeNull();
    expect(within(rowOf('Private')).getAllByText(/Share (this document|it) with/)).toHaveLength(1);
    expect(within(rowOf('Private')).queryByText(/tokens?$/)).not.toBeInTheDocument();

    expect(status('Broken')).toHaveTextContent(/^Error$/);
    expect(within(rowOf('Broken')).getByText('Document is larger than 2 MB of text')).toBeInTheDocument();
    expect(within(rowOf('Broken')).getByText('Last synced 2 minutes ago')).toBeInTheDocument();
    expect(within(rowOf('Broken')).getByRole('button', { name: 'Sync now Broken' })).toBeEnabled();

    for (const name of ['Fresh', 'Reading']) {
      expect(status(name)).toHaveTextContent(/^Syncing…$/);
      expect(within(rowOf(name)).getByRole('button', { name: `Sync now ${name}` })).toBeDisabled();
      expect(within(rowOf(name)).queryByRole('button', { name: 'Copy address' })).not.toBeInTheDocument();
    }
    // A failed attempt waiting for its retry: Syncing…, the reason, and Sync now retries at once.
    expect(status('Retrying')).toHaveTextContent(/^Syncing…$/);
    expect(within(rowOf('Retrying')).getByTestId('sync-reason')).toHaveTextContent('Google Drive is busy. Retrying automatically.');
    expect(within(rowOf('Retrying')).getByRole('button', { name: 'Sync now Retrying' })).toBeEnabled();
    expect(within(shared).getByRole('button', { name: 'Sync now Syllabus' })).toBeEnabled();
    // The status badge is announced when it changes.
    expect(status('Syllabus').parentElement).toHaveAttribute('aria-live', 'polite');
  });

  it('an Error without a reason, and a list without sync fields, still render', async () => {
    listAnswers([
      doc({ name: 'Broken', sharingStatus: 'error', syncError: null }),
      { id: 'd2', agentId: 'a1', name: 'Legacy', url: URL_OK, driveFileId: ID, labels: null, sharingStatus: 'shared', createdAt: '', updatedAt: '' },
    ]);
    renderTab();
    await screen.findByRole('link', { name: 'Legacy' });
    expect(within(rowOf('Broken')).getByText('The document could not be read.')).toBeInTheDocument();
    expect(within(rowOf('Legacy')).getByTestId('sync-status')).toHaveTextContent('Shared');
    expect(within(rowOf('Legacy')).queryByText(/^Synced/)).not.toBeInTheDocument();
  });

  it('Copy address puts the agent address on the clipboard, and says when it cannot', async () => {
    listAnswers([doc({ name: 'Private', sharingStatus: 'not_shared' })]);
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } });
    renderTab();
    fireEvent.click(await screen.findByRole('button', { name: 'Copy address' }));
    expect(await screen.findByRole('status', { name: 'Address copied' })).toHaveTextContent(EMAIL);
    expect(writeText).toHaveBeenCalledWith(EMAIL);

    writeText.mockRejectedValueOnce(new Error('denied'));
    Object.defineProperty(document, 'execCommand', { configurable: true, value: vi.fn(() => false) });
    fireEvent.click(screen.getByRole('button', { name: 'Copy address' }));
    expect(await screen.findByRole('alert', { name: 'Could not copy the address' })).toHaveTextContent(`Copy it by hand: ${EMAIL}`);
  });

  it('Sync now posts to the sync route, shows Syncing…, polls until synced, then stops polling', async () => {
    let state: Partial<AgentDocument> = { sharingStatus: 'not_shared' };
    let reads = 0;
    api.use({
      [`POST ${LIST}/d1/sync`]: () => {
        state = { sharingStatus: 'not_shared', syncState: 'queued' };
        return json(doc(state), 202);
      },
      [`GET ${LIST}`]: () => {
        reads += 1;
        // Read 2 follows Sync now (still queued); read 3, the first poll, finds the sync finished.
        if (state.syncState === 'queued' && reads >= 3) {
          state = { sharingStatus: 'shared', syncState: 'synced', tokenCount: 42, syncedAt: new Date().toISOString(), driveTitle: 'Week 1 notes' };
        }
        return [doc({ name: 'Notes', ...state })];
      },
    });
    renderTab();
    const button = await screen.findByRole('button', { name: 'Sync now Notes' });
    expect(within(rowOf('Notes')).getByTestId('sync-status')).toHaveTextContent('Not shared');
    fireEvent.click(button);
    await waitFor(() => expect(within(rowOf('Notes')).getByTestId('sync-status')).toHaveTextContent('Syncing…'));
    expect(within(rowOf('Notes')).getByRole('button', { name: 'Sync now Notes' })).toBeDisabled();
    expect(calls('POST', `${LIST}/d1/sync`)).toHaveLength(1);

    await waitFor(() => expect(within(rowOf('Notes')).getByTestId('sync-status')).toHaveTextContent(/^Shared$/), {
      timeout: 3 * SYNC_POLL_INTERVAL_MS + 2000,
    });
    expect(within(rowOf('Notes')).getByText('42 tokens')).toBeInTheDocument();
    expect(within(rowOf('Notes')).getByText('Google Docs title: Week 1 notes')).toBeInTheDocument();
    expect(within(rowOf('Notes')).getByRole('button', { name: 'Sync now Notes' })).toBeEnabled();

    // Nothing is syncing any more: no further reads.
    const settled = calls('GET', LIST).length;
    await new Promise((resolve) => setTimeout(resolve, SYNC_POLL_INTERVAL_MS + 500));
    expect(calls('GET', LIST)).toHaveLength(settled);
  });

  it('a failed Sync now shows the server message', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    api.use({
      [`POST ${LIST}/:id/sync`]: () => json({ error: 'not_found', message: 'Document not found' }, 404),
      [`GET ${LIST}`]: [doc({ name: 'Notes' })],
    });
    renderTab();
    fireEvent.click(await screen.findByRole('button', { name: 'Sync now Notes' }));
    expect(await screen.findByRole('alert', { name: 'Error syncing document' })).toHaveTextContent('Document not found');
  });
});

function passage(overrides: Partial<KnowledgePassage>): KnowledgePassage {
  return {
    documentId: 'd1',
    documentName: 'Syllabus',
    labels: ['week1', 'exam'],
    text: 'Late submissions lose 10% per day.',
    score: 0.8666,
    start: 0,
    end: 34,
    url: URL_OK,
    tokenCount: 9,
    ...overrides,
  };
}

describe('Test retrieval', { timeout: 30_000 }, () => {
  const input = () => screen.getByLabelText('Test retrieval');
  const submit = () => fireEvent.click(screen.getByRole('button', { name: 'Search' }));

  it('validates the question like the server does', async () => {
    listAnswers([]);
    renderTab();
    await screen.findByText('No documents linked');
    expect(input()).toHaveAttribute('placeholder', 'Ask a question to see the passages the agent would use');
    fill(input(), '   ');
    submit();
    expect(await screen.findByText(QUERY_REQUIRED_MESSAGE)).toBeInTheDocument();
    expect(input()).toHaveAttribute('aria-invalid', 'true');
    expect(input()).toHaveAccessibleDescription(expect.stringContaining(QUERY_REQUIRED_MESSAGE));

    fill(input(), 'x'.repeat(1001));
    submit();
    expect(await screen.findByText(QUERY_TOO_LONG_MESSAGE)).toBeInTheDocument();
    expect(calls('POST', SEARCH)).toHaveLength(0);

    // Exactly 1,000 characters (after trimming) is allowed.
    api.use({ [`POST ${SEARCH}`]: [] });
    fill(input(), ` ${'x'.repeat(1000)} `);
    submit();
    await waitFor(() => expect(calls('POST', SEARCH)).toHaveLength(1));
    expect(calls('POST', SEARCH)[0]!.body).toEqual({ query: 'x'.repeat(1000) });
    expect(screen.queryByText(QUERY_TOO_LONG_MESSAGE)).not.toBeInTheDocument();
  });

  it('lists the passages with document link, labels, score and expandable text', async () => {
    const long = `${'Grading policy. '.repeat(30)}The final exam is worth 40% of the grade.`;
    api.use({
      [`POST ${SEARCH}`]: () => [
        passage({ headingPath: 'CS101 Syllabus › 3. Grading › 3.2 Late Work', relevance: 0.8, relevant: true }),
        passage({ documentId: 'd2', documentName: 'Rubric', labels: [], text: long, score: 0.5, url: '', relevance: 0.1, relevant: false }),
      ],
      [`GET ${LIST}`]: [doc({})],
    });
    renderTab();
    await screen.findByRole('link', { name: 'Syllabus' });
    fill(input(), '  How are late submissions graded?  ');
    submit();
    const list = await screen.findByRole('list', { name: 'Retrieved passages' });
    expect(calls('POST', SEARCH)[0]!.body).toEqual({ query: 'How are late submissions graded?' });
    expect(screen.getByText('2 passages for “How are late submissions graded?”')).toBeInTheDocument();

    const [first, second] = within(list).getAllByRole('listitem');
    const link = within(first).getByRole('link', { name: 'Syllabus' });
    expect(link).toHaveAttribute('href', URL_OK);
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    expect(within(first).getByText('week1')).toBeInTheDocument();
    expect(within(first).getByText('exam')).toBeInTheDocument();
    expect(within(first).getByTestId('passage-score')).toHaveTextContent('Score 0.87');
    expect(within(first).getByTestId('passage-heading-path')).toHaveTextContent('Section: CS101 Syllabus › 3. Grading › 3.2 Late Work');
    expect(within(first).getByTestId('passage-text')).toHaveTextContent('Late submissions lose 10% per day.');
    expect(within(first).queryByRole('button', { name: 'Show more' })).not.toBeInTheDocument();

    // No URL: the name as text. A long passage is cut, and expands.
    expect(within(second).queryByRole('link')).not.toBeInTheDocument();
    expect(within(second).getByText('Rubric')).toBeInTheDocument();
    expect(within(second).getByTestId('passage-score')).toHaveTextContent('Score 0.50');
    expect(within(second).queryByTestId('passage-heading-path')).not.toBeInTheDocument();
    // The agent answers from the relevant passages only: the weak one is marked.
    expect(within(first).queryByTestId('passage-not-used')).not.toBeInTheDocument();
    expect(within(second).getByTestId('passage-not-used')).toHaveTextContent('Not used: too little of the question matches');
    expect(screen.queryByTestId('retrieval-none-relevant')).not.toBeInTheDocument();
    const text = within(second).getByTestId('passage-text');
    expect(text.textContent!.endsWith('…')).toBe(true);
    expect(text).not.toHaveTextContent('final exam');
    const more = within(second).getByRole('button', { name: 'Show more' });
    expect(more).toHaveAttribute('aria-expanded', 'false');
    expect(more).toHaveAttribute('aria-controls', text.id);
    fireEvent.click(more);
    expect(text).toHaveTextContent('The final exam is worth 40% of the grade.');
    const less = within(second).getByRole('button', { name: 'Show less' });
    expect(less).toHaveAttribute('aria-expanded', 'true');
  });

  it('shows the empty state, and the server message when the search is refused', async () => {
    let answer = () => json([]);
    api.use({ [`POST ${SEARCH}`]: () => answer(), [`GET ${LIST}`]: [] });
    renderTab();
    await screen.findByText('No documents linked');
    fill(input(), 'Anything about volcanoes?');
    submit();
    expect(await screen.findByText('No passages match this question.')).toBeInTheDocument();
    expect(screen.queryByRole('list', { name: 'Retrieved passages' })).not.toBeInTheDocument();

    answer = () => json({ error: 'invalid_query', message: 'The question must be at most 1,000 characters' }, 400);
    submit();
    expect(await screen.findByRole('alert')).toHaveTextContent('The question must be at most 1,000 characters');
    expect(screen.queryByText('No passages match this question.')).not.toBeInTheDocument();

    answer = () => text('', 500);
    submit();
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Failed to search the documents. Please try again.'));
  });

  it('says what the search ran on: lexical only, hybrid (simulated or not), or lexical after a provider failure', async () => {
    let headers: Record<string, string> = { 'X-Retrieval-Mode': 'lexical' };
    api.use({
      [`POST ${SEARCH}`]: () => json([passage({})], 200, { headers }),
      [`GET ${LIST}`]: [doc({})],
    });
    renderTab();
    await screen.findByRole('link', { name: 'Syllabus' });
    fill(input(), 'How are late submissions graded?');
    submit();
    expect(await screen.findByTestId('retrieval-mode')).toHaveTextContent('Lexical search only: no embeddings provider is configured.');

    headers = { 'X-Retrieval-Mode': 'hybrid', 'X-Embeddings-Model': 'sim-embeddings-not-semantic', 'X-Embeddings-Simulated': 'true' };
    submit();
    await waitFor(() =>
      expect(screen.getByTestId('retrieval-mode')).toHaveTextContent(
        'Semantic and lexical search (sim-embeddings-not-semantic; simulated embeddings, not semantic).',
      ),
    );
    headers = { 'X-Retrieval-Mode': 'hybrid', 'X-Embeddings-Model': 'text-embedding-3-small' };
    submit();
    await waitFor(() => expect(screen.getByTestId('retrieval-mode')).toHaveTextContent('Semantic and lexical search (text-embedding-3-small).'));
    headers = { 'X-Retrieval-Mode': 'fallback', 'X-Embeddings-Model': 'text-embedding-3-small' };
    submit();
    await waitFor(() =>
      expect(screen.getByTestId('retrieval-mode')).toHaveTextContent('The embeddings provider did not answer: this search was lexical only.'),
    );
    // A server that does not say: nothing is claimed.
    headers = {};
    submit();
    await waitFor(() => expect(screen.queryByTestId('retrieval-mode')).not.toBeInTheDocument());
  });

  it('says when no passage is relevant enough for the agent to answer from', async () => {
    api.use({
      [`POST ${SEARCH}`]: () => [passage({ relevance: 0.12, relevant: false })],
      [`GET ${LIST}`]: [doc({})],
    });
    renderTab();
    await screen.findByRole('link', { name: 'Syllabus' });
    fill(input(), 'Is there a student discount?');
    submit();
    expect(await screen.findByTestId('retrieval-none-relevant')).toHaveTextContent(
      'None of these passages is relevant enough: the agent would answer that its documents do not cover this question.',
    );
    const list = screen.getByRole('list', { name: 'Retrieved passages' });
    expect(within(list).getByTestId('passage-not-used')).toBeInTheDocument();
  });
});
