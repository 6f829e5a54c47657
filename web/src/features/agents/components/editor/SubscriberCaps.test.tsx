import { QueryClientProvider } from '@tanstack/react-query';
import { configure, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/toast';
import { removeToast } from '@/components/toast/toast-store';
import { createQueryClient } from '@/lib/query-client';
import { type FakeApi, fakeApi, json } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import type { Agent, Subscriber } from '../../types';
import { UsersTab } from './UsersTab';

// Role queries' visibility check is very slow with antd's styles in jsdom (see AgentsPage.test).
configure({ defaultHidden: true });
vi.setConfig({ testTimeout: 30_000 });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

const RANGE = 'Enter a monthly cap between $0.01 and $100,000.00, or leave it empty for no cap.';
const HELP =
  "What you pay at most each month for one subscriber's answers. A subscriber over the cap is told the agent is unavailable; you get an e-mail.";

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
    effectiveCapCents: 500,
    ...overrides,
  };
}

const SUBSCRIBERS = [
  subscriber({}),
  subscriber({ id: 's2', name: 'Alan Turing', email: 'alan@example.com', capMode: 'none', effectiveCapCents: null }),
  subscriber({ id: 's3', name: 'Ada Lovelace', email: 'ada@example.com', capMode: 'custom', monthlyCapCents: 200, effectiveCapCents: 200 }),
];

let api: FakeApi;
const bodies = (key: string) => api.callsTo(key).map((call) => call.body);

function agentJson(cap: number | null): Partial<Agent> {
  return { id: 'a1', name: 'Physics Tutor', subscriberMonthlyCapCents: cap };
}

beforeEach(() => {
  removeToast();
  api = fakeApi({ 'GET /api/agents/a1/subscribers': SUBSCRIBERS });
});

function renderTab(props: Partial<Parameters<typeof UsersTab>[0]> = {}) {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <UsersTab agentId="a1" enabled defaultCapCents={500} {...props} />
      <Toaster />
    </QueryClientProvider>,
  );
}

const capInput = () => screen.getByRole('spinbutton', { name: 'Monthly cap per subscriber' });
const saveCap = () => screen.getByRole('button', { name: 'Save cap' });
const row = (email: string) => screen.getByText(email).closest('tr')!;

describe('Monthly cap per subscriber (default)', () => {
  it('shows the saved default with its help text and its own Save cap button', async () => {
    renderTab();
    const form = screen.getByRole('form', { name: 'Monthly cap per subscriber' });
    expect(capInput()).toHaveValue('5.00');
    expect(within(form).getByText(HELP)).toBeInTheDocument();
    expect(capInput().getAttribute('aria-describedby')).toContain(within(form).getByText(HELP).id);
    expect(within(form).getByRole('button', { name: 'Save cap' })).toBeInTheDocument();
    await screen.findByText('grace@example.com');
  });

  it('refuses zero, negative and too large amounts with the server message, without a request', async () => {
    const user = userEvent.setup();
    renderTab({ defaultCapCents: null });
    expect(capInput()).toHaveValue('');
    expect(capInput()).toHaveAttribute('placeholder', 'No cap');
    for (const typed of ['0', '-5', '100000.01']) {
      await user.clear(capInput());
      await user.type(capInput(), typed);
      await user.click(saveCap());
      expect(await screen.findByText(RANGE)).toBeInTheDocument();
      expect(capInput()).toHaveAttribute('aria-invalid', 'true');
    }
    expect(api.callsTo('PATCH /api/agents/a1')).toHaveLength(0);
  });

  it('saves dollars as cents, and empty as null (no cap), with PATCH agent only', async () => {
    const onAgentSaved = vi.fn();
    api.use({
      'PATCH /api/agents/a1': (req) => agentJson((req.body as { subscriberMonthlyCapCents: number | null }).subscriberMonthlyCapCents),
    });
    const user = userEvent.setup();
    renderTab({ onAgentSaved });
    await screen.findByText('grace@example.com');

    await user.clear(capInput());
    await user.type(capInput(), '12.5');
    expect(screen.getByText('Not saved yet: press Save cap. Save Changes does not save the cap.')).toBeInTheDocument();
    await user.click(saveCap());
    expect(await screen.findByRole('status', { name: 'Monthly cap saved' })).toHaveTextContent('at most $12.50 a month');
    expect(onAgentSaved).toHaveBeenLastCalledWith(expect.objectContaining({ subscriberMonthlyCapCents: 1250 }));

    await user.clear(capInput());
    await user.click(saveCap());
    await waitFor(() => expect(api.callsTo('PATCH /api/agents/a1')).toHaveLength(2));
    expect(bodies('PATCH /api/agents/a1')).toEqual([{ subscriberMonthlyCapCents: 1250 }, { subscriberMonthlyCapCents: null }]);
    await waitFor(() => expect(onAgentSaved).toHaveBeenLastCalledWith(expect.objectContaining({ subscriberMonthlyCapCents: null })));
    // The subscribers (whose default caps changed) are read again.
    await waitFor(() => expect(api.callsTo('GET /api/agents/a1/subscribers').length).toBeGreaterThanOrEqual(3));
  });

  it("shows the server's field message at the field", async () => {
    api.use({
      'PATCH /api/agents/a1': () =>
        json({ error: 'validation_failed', message: 'Invalid', fields: { subscriberMonthlyCapCents: 'Too much for us.' } }, 400),
    });
    const user = userEvent.setup();
    renderTab();
    await user.clear(capInput());
    await user.type(capInput(), '7');
    await user.click(saveCap());
    const message = await screen.findByText('Too much for us.');
    expect(capInput()).toHaveAttribute('aria-invalid', 'true');
    expect(capInput().getAttribute('aria-describedby')).toContain(message.id);
    expect(screen.queryByRole('status', { name: 'Error' })).not.toBeInTheDocument();
  });
});

describe('Monthly cap of each subscriber', () => {
  it('shows each row its cap', async () => {
    renderTab();
    expect(screen.getByRole('columnheader', { name: 'Monthly cap' })).toBeInTheDocument();
    await screen.findByText('grace@example.com');
    expect(within(row('grace@example.com')).getByTestId('subscriber-cap')).toHaveTextContent(/^Default \(\$5\.00\)$/);
    expect(within(row('alan@example.com')).getByTestId('subscriber-cap')).toHaveTextContent(/^No cap$/);
    expect(within(row('ada@example.com')).getByTestId('subscriber-cap')).toHaveTextContent(/^\$2\.00$/);
    expect(within(row('ada@example.com')).getByRole('button', { name: 'Change monthly cap for ada@example.com' })).toHaveTextContent(
      'Change',
    );
  });

  it('shows "Default (no cap)" when the agent has no default cap', async () => {
    api.use({ 'GET /api/agents/a1/subscribers': [subscriber({ effectiveCapCents: null })] });
    renderTab({ defaultCapCents: null });
    await screen.findByText('grace@example.com');
    expect(within(row('grace@example.com')).getByTestId('subscriber-cap')).toHaveTextContent(/^Default \(no cap\)$/);
  });

  it('sends the right body for each mode', async () => {
    const sent: unknown[] = [];
    let list = [...SUBSCRIBERS];
    api.use({
      'GET /api/agents/a1/subscribers': () => list,
      'PATCH /api/agents/a1/subscribers/:id': (req) => {
        const body = req.body as { capMode: string; monthlyCapCents?: number };
        sent.push([req.path, body]);
        const id = req.params.id;
        const saved = subscriber({
          ...list.find((s) => s.id === id),
          capMode: body.capMode,
          monthlyCapCents: body.monthlyCapCents ?? null,
          effectiveCapCents: body.capMode === 'custom' ? body.monthlyCapCents : body.capMode === 'none' ? null : 500,
        });
        list = list.map((s) => (s.id === id ? saved : s));
        return saved;
      },
    });
    const user = userEvent.setup();
    renderTab();
    await screen.findByText('grace@example.com');

    const change = async (email: string, option: string, amount?: string) => {
      await user.click(screen.getByRole('button', { name: `Change monthly cap for ${email}` }));
      const dialog = await screen.findByRole('dialog', { name: `Monthly cap for ${email}` });
      await user.click(within(dialog).getByRole('radio', { name: option }));
      if (amount !== undefined) {
        const input = within(dialog).getByRole('spinbutton', { name: 'Amount per month' });
        await user.clear(input);
        await user.type(input, amount);
      }
      await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    };

    // Custom: the dialog starts from the saved mode; no amount and bad amounts are refused.
    await user.click(screen.getByRole('button', { name: 'Change monthly cap for grace@example.com' }));
    const dialog = await screen.findByRole('dialog', { name: 'Monthly cap for grace@example.com' });
    expect(within(dialog).getByRole('radiogroup', { name: 'Monthly cap' })).toBeInTheDocument();
    expect(within(dialog).getByRole('radio', { name: 'Default ($5.00)' })).toBeChecked();
    expect(within(dialog).queryByRole('spinbutton', { name: 'Amount per month' })).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('radio', { name: 'Custom amount' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('Enter the custom amount.')).toBeInTheDocument();
    await user.type(within(dialog).getByRole('spinbutton', { name: 'Amount per month' }), '0');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText(RANGE)).toBeInTheDocument();
    expect(sent).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));

    await change('grace@example.com', 'Custom amount', '2.5');
    expect(await screen.findByRole('status', { name: 'Monthly cap changed' })).toHaveTextContent('grace@example.com: $2.50.');
    await waitFor(() => expect(within(row('grace@example.com')).getByTestId('subscriber-cap')).toHaveTextContent(/^\$2\.50$/));

    await change('alan@example.com', 'Default ($5.00)');
    await waitFor(() => expect(sent).toHaveLength(2));
    await change('ada@example.com', 'No cap');
    await waitFor(() => expect(sent).toHaveLength(3));
    expect(sent).toEqual([
      ['/api/agents/a1/subscribers/s1', { capMode: 'custom', monthlyCapCents: 250 }],
      ['/api/agents/a1/subscribers/s2', { capMode: 'default' }],
      ['/api/agents/a1/subscribers/s3', { capMode: 'none' }],
    ]);
  });

  it("shows the server's field message in the dialog, and other failures in a toast", async () => {
    let reply = json({ error: 'validation_failed', message: 'Invalid', fields: { monthlyCapCents: RANGE } }, 400);
    api.use({ 'PATCH /api/agents/a1/subscribers/:id': () => reply });
    const user = userEvent.setup();
    renderTab();
    await screen.findByText('ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Change monthly cap for ada@example.com' }));
    const dialog = await screen.findByRole('dialog', { name: 'Monthly cap for ada@example.com' });
    const input = within(dialog).getByRole('spinbutton', { name: 'Amount per month' });
    expect(input).toHaveValue('2.00');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText(RANGE)).toBeInTheDocument();
    expect(input).toHaveAttribute('aria-invalid', 'true');

    reply = json({ error: 'not_found', message: 'Subscriber not found.' }, 404);
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('alert', { name: 'Error' })).toHaveTextContent('Subscriber not found.');
  });
});
