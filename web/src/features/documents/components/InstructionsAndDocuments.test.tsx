import { QueryClientProvider } from '@tanstack/react-query';
import { configure, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/toast';
import { removeToast } from '@/components/toast/toast-store';
import { createQueryClient } from '@/lib/query-client';
import { type FakeApi, fakeApi, json, noContent, text } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import type { AgentDocument } from '../types';
import { InstructionsAndDocuments } from './InstructionsAndDocuments';

// Role queries' visibility check is very slow with antd's styles in jsdom (see AgentsPage.test).
configure({ defaultHidden: true });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

const ID = '1aBcD_eFgH-iJkLmNoPqRsTuVwXyZ0123456789abcde';
const URL_OK = `https://docs.google.com/document/d/${ID}/edit`;
const LIST = '/api/agents/a1/documents';

function doc(overrides: Partial<AgentDocument>): AgentDocument {
  return {
    id: 'd1',
    agentId: 'a1',
    name: 'Syllabus',
    url: URL_OK,
    driveFileId: ID,
    labels: ['week1'],
    sharingStatus: 'shared',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

let api: FakeApi;
/** The requests to exactly `url` (with its query). */
const calls = (method: string, url: string) => api.calls.filter((c) => c.method === method && c.input === url);

beforeEach(() => {
  removeToast();
  // Entering a link asks for the document's title; by default the agent cannot open it yet.
  api = fakeApi({ [`GET ${LIST}/preview`]: { title: null, shared: false } });
});

function Harness({ initial = '' }: { initial?: string }) {
  const [text, setText] = useState(initial);
  return (
    <InstructionsAndDocuments agentId="a1" agentEmail="tutor@agents.example.com" instructions={text} onInstructionsChange={setText} />
  );
}

function renderTab(initial = '') {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <Harness initial={initial} />
      <Toaster />
    </QueryClientProvider>,
  );
}

const fill = (input: HTMLElement, value: string) => fireEvent.change(input, { target: { value } });

describe('InstructionsAndDocuments', { timeout: 30_000 }, () => {
  it('shows the empty state and the sharing note', async () => {
    api.use({ [`GET ${LIST}`]: [] });
    renderTab();
    expect(await screen.findByText('No documents linked')).toBeInTheDocument();
    expect(screen.getByTestId('documents-share-note')).toHaveTextContent('tutor@agents.example.com');
    expect(screen.getByTestId('token-count')).toHaveTextContent('~0 tokens');
  });

  it('lists documents, marks references, highlights and counts tokens', async () => {
    api.use({ [`GET ${LIST}`]: [doc({}), doc({ id: 'd2', name: 'Lab_2', labels: ['week2'] })] });
    renderTab('See @Syllabus.');
    const link = await screen.findByRole('link', { name: 'Syllabus' });
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    expect(link).toHaveAttribute('href', URL_OK);
    const rowOf = (name: string) => screen.getByRole('link', { name }).closest('tr')!;
    expect(within(rowOf('Syllabus')).getByText('Referenced')).toBeInTheDocument();
    expect(within(rowOf('Lab_2')).queryByText('Referenced')).not.toBeInTheDocument();
    expect(screen.getByTestId('token-count')).toHaveTextContent('~4 tokens');

    const textarea = screen.getByLabelText('Agent Instructions');
    fill(textarea, 'See @Syllabus and #week2 and #nope and @Gone');
    expect(within(rowOf('Lab_2')).getByText('Referenced')).toBeInTheDocument();
    const layer = screen.getByTestId('instructions-highlight');
    const spans = [...layer.querySelectorAll('[data-ref]')].map((s) => [s.textContent, s.getAttribute('data-ref'), s.getAttribute('data-known')]);
    expect(spans).toEqual([
      ['@Syllabus', 'document', 'true'],
      ['#week2', 'label', 'true'],
      ['#nope', 'label', 'false'],
      ['@Gone', 'document', 'false'],
    ]);
    expect(layer.textContent).toBe('See @Syllabus and #week2 and #nope and @Gone\u200b');
    expect(screen.getByTestId('token-count')).toHaveTextContent(`~${Math.ceil(44 / 4)} tokens`);
  });

  it('suggests documents and labels and inserts the choice', async () => {
    api.use({ [`GET ${LIST}`]: [doc({}), doc({ id: 'd2', name: 'Lab_2', labels: ['week2', 'week1'] })] });
    renderTab();
    await screen.findByRole('link', { name: 'Lab_2' });
    const textarea = screen.getByLabelText('Agent Instructions') as HTMLTextAreaElement;
    fireEvent.focus(textarea);
    fill(textarea, 'Read @');
    const list = screen.getByRole('listbox', { name: 'Document suggestions' });
    expect(within(list).getAllByRole('option').map((o) => o.textContent)).toEqual(['Syllabus', 'Lab_2']);
    fireEvent.keyDown(textarea, { key: 'ArrowDown' });
    const lab = within(list).getByRole('option', { name: 'Lab_2' });
    expect(lab).toHaveAttribute('aria-selected', 'true');
    expect(textarea).toHaveAttribute('aria-activedescendant', lab.id);
    fireEvent.keyDown(textarea, { key: 'Enter' });
    expect(textarea).toHaveValue('Read @Lab_2 ');
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();

    fill(textarea, 'Read @Lab_2 #W');
    expect(within(screen.getByRole('listbox', { name: 'Label suggestions' })).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'week1',
      'week2',
    ]);
    fireEvent.keyDown(textarea, { key: 'Escape' });
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();

    // Escape closes the list for that # ; typing more there keeps it closed, a new # opens one.
    fill(textarea, 'Read @Lab_2 #Wx');
    expect(screen.queryByText('No labels found')).not.toBeInTheDocument();
    fill(textarea, 'Read @Lab_2 #Wx #x');
    expect(screen.getByText('No labels found')).toBeInTheDocument();
    fill(textarea, 'Read @zz');
    expect(screen.getByText('No documents found')).toBeInTheDocument();
  });

  it('adds a document: validation, pending label, payload, toast', async () => {
    let docs: AgentDocument[] = [];
    let posted: unknown;
    api.use({
      [`POST ${LIST}`]: (req) => {
        posted = req.body;
        docs = [doc({ ...(posted as Partial<AgentDocument>), id: 'new' })];
        return json(docs[0], 201);
      },
      [`GET ${LIST}`]: () => docs,
    });
    renderTab();
    fireEvent.click(await screen.findByRole('button', { name: 'Add Document' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add Google Docs Document' });
    expect(within(dialog).getByText(/Only Google Docs documents are supported/)).toBeInTheDocument();
    const submit = within(dialog).getByRole('button', { name: 'Add Document' });
    fireEvent.click(submit);
    expect(await within(dialog).findByText('Document name is required')).toBeInTheDocument();
    expect(within(dialog).getByText('Document URL is required')).toBeInTheDocument();

    fill(within(dialog).getByLabelText('Document Name'), 'My Doc');
    fill(within(dialog).getByLabelText('Document URL'), 'https://example.com/x');
    fireEvent.click(submit);
    expect(await within(dialog).findByText('Document name cannot contain spaces.')).toBeInTheDocument();
    expect(within(dialog).getByText('URL must be a document URL (docs.google.com/document/...)')).toBeInTheDocument();

    fill(within(dialog).getByLabelText('Document Name'), 'Syllabus');
    fill(within(dialog).getByLabelText('Document URL'), 'https://docs.google.com/document/d/short');
    fireEvent.click(submit);
    expect(
      await within(dialog).findByText('Invalid Google Docs URL: Could not extract document ID from the provided URL.'),
    ).toBeInTheDocument();

    const labels = within(dialog).getByLabelText('Labels');
    fill(labels, 'a b');
    fireEvent.keyDown(labels, { key: 'Enter' });
    expect(within(dialog).getByText('Invalid label: Labels cannot contain spaces.')).toBeInTheDocument();
    fill(labels, 'week1');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    fill(labels, 'week1');
    fireEvent.keyDown(labels, { key: 'Enter' });
    expect(within(dialog).getAllByRole('button', { name: /^Remove label / })).toHaveLength(1);
    fill(labels, ' exam ');
    fill(within(dialog).getByLabelText('Document URL'), ` ${URL_OK} `);
    fireEvent.click(submit);

    expect(await screen.findByRole('status', { name: 'Document added' })).toBeInTheDocument();
    expect(posted).toEqual({ name: 'Syllabus', url: URL_OK, driveFileId: ID, labels: ['week1', 'exam'], sharingStatus: 'shared' });
    expect(await screen.findByRole('link', { name: 'Syllabus' })).toBeInTheDocument();
    // (rc-dialog keeps the closing dialog's content until its exit animation ends, which never
    // happens in jsdom; the Playwright suite checks that the dialog closes.)
  });

  it('shows the server message, or the fallback, when adding fails', async () => {
    let status = 409;
    api.use({
      [`POST ${LIST}`]: () =>
        status === 409
          ? json({ error: 'conflict', message: 'A document with this name already exists for this agent.' }, 409)
          : text('', 500),
      [`GET ${LIST}`]: [],
    });
    renderTab();
    fireEvent.click(await screen.findByRole('button', { name: 'Add Document' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add Google Docs Document' });
    fill(within(dialog).getByLabelText('Document Name'), 'Syllabus');
    fill(within(dialog).getByLabelText('Document URL'), URL_OK);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Add Document' }));
    const alert = await screen.findByRole('alert', { name: 'Error adding document' });
    expect(alert).toHaveTextContent('A document with this name already exists for this agent.');
    status = 500;
    fireEvent.click(within(dialog).getByRole('button', { name: 'Add Document' }));
    expect(await screen.findByText('Failed to add document. Please try again.')).toBeInTheDocument();
    expect(screen.getAllByRole('alert', { name: 'Error adding document' })).toHaveLength(2);
  });

  it('edits with a PUT of the full document, and deletes without confirmation', async () => {
    let docs = [doc({ labels: ['week1', 'exam'] })];
    let put: unknown;
    api.use({
      [`PUT ${LIST}/d1`]: (req) => {
        put = req.body;
        docs = [put as AgentDocument];
        return json(put);
      },
      [`DELETE ${LIST}/d1`]: () => {
        docs = [];
        return noContent();
      },
      [`GET ${LIST}`]: () => docs,
    });
    renderTab();
    fireEvent.click(await screen.findByRole('button', { name: 'Edit Syllabus' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Document' });
    expect(within(dialog).getByLabelText('Document URL')).toHaveAttribute('readonly');
    fill(within(dialog).getByLabelText('Document Name'), 'Course Syllabus');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save Changes' }));
    expect(await within(dialog).findByText('Document name cannot contain spaces.')).toBeInTheDocument();
    fill(within(dialog).getByLabelText('Document Name'), 'CourseSyllabus');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove label week1' }));
    fill(within(dialog).getByLabelText('Labels'), 'final');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByRole('status', { name: 'Document updated' })).toBeInTheDocument();
    expect(put).toEqual({ ...doc({}), name: 'CourseSyllabus', labels: ['exam', 'final'] });
    expect(await screen.findByRole('link', { name: 'CourseSyllabus' })).toBeInTheDocument();

    fireEvent.click(screen.getByRole('button', { name: 'Delete CourseSyllabus' }));
    expect(await screen.findByText('No documents linked')).toBeInTheDocument();
    expect(calls('DELETE', `${LIST}/d1`)).toHaveLength(1);
  });

  it('logs a failed delete and refreshes the list', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    api.use({
      [`DELETE ${LIST}/d1`]: () => json({ error: 'not_found', message: 'Document not found' }, 404),
      [`GET ${LIST}`]: [doc({})],
    });
    renderTab();
    fireEvent.click(await screen.findByRole('button', { name: 'Delete Syllabus' }));
    await waitFor(() => expect(calls('GET', LIST)).toHaveLength(2));
    expect(error).toHaveBeenCalledWith('Error deleting document:', expect.anything());
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});

describe('Add document: name from the Google Docs title', { timeout: 30_000 }, () => {
  const PREVIEW = `${LIST}/preview?url=${encodeURIComponent(URL_OK)}`;

  it('pre-fills the Name from the title (spaces → underscores) once the link is entered', async () => {
    api.use({ [`GET ${LIST}/preview`]: { title: 'CS 101  Syllabus', shared: true }, [`GET ${LIST}`]: [] });
    renderTab();
    fireEvent.click(await screen.findByRole('button', { name: 'Add Document' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add Google Docs Document' });
    fill(within(dialog).getByLabelText('Document URL'), URL_OK);
    await waitFor(() => expect(within(dialog).getByLabelText('Document Name')).toHaveValue('CS_101_Syllabus'));
    expect(calls('GET', PREVIEW)).toHaveLength(1);
  });

  it('keeps a name the creator typed', async () => {
    api.use({ [`GET ${LIST}/preview`]: { title: 'Week Notes', shared: true }, [`GET ${LIST}`]: [] });
    renderTab();
    fireEvent.click(await screen.findByRole('button', { name: 'Add Document' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add Google Docs Document' });
    fill(within(dialog).getByLabelText('Document Name'), 'Mine');
    fill(within(dialog).getByLabelText('Document URL'), URL_OK);
    await waitFor(() => expect(calls('GET', PREVIEW)).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 50));
    expect(within(dialog).getByLabelText('Document Name')).toHaveValue('Mine');
  });

  it('leaves the Name empty, without an error, when the agent cannot open the document yet', async () => {
    api.use({ [`GET ${LIST}/preview`]: { title: null, shared: false }, [`GET ${LIST}`]: [] });
    renderTab();
    fireEvent.click(await screen.findByRole('button', { name: 'Add Document' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add Google Docs Document' });
    fill(within(dialog).getByLabelText('Document URL'), URL_OK);
    await waitFor(() => expect(calls('GET', PREVIEW)).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 50));
    expect(within(dialog).getByLabelText('Document Name')).toHaveValue('');
    expect(within(dialog).queryByText('Document name is required')).toBeNull();
  });
});
