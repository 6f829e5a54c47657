import { QueryClientProvider } from '@tanstack/react-query';
import { act, configure, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/toast';
import { removeToast } from '@/components/toast/toast-store';
import { AuthContext } from '@/features/auth/auth-context';
import { createQueryClient } from '@/lib/query-client';
import { type FakeApi, fakeApi, noContent } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { authValue } from '@/test/render';
import { draftKey, readDraft, writeDraft } from '../lib/editor-draft';
import type { Agent } from '../types';
import { AgentsPage } from './AgentsPage';

// Role queries' visibility check is very slow with antd's styles in jsdom (see AgentsPage.test).
configure({ defaultHidden: true });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

const LIST = '/dashboard/agentic-users';

function agent(overrides: Partial<Agent> = {}): Agent {
  return {
    id: 'a1',
    userId: 'u1',
    name: 'Physics Tutor',
    description: 'Helps students with physics homework',
    category: 'Education',
    status: 'active',
    isPublic: false,
    iconName: 'ri-brain-line',
    iconColor: '#4076D6',
    instructions: 'Be kind.',
    tags: [],
    subscribers: 0,
    totalInteractions: 0,
    email: 'physics-tutor-1@agents.example.com',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

let agents: Agent[];
let api: FakeApi;
const bodyOf = (key: string) => api.callsTo(key)[0]!.body;

beforeEach(() => {
  removeToast();
  localStorage.clear();
  agents = [agent()];
  api = fakeApi({
    'GET /api/agents': () => agents,
    // What the editor's tabs and header read besides the agent.
    'GET /api/agents/:id/documents': [],
    'GET /api/agents/:id/subscribers': [],
    'GET /api/user/agent-fees': { success: true, data: [] },
  });
});
afterEach(() => localStorage.clear());

function renderAt(...entries: string[]) {
  const router = createMemoryRouter(
    [
      { path: LIST, element: <AgentsPage />, children: [{ path: ':agentId/:tab?', element: null }] },
      { path: '/dashboard', element: <h1>Dashboard</h1> },
    ],
    { initialEntries: entries, initialIndex: entries.length - 1 },
  );
  render(
    <QueryClientProvider client={createQueryClient()}>
      <AuthContext.Provider value={authValue({ user: { uid: 'u1', email: 'ada@example.com', displayName: 'Ada' } })}>
        <RouterProvider router={router} />
        <Toaster />
      </AuthContext.Provider>
    </QueryClientProvider>,
  );
  return router;
}

const path = (router: ReturnType<typeof renderAt>) => router.state.location.pathname;
const editor = () => screen.findByRole('dialog', { name: 'Physics Tutor' });
const instructions = (dlg: HTMLElement) => within(dlg).getByLabelText('Agent Instructions');
/**
 * A modal by its title. In tests rc-util's useId gives every dialog the same id ("test-id"), so a modal over the
 * editor cannot be found by its accessible name (in the browser the ids are unique).
 */
async function modal(title: string) {
  const heading = await screen.findByText(title, { selector: '.ant-modal-title' });
  return heading.closest<HTMLElement>('[role="dialog"]')!;
}
const discardDialog = () => modal('Discard unsaved changes?');
const noDiscardDialog = () =>
  waitFor(() => expect(screen.queryByText('Discard unsaved changes?', { selector: '.ant-modal-title' })).toBeNull());

describe('the agent editor has an address (issue 29)', { timeout: 60_000 }, () => {
  it('opens on the tab the address names, and switching tabs changes the address (Back returns)', async () => {
    const router = renderAt(`${LIST}/a1/settings`);
    const dlg = await editor();
    expect(within(dlg).getByRole('tab', { name: 'Settings' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('button', { name: 'Save Changes' })).toBeInTheDocument();

    fireEvent.click(within(dlg).getByRole('tab', { name: 'Channels' }));
    await waitFor(() => expect(path(router)).toBe(`${LIST}/a1/channels`));
    expect(within(dlg).getByRole('tab', { name: 'Channels' })).toHaveAttribute('aria-selected', 'true');
    // Save Changes saves nothing of Channels: no bar there.
    expect(screen.queryByRole('button', { name: 'Save Changes' })).not.toBeInTheDocument();

    await act(() => router.navigate(-1));
    expect(path(router)).toBe(`${LIST}/a1/settings`);
    await waitFor(() => expect(within(dlg).getByRole('tab', { name: 'Settings' })).toHaveAttribute('aria-selected', 'true'));
  });

  it('/{id} is the first tab, an unknown tab is corrected, and an old ?agent= link is redirected', async () => {
    const router = renderAt(`${LIST}/a1/nonsense`);
    await waitFor(() => expect(path(router)).toBe(`${LIST}/a1`));
    const dlg = await editor();
    expect(within(dlg).getByRole('tab', { name: 'Instructions & Documents' })).toHaveAttribute('aria-selected', 'true');

    await act(() => router.navigate(`${LIST}?agent=a1`));
    await waitFor(() => expect(path(router)).toBe(`${LIST}/a1`));
  });

  it("an unknown (or another user's) agent leads back to the list with a message", async () => {
    const router = renderAt(`${LIST}/nobody/settings`);
    expect(await screen.findByRole('alert', { name: 'Agent not found' })).toHaveTextContent(
      'This agent does not exist, or it is not one of yours.',
    );
    expect(path(router)).toBe(LIST);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});

describe('never lose work (issue 29)', { timeout: 60_000 }, () => {
  it('asks before an editor with unsaved changes closes: Escape, ×, Back, another route', async () => {
    const router = renderAt(LIST, `${LIST}/a1/instructions`);
    const dlg = await editor();
    // Nothing changed: Escape closes at once.
    fireEvent.keyDown(instructions(dlg), { key: 'Escape' });
    await waitFor(() => expect(path(router)).toBe(LIST));

    await act(() => router.navigate(`${LIST}/a1/instructions`));
    const again = await editor();
    fireEvent.change(instructions(again), { target: { value: 'Be kind and precise.' } });

    // Escape: asked; Keep editing keeps the text.
    fireEvent.keyDown(instructions(again), { key: 'Escape' });
    let ask = await discardDialog();
    expect(within(ask).getByRole('button', { name: 'Discard' })).toBeInTheDocument();
    fireEvent.click(within(ask).getByRole('button', { name: 'Keep editing' }));
    await noDiscardDialog();
    expect(path(router)).toBe(`${LIST}/a1/instructions`);
    expect(instructions(again)).toHaveValue('Be kind and precise.');

    // Another tab of the same editor keeps the changes without asking.
    fireEvent.click(within(again).getByRole('tab', { name: 'Users' }));
    await waitFor(() => expect(path(router)).toBe(`${LIST}/a1/users`));
    await noDiscardDialog();

    // ×, Back and another route: asked each time.
    fireEvent.click(within(again).getByRole('button', { name: 'Close' }));
    ask = await discardDialog();
    fireEvent.click(within(ask).getByRole('button', { name: 'Keep editing' }));
    await noDiscardDialog();
    expect(path(router)).toBe(`${LIST}/a1/users`);
    await act(() => router.navigate(-2));
    ask = await discardDialog();
    fireEvent.click(within(ask).getByRole('button', { name: 'Keep editing' }));
    await noDiscardDialog();
    expect(path(router)).toBe(`${LIST}/a1/users`);

    await act(() => router.navigate('/dashboard'));
    ask = await discardDialog();
    fireEvent.click(within(ask).getByRole('button', { name: 'Discard' }));
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(path(router)).toBe('/dashboard');
    // Discarded: no local draft is offered later.
    expect(readDraft('u1', 'a1')).toBeNull();
  });

  it('a reload with unsaved changes asks the browser first', async () => {
    renderAt(`${LIST}/a1`);
    const dlg = await editor();
    const unload = () => {
      const event = new Event('beforeunload', { cancelable: true });
      window.dispatchEvent(event);
      return event.defaultPrevented;
    };
    expect(unload()).toBe(false);
    fireEvent.change(instructions(dlg), { target: { value: 'Changed.' } });
    await waitFor(() => expect(unload()).toBe(true));
    fireEvent.change(instructions(dlg), { target: { value: 'Be kind.' } });
    await waitFor(() => expect(unload()).toBe(false));
  });

  it('keeps unsaved instructions as a local draft, offers it back after a reload, and drops it once saved', async () => {
    api.use({
      'PATCH /api/agents/a1': (req) => {
        agents = [agent({ ...(req.body as Partial<Agent>) })];
        return agents[0]!;
      },
    });
    // An earlier visit typed without saving, then the page was reloaded.
    writeDraft('u1', 'a1', 'Be kind. Cite the textbook.');
    renderAt(`${LIST}/a1/settings`);
    const dlg = await editor();
    const offer = await within(dlg).findByRole('region', { name: 'Restore your unsaved draft?' });
    // Offered, not applied: the kept draft stays until the owner answers.
    expect(readDraft('u1', 'a1')?.instructions).toBe('Be kind. Cite the textbook.');
    fireEvent.click(within(offer).getByRole('button', { name: 'Restore' }));
    expect(within(dlg).queryByRole('region', { name: 'Restore your unsaved draft?' })).not.toBeInTheDocument();
    // Restoring shows the instructions.
    await waitFor(() =>
      expect(within(dlg).getByRole('tab', { name: 'Instructions & Documents' })).toHaveAttribute('aria-selected', 'true'),
    );
    expect(instructions(dlg)).toHaveValue('Be kind. Cite the textbook.');
    expect(readDraft('u1', 'a1')?.instructions).toBe('Be kind. Cite the textbook.');

    // Typing updates the local draft; saving drops it.
    fireEvent.change(instructions(dlg), { target: { value: 'Be kind. Cite the textbook, page by page.' } });
    await waitFor(() => expect(readDraft('u1', 'a1')?.instructions).toBe('Be kind. Cite the textbook, page by page.'));
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByRole('status', { name: 'Agent Updated' })).toBeInTheDocument();
    expect(bodyOf('PATCH /api/agents/a1')).toMatchObject({
      instructions: 'Be kind. Cite the textbook, page by page.',
    });
    await waitFor(() => expect(localStorage.getItem(draftKey('u1', 'a1'))).toBeNull());
  });

  it('Dismiss drops the offered draft', async () => {
    writeDraft('u1', 'a1', 'Something old.');
    renderAt(`${LIST}/a1`);
    const dlg = await editor();
    const offer = await within(dlg).findByRole('region', { name: 'Restore your unsaved draft?' });
    fireEvent.click(within(offer).getByRole('button', { name: 'Dismiss' }));
    expect(within(dlg).queryByRole('region', { name: 'Restore your unsaved draft?' })).not.toBeInTheDocument();
    expect(instructions(dlg)).toHaveValue('Be kind.');
    await waitFor(() => expect(readDraft('u1', 'a1')).toBeNull());
  });
});

describe('Settings: rename, re-icon, re-colour and delete (issue 29)', { timeout: 60_000 }, () => {
  it('sends the changed name, icon and colour with Save Changes, after checking the name', async () => {
    api.use({
      'PATCH /api/agents/a1': (req) => {
        agents = [agent(req.body as Partial<Agent>)];
        return agents[0]!;
      },
    });
    renderAt(`${LIST}/a1/settings`);
    const dlg = await editor();
    const name = within(dlg).getByLabelText('Name');
    expect(name).toHaveValue('Physics Tutor');
    expect(within(dlg).getByRole('radio', { name: 'Brain' })).toBeChecked();
    expect(within(dlg).getByRole('radio', { name: 'Blue' })).toBeChecked();

    fireEvent.change(name, { target: { value: ' A ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await within(dlg).findByText('Name must be at least 2 characters')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/agents/a1')).toHaveLength(0);

    fireEvent.change(name, { target: { value: '  Physics Coach ' } });
    expect(within(dlg).queryByText('Name must be at least 2 characters')).not.toBeInTheDocument();
    fireEvent.click(within(dlg).getByRole('radio', { name: 'Code' }));
    fireEvent.click(within(dlg).getByRole('radio', { name: 'Green' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByRole('status', { name: 'Agent Updated' })).toBeInTheDocument();
    expect(bodyOf('PATCH /api/agents/a1')).toEqual({
      instructions: 'Be kind.',
      status: 'active',
      isPublic: false,
      tags: [],
      description: 'Helps students with physics homework',
      name: 'Physics Coach',
      iconName: 'ri-code-line',
      iconColor: '#10B981',
    });
    // The editor is named by the new name.
    expect(await screen.findByRole('dialog', { name: 'Physics Coach' })).toBeInTheDocument();
  });

  it('deletes the agent after its name is typed, then shows the list without it', async () => {
    api.use({
      'DELETE /api/agents/a1': () => {
        agents = [];
        return noContent();
      },
    });
    const router = renderAt(LIST, `${LIST}/a1/settings`);
    const dlg = await editor();
    const zone = within(dlg).getByRole('region', { name: 'Delete agent' });
    fireEvent.click(within(zone).getByRole('button', { name: 'Delete agent' }));
    const confirm = await modal('Delete Physics Tutor?');
    const button = within(confirm).getByRole('button', { name: 'Delete agent' });
    expect(button).toBeDisabled();
    fireEvent.change(within(confirm).getByLabelText('Type Physics Tutor to confirm'), { target: { value: 'Physics' } });
    expect(button).toBeDisabled();
    fireEvent.change(within(confirm).getByLabelText('Type Physics Tutor to confirm'), { target: { value: 'Physics Tutor' } });
    expect(button).toBeEnabled();
    fireEvent.click(button);

    expect(await screen.findByRole('status', { name: 'Agent deleted' })).toHaveTextContent('Physics Tutor has been deleted.');
    await waitFor(() => expect(path(router)).toBe(LIST));
    expect(api.callsTo('DELETE /api/agents/a1')).toHaveLength(1);
    expect(await screen.findByRole('heading', { name: 'No Agentic Users Yet' })).toBeInTheDocument();
    expect(screen.queryByRole('alert', { name: 'Agent not found' })).not.toBeInTheDocument();
  });
});
