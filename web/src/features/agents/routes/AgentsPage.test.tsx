import { QueryClientProvider } from '@tanstack/react-query';
import { configure, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/toast';
import { removeToast } from '@/components/toast/toast-store';
import { AuthContext } from '@/features/auth/auth-context';
import { createQueryClient } from '@/lib/query-client';
import { type FakeApi, fakeApi, json, text } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { setMarketplaceEnabled } from '@/test/marketplace';
import { authValue } from '@/test/render';
import type { Agent } from '../types';
import { AgentsPage } from './AgentsPage';

// getByRole's visibility check calls getComputedStyle up the tree, which is very slow with
// antd's injected styles in jsdom; every queried element here is visible anyway.
configure({ defaultHidden: true });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

function agent(overrides: Partial<Agent>): Agent {
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
    instructions: '',
    tags: [],
    subscribers: 3,
    totalInteractions: 42,
    email: 'physics-tutor-1@agents.example.com',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

let api: FakeApi;

beforeEach(() => {
  // The toast store is a module singleton: start every test without the previous test's toasts.
  removeToast();
  // What an open editor also reads: the agent's users and documents, and the owner's agent fees.
  api = fakeApi({
    'GET /api/agents/:id/subscribers': [],
    'GET /api/agents/:id/documents': [],
    'GET /api/user/agent-fees': { success: true, data: [] },
  });
});

/** The page under the route table's paths (the editor's addresses are child paths, issue 29). */
function renderPage(path = '/dashboard/agentic-users') {
  const user = { uid: 'u1', email: 'ada@example.com', displayName: 'Ada' };
  const router = createMemoryRouter(
    [{ path: '/dashboard/agentic-users', element: <AgentsPage />, children: [{ path: ':agentId/:tab?', element: null }] }],
    { initialEntries: [path] },
  );
  const utils = render(
    <QueryClientProvider client={createQueryClient()}>
      <AuthContext.Provider value={authValue({ user })}>
        <RouterProvider router={router} />
        <Toaster />
      </AuthContext.Provider>
    </QueryClientProvider>,
  );
  return { ...utils, router };
}

/** Typing character by character through antd is slow in jsdom: set the value in one go. */
function fill(input: HTMLElement, value: string) {
  fireEvent.change(input, { target: { value } });
}

const bodyOf = (key: string) => api.callsTo(key)[0]!.body;

// antd in jsdom is slow, and the suite shares 2 cores with the rest of the tests.
describe('AgentsPage', { timeout: 60_000 }, () => {
  it('lists the agents and filters them with the search box', async () => {
    api.use({
      'GET /api/agents': [
        agent({ tags: ['physics', 'homework', 'exams', 'labs'] }),
        agent({ id: 'a2', name: 'ISO Writer', description: 'Writes ISO 27001 documents', category: 'Compliance', status: 'pending' }),
      ],
    });
    renderPage();

    expect(await screen.findByText('Physics Tutor')).toBeInTheDocument();
    const headers = screen.getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers).toEqual(['Agent', 'Category', 'Status', 'Users', 'Interactions', 'Tags']);
    const row = screen.getByRole('row', { name: /Physics Tutor/ });
    expect(within(row).getByText('active')).toHaveAttribute('data-color', 'green');
    expect(within(row).getByText('+2')).toBeInTheDocument();
    expect(within(row).getByText('42')).toBeInTheDocument();
    expect(within(screen.getByRole('row', { name: /ISO Writer/ })).getByText('pending')).toHaveAttribute('data-color', 'yellow');

    // The request carries the Bearer token.
    expect(api.callsTo('GET /api/agents')[0]!.headers.get('Authorization')).toBe('Bearer token-123');

    const search = screen.getByPlaceholderText('Search by name, description or category...');
    fill(search, 'COMPLIANCE');
    expect(screen.queryByText('Physics Tutor')).not.toBeInTheDocument();
    expect(screen.getByText('ISO Writer')).toBeInTheDocument();
    fill(search, 'nothing like this');
    expect(await screen.findByText('No results.')).toBeInTheDocument();
  });

  it('shows the empty state', async () => {
    api.use({ 'GET /api/agents': [] });
    renderPage();
    expect(await screen.findByRole('heading', { name: 'No Agentic Users Yet' })).toBeInTheDocument();
    expect(screen.getByText('Create your first agentic user to get started')).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: 'Create New Agent' })).toHaveLength(2);
  });

  it('shows the fetch failure text', async () => {
    api.use({ 'GET /api/agents': () => text('boom', 500, { statusText: 'Internal Server Error' }) });
    renderPage();
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to fetch agents: Internal Server Error');
  });

  it('validates the create form, then creates the agent', async () => {
    let agents: Agent[] = [];
    api.use({
      'POST /api/agents': (req) => {
        const created = agent({ id: 'new', ...(req.body as Partial<Agent>) });
        agents = [created];
        return json(created, 201, { statusText: 'Created' });
      },
      'GET /api/agents': () => agents,
    });
    const { router } = renderPage();
    await screen.findByText('No Agentic Users Yet');
    fireEvent.click(screen.getAllByRole('button', { name: 'Create New Agent' })[0]!);
    const dialog = await screen.findByRole('dialog', { name: 'Create New Agent' });
    expect(within(dialog).getByRole('switch', { name: 'Visibility: Private' })).toBeDisabled();
    expect(within(dialog).getByText(/Public agents are coming soon/)).toBeInTheDocument();
    expect(within(dialog).getByRole('radio', { name: 'Robot' })).toBeChecked();
    expect(within(dialog).getByRole('radio', { name: 'Orange' })).toBeChecked();

    fireEvent.click(within(dialog).getByRole('button', { name: 'Create Agent' }));
    expect(await within(dialog).findByText('Name must be at least 2 characters')).toBeInTheDocument();
    expect(within(dialog).getByText('Description must be at least 10 characters')).toBeInTheDocument();
    expect(within(dialog).getByText('Category is required')).toBeInTheDocument();
    expect(api.callsTo('POST /api/agents')).toHaveLength(0);

    fill(within(dialog).getByLabelText('Name'), 'Chem Tutor');
    fill(within(dialog).getByLabelText('Description'), 'Explains chemistry step by step');
    fill(within(dialog).getByLabelText('Category'), 'Education');
    fireEvent.click(within(dialog).getByRole('radio', { name: 'Customer Service' }));
    fireEvent.click(within(dialog).getByRole('radio', { name: 'Purple' }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create Agent' }));

    expect(await screen.findByRole('status', { name: 'Agent Created' })).toHaveTextContent(
      'Your new agent has been created successfully.',
    );
    // Issue 29: the new agent's editor opens on its Instructions & Documents tab.
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard/agentic-users/new/instructions'));
    const editor = await screen.findByRole('dialog', { name: 'Chem Tutor' });
    expect(within(editor).getByRole('tab', { name: 'Instructions & Documents' })).toHaveAttribute('aria-selected', 'true');
    expect(bodyOf('POST /api/agents')).toEqual({
      name: 'Chem Tutor',
      description: 'Explains chemistry step by step',
      category: 'Education',
      isPublic: false,
      iconName: 'ri-customer-service-line',
      iconColor: '#6767EC',
      userId: 'u1',
      instructions: '',
      tags: [],
    });
    expect(screen.getByRole('row', { name: /Chem Tutor/ })).toBeInTheDocument();
  });

  it('shows the server message when creating fails', async () => {
    api.use({
      'POST /api/agents': () =>
        json({ error: 'invalid_argument', message: 'Public agents are coming soon' }, 400, { statusText: 'Bad Request' }),
      'GET /api/agents': [],
    });
    renderPage();
    await screen.findByText('No Agentic Users Yet');
    fireEvent.click(screen.getAllByRole('button', { name: 'Create New Agent' })[0]!);
    const dialog = await screen.findByRole('dialog', { name: 'Create New Agent' });
    fill(within(dialog).getByLabelText('Name'), 'Chem Tutor');
    fill(within(dialog).getByLabelText('Description'), 'Explains chemistry step by step');
    fill(within(dialog).getByLabelText('Category'), 'Education');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create Agent' }));
    const alert = await screen.findByRole('alert', { name: 'Error' });
    expect(alert).toHaveTextContent('Public agents are coming soon');
  });

  it('opens the editor from a row and saves the settings', async () => {
    let saved: unknown;
    api.use({
      'PATCH /api/agents/a1': (req) => {
        saved = req.body;
        return agent({ ...(saved as Partial<Agent>) });
      },
      'GET /api/agents/a1/subscribers': () => [
        { id: 's1', name: 'Grace Hopper', email: 'grace@example.com', status: 'invited', joinedDate: new Date().toISOString(), interactions: 0 },
      ],
      'GET /api/agents': [agent({ tags: ['physics'], instructions: 'Be kind.' })],
    });
    renderPage();
    fireEvent.click(await screen.findByText('Physics Tutor'));
    const editor = await screen.findByRole('dialog', { name: 'Physics Tutor' });
    expect(within(editor).getByText('physics-tutor-1@agents.example.com')).toBeInTheDocument();
    expect(within(editor).getByLabelText('Agent Instructions')).toHaveValue('Be kind.');

    fireEvent.click(within(editor).getByRole('tab', { name: 'Users' }));
    expect(await within(editor).findByText('grace@example.com')).toBeInTheDocument();
    expect(within(editor).getByText('0 interactions')).toBeInTheDocument();
    expect(within(editor).getByText('today')).toBeInTheDocument();
    expect(within(editor).getByRole('button', { name: 'Revoke access for grace@example.com' })).toBeInTheDocument();
    fill(within(editor).getByPlaceholderText('Search users...'), 'nobody');
    expect(within(editor).queryByText('grace@example.com')).not.toBeInTheDocument();

    fireEvent.click(within(editor).getByRole('tab', { name: 'Settings' }));
    expect(within(editor).getByRole('button', { name: 'Active' })).toHaveAttribute('aria-pressed', 'true');
    expect(within(editor).getByRole('button', { name: 'Public' })).toBeDisabled();
    fireEvent.click(within(editor).getByRole('button', { name: 'Inactive' }));
    const tags = within(editor).getByLabelText('Tags');
    const enter = (value: string) => {
      fill(tags, value);
      fireEvent.keyDown(tags, { key: 'Enter' });
    };
    enter('  exams ');
    enter('physics');
    enter('   ');
    expect(tags).toHaveValue('');
    fill(tags, 'labs');
    fireEvent.click(within(editor).getByRole('button', { name: 'Add' }));
    fireEvent.click(within(editor).getByRole('button', { name: 'Remove tag physics' }));
    const description = within(editor).getByLabelText('Description');
    fill(description, 'A patient physics tutor');
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));

    expect(await screen.findByRole('status', { name: 'Agent Updated' })).toBeInTheDocument();
    expect(saved).toEqual({
      instructions: 'Be kind.',
      status: 'inactive',
      isPublic: false,
      tags: ['exams', 'labs'],
      description: 'A patient physics tutor',
    });
  });

  it("saves the Users tab's monthly cap on its own; Save Changes does not send it", async () => {
    const patches: unknown[] = [];
    let current = agent({ subscriberMonthlyCapCents: 500 });
    api.use({
      'PATCH /api/agents/a1': (req) => {
        const body = req.body as Partial<Agent>;
        patches.push(body);
        current = { ...current, ...body };
        return current;
      },
      'GET /api/agents': () => [current],
    });
    renderPage();
    fireEvent.click(await screen.findByText('Physics Tutor'));
    const editor = await screen.findByRole('dialog', { name: 'Physics Tutor' });
    fireEvent.click(within(editor).getByRole('tab', { name: 'Users' }));
    // The Save Changes bar shows only on the tabs whose edits it saves (issue 29).
    expect(screen.queryByRole('button', { name: 'Save Changes' })).not.toBeInTheDocument();
    const cap = within(editor).getByRole('spinbutton', { name: 'Monthly cap per subscriber' });
    expect(cap).toHaveValue('5.00');
    fill(cap, '7');
    fireEvent.click(within(editor).getByRole('button', { name: 'Save cap' }));
    expect(await screen.findByRole('status', { name: 'Monthly cap saved' })).toBeInTheDocument();
    expect(patches).toEqual([{ subscriberMonthlyCapCents: 700 }]);

    fireEvent.click(within(editor).getByRole('tab', { name: 'Settings' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByRole('status', { name: 'Agent Updated' })).toBeInTheDocument();
    expect(patches).toHaveLength(2);
    expect(patches[1]).not.toHaveProperty('subscriberMonthlyCapCents');
    // The saved cap stays in the field.
    fireEvent.click(within(editor).getByRole('tab', { name: 'Users' }));
    expect(within(editor).getByRole('spinbutton', { name: 'Monthly cap per subscriber' })).toHaveValue('7.00');
  });

  it('shows the update error text when saving fails', async () => {
    api.use({
      'PATCH /api/agents/:id': () => text('nope', 404, { statusText: 'Not Found' }),
      'GET /api/agents': [agent({})],
    });
    renderPage();
    fireEvent.click(await screen.findByText('Physics Tutor'));
    await screen.findByRole('dialog', { name: 'Physics Tutor' });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    const alert = await screen.findByRole('alert', { name: 'Error' });
    expect(alert).toHaveTextContent('Failed to update agent: 404 Not Found - nope');
    await waitFor(() => expect(api.callsTo('PATCH /api/agents/a1')).toHaveLength(1));
  });
});

describe('AgentsPage with the marketplace open (issue 27)', { timeout: 30_000 }, () => {
  beforeEach(() => setMarketplaceEnabled(true));

  async function openSettings(current: Agent) {
    renderPage();
    fireEvent.click(await screen.findByText(current.name));
    const editor = await screen.findByRole('dialog', { name: current.name });
    fireEvent.click(within(editor).getByRole('tab', { name: 'Settings' }));
    // The switch is asked asynchronously: Public becomes choosable once it is known to be on.
    await waitFor(() => expect(within(editor).getByRole('button', { name: 'Public' })).toBeEnabled());
    return editor;
  }

  it('the Create dialog offers Public without the coming-soon note, and shows the server refusal at Visibility', async () => {
    api.use({
      'POST /api/agents': () =>
        json(
          {
            error: 'validation_failed',
            message: 'Link and share at least one document before publishing.',
            fields: { isPublic: 'Link and share at least one document before publishing.' },
          },
          400,
          { statusText: 'Bad Request' },
        ),
      'GET /api/agents': [],
    });
    renderPage();
    await screen.findByText('No Agentic Users Yet');
    fireEvent.click(screen.getAllByRole('button', { name: 'Create New Agent' })[0]!);
    const dialog = await screen.findByRole('dialog', { name: 'Create New Agent' });
    // The switch is asked asynchronously: the toggle becomes choosable once it is known to be on.
    await waitFor(() => expect(within(dialog).getByRole('switch', { name: 'Visibility: Private' })).toBeEnabled());
    const visibility = within(dialog).getByRole('switch', { name: 'Visibility: Private' });
    expect(within(dialog).queryByText(/Public agents are coming soon/)).not.toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Express Interest' })).not.toBeInTheDocument();

    fireEvent.click(visibility);
    expect(within(dialog).getByRole('switch', { name: 'Visibility: Public' })).toBeChecked();
    fill(within(dialog).getByLabelText('Name'), 'Chem Tutor');
    fill(within(dialog).getByLabelText('Description'), 'Explains chemistry step by step');
    fill(within(dialog).getByLabelText('Category'), 'Education');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create Agent' }));

    expect(await within(dialog).findByText('Link and share at least one document before publishing.')).toBeInTheDocument();
    expect(bodyOf('POST /api/agents')).toMatchObject({ isPublic: true });
    expect(within(dialog).getByRole('switch', { name: 'Visibility: Public' })).toHaveAccessibleDescription(
      'Link and share at least one document before publishing.',
    );
  });

  it('Public shows the Marketplace section; Save Changes sends its fields (cost in cents)', async () => {
    let saved: Record<string, unknown> | undefined;
    const current = agent({ slug: null, markupPercent: 20, greetingCostCents: 0, greeting: '', memoryTokens: 4000, showSources: true });
    api.use({
      'PATCH /api/agents/a1': (req) => {
        saved = req.body as Record<string, unknown>;
        return { ...current, ...saved, slug: 'physics-tutor', publishedAt: '2026-02-01T00:00:00Z' };
      },
      'GET /api/agents': [current],
    });
    const editor = await openSettings(current);
    expect(within(editor).queryByText(/Public agents are coming soon/)).not.toBeInTheDocument();
    expect(within(editor).queryByRole('button', { name: 'Express Interest' })).not.toBeInTheDocument();
    expect(within(editor).queryByRole('heading', { name: 'Marketplace' })).not.toBeInTheDocument();

    fireEvent.click(within(editor).getByRole('button', { name: 'Public' }));
    expect(within(editor).getByRole('button', { name: 'Public' })).toHaveAttribute('aria-pressed', 'true');
    const section = within(editor).getByRole('region', { name: 'Marketplace' });
    expect(within(section).getByTestId('agent-slug')).toHaveTextContent('Assigned when you publish');
    expect(within(section).getByLabelText('Markup (%)')).toHaveValue('20');
    expect(within(section).getByLabelText('Greeting cost')).toHaveValue('0.00');
    expect(within(section).getByLabelText('Memory (tokens)')).toHaveValue('4000');
    expect(within(section).getByRole('switch', { name: 'Show sources' })).toBeChecked();

    fill(within(section).getByLabelText('Markup (%)'), '35');
    fill(within(section).getByLabelText('Greeting cost'), '0.5');
    fill(within(section).getByLabelText('Memory (tokens)'), '8000');
    fill(within(section).getByLabelText('Greeting'), 'Hello! Ask me about physics.');
    expect(within(section).getByText('28 / 500')).toBeInTheDocument();
    fireEvent.click(within(section).getByRole('switch', { name: 'Show sources' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));

    expect(await screen.findByRole('status', { name: 'Agent Updated' })).toBeInTheDocument();
    expect(saved).toEqual({
      instructions: '',
      status: 'active',
      isPublic: true,
      tags: [],
      description: 'Helps students with physics homework',
      markupPercent: 35,
      greetingCostCents: 50,
      greeting: 'Hello! Ask me about physics.',
      memoryTokens: 8000,
      showSources: false,
    });
    // The slug assigned at the first publish replaces the placeholder.
    expect(await within(editor).findByText('physics-tutor')).toBeInTheDocument();
    expect(within(editor).getByRole('link', { name: 'View its marketplace profile' })).toHaveAttribute(
      'href',
      '/marketplace/physics-tutor',
    );
  });

  it('checks the bounds before saving, and shows the server field messages at their fields', async () => {
    const current = agent({});
    api.use({
      'PATCH /api/agents/a1': () =>
        json(
          {
            error: 'validation_failed',
            message: 'Activate the agent before publishing.',
            fields: { isPublic: 'Activate the agent before publishing.' },
          },
          400,
          { statusText: 'Bad Request' },
        ),
      'GET /api/agents': [current],
    });
    const editor = await openSettings(current);
    fireEvent.click(within(editor).getByRole('button', { name: 'Public' }));
    const section = within(editor).getByRole('region', { name: 'Marketplace' });
    fill(within(section).getByLabelText('Markup (%)'), '301');
    fill(within(section).getByLabelText('Greeting cost'), '5.01');
    fill(within(section).getByLabelText('Memory (tokens)'), '32001');
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));

    expect(await within(section).findByText('Markup must be a whole number from 0 to 300 percent.')).toBeInTheDocument();
    expect(within(section).getByText('Greeting cost must be from $0.00 to $5.00.')).toBeInTheDocument();
    expect(within(section).getByText('Memory must be a whole number of tokens from 0 to 32,000.')).toBeInTheDocument();
    expect(within(section).getByLabelText('Markup (%)')).toHaveAttribute('aria-invalid', 'true');
    expect(api.callsTo('PATCH /api/agents/a1')).toHaveLength(0);

    fill(within(section).getByLabelText('Markup (%)'), '300');
    fill(within(section).getByLabelText('Greeting cost'), '5');
    fill(within(section).getByLabelText('Memory (tokens)'), '32000');
    expect(within(section).queryByText('Markup must be a whole number from 0 to 300 percent.')).not.toBeInTheDocument();
    fireEvent.click(within(editor).getByRole('button', { name: 'Inactive' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));

    await waitFor(() => expect(api.callsTo('PATCH /api/agents/a1')).toHaveLength(1));
    expect(await within(editor).findByText('Activate the agent before publishing.')).toBeInTheDocument();
    expect(within(editor).getByRole('group', { name: 'Visibility' })).toHaveAccessibleDescription(
      'Activate the agent before publishing.',
    );
    expect(bodyOf('PATCH /api/agents/a1')).toMatchObject({
      isPublic: true,
      status: 'inactive',
      markupPercent: 300,
      greetingCostCents: 500,
      memoryTokens: 32000,
    });
    // The update toast keeps the spec's wording.
    expect(await screen.findByRole('alert', { name: 'Error' })).toHaveTextContent('Failed to update agent: 400 Bad Request');
  });
});
