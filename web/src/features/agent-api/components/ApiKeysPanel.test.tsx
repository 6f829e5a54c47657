import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Toaster } from '@/components/toast';
import { createQueryClient } from '@/lib/query-client';
import { type ApiCall, type FakeApi, fakeApi, json, noContent } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import type { ApiKey, CreatedApiKey } from '../types';
import ApiKeysPanel from './ApiKeysPanel';

vi.setConfig({ testTimeout: 30_000 });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

const AGENT = '0190aaaa-0000-7000-8000-000000000001';
const KEYS = `/api/agents/${AGENT}/api-keys`;
const SECRET = 'agk_3fQ9xZabcdefghijklmnopqrstuvwx';

function key(overrides: Partial<ApiKey> = {}): ApiKey {
  return {
    id: 'k1',
    agentId: AGENT,
    name: 'Website bot',
    prefix: 'agk_3fQ9xZ',
    createdAt: '2026-11-20T12:00:00Z',
    expiresAt: null,
    monthlyLimit: 5,
    lastUsedAt: '2026-11-22T12:00:00Z',
    monthSpend: 0.0012,
    ...overrides,
  };
}

let stored: ApiKey[] = [];
let api: FakeApi;
const routes = {
  [`GET ${KEYS}`]: () => stored,
  [`POST ${KEYS}`]: (req: ApiCall) => {
    const body = req.body as { name: string; expiresAt?: string; monthlyLimit?: number };
    if (body.name === 'boom') {
      const refusal = { error: 'limit_reached', message: 'This agent already has the maximum number of API keys (25).' };
      return json(refusal, 409, { headers: { 'X-Request-Id': 'req-boom-1' } });
    }
    const created: CreatedApiKey = {
      ...key({ id: 'k2', name: body.name, prefix: SECRET.slice(0, 10), lastUsedAt: null, monthSpend: 0 }),
      expiresAt: body.expiresAt ? `${body.expiresAt}T23:59:59Z` : null,
      monthlyLimit: body.monthlyLimit ?? null,
      key: SECRET,
    };
    const { key: _secret, ...listed } = created;
    stored = [listed, ...stored];
    return json(created, 201);
  },
  [`DELETE ${KEYS}/:id`]: (req: ApiCall) => {
    stored = stored.filter((k) => k.id !== req.params.id);
    return noContent();
  },
};

const writeText = vi.fn(async (_text: string) => {});

beforeEach(() => {
  stored = [key()];
  writeText.mockClear();
  api = fakeApi(routes);
  Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } });
});

function renderPanel() {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <ApiKeysPanel agentId={AGENT} agentName="Math Tutor" />
      <Toaster />
    </QueryClientProvider>,
  );
}

const calls = (method: string) => api.calls.filter((c) => c.method === method);

describe('ApiKeysPanel', () => {
  it('lists keys with prefix, dates and month spend, never a secret', async () => {
    renderPanel();
    const row = (await screen.findByText('Website bot')).closest('tr') as HTMLElement;
    expect(within(row).getByText('agk_3fQ9xZ…')).toBeInTheDocument();
    expect(within(row).getByText('Nov 20, 2026')).toBeInTheDocument();
    expect(within(row).getByText('Nov 22, 2026')).toBeInTheDocument();
    expect(row).toHaveTextContent('$0.0012 of $5.00');
    expect(within(row).getByText('Never')).toBeInTheDocument(); // no expiry
    expect(screen.queryByTestId('api-key-created')).not.toBeInTheDocument();
    // The auth header is the Firebase token (the key management API is the owner's).
    expect(calls('GET')[0]!.headers.get('Authorization')).toBe('Bearer token-123');
  });

  it('creates a key, shows it once with a copy button, and puts it into the examples', async () => {
    renderPanel();
    await screen.findByText('Website bot');
    fireEvent.change(screen.getByLabelText('Key name'), { target: { value: '  Slack bot ' } });
    fireEvent.change(screen.getByLabelText('Expires on (optional)'), { target: { value: '2099-12-31' } });
    fireEvent.change(screen.getByLabelText('Monthly limit in $ (optional)'), { target: { value: '10' } });
    fireEvent.click(screen.getByRole('button', { name: /Create API key/ }));

    const shown = await screen.findByTestId('api-key-created');
    expect(within(shown).getByTestId('api-key-secret')).toHaveTextContent(SECRET);
    expect(shown).toHaveTextContent('shown only once');
    expect(calls('POST')[0]!.body).toEqual({ name: 'Slack bot', expiresAt: '2099-12-31', monthlyLimit: 10 });

    fireEvent.click(within(shown).getByTestId('api-key-copy'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(SECRET));
    expect(await within(shown).findByText('Copied')).toBeInTheDocument();

    // The examples use the app's origin, the agent's model name and (while it is on screen) the key.
    const curl = screen.getByTestId('api-example-curl');
    expect(curl).toHaveTextContent(`curl ${window.location.origin}/api/v1/chat/completions`);
    expect(curl).toHaveTextContent(`Bearer ${SECRET}`);
    expect(curl).toHaveTextContent(`"model":"agentic/${AGENT}"`);
    expect(screen.getByTestId('api-model')).toHaveTextContent(`agentic/${AGENT}`);

    // The Responses API (JavaScript and curl) and the Vercel AI SDK, each in its own tab, with the key too.
    fireEvent.click(screen.getByRole('tab', { name: 'Responses API' }));
    const responses = await screen.findByTestId('api-example-responses');
    expect(responses).toHaveAccessibleName('Responses API example (JavaScript)');
    expect(responses).toHaveTextContent(`new OpenAI({ baseURL: '${window.location.origin}/api/v1', apiKey: '${SECRET}' })`);
    expect(responses).toHaveTextContent(`model: 'agentic/${AGENT}'`);
    expect(responses).toHaveTextContent('console.log(response.output_text);');
    fireEvent.click(screen.getByRole('tab', { name: 'Responses API (curl)' }));
    const responsesCurl = await screen.findByTestId('api-example-responses-curl');
    expect(responsesCurl).toHaveTextContent(`curl ${window.location.origin}/api/v1/responses`);
    expect(responsesCurl).toHaveTextContent(`Bearer ${SECRET}`);
    expect(responsesCurl).toHaveTextContent(`"model":"agentic/${AGENT}","input":`);
    fireEvent.click(screen.getByRole('tab', { name: 'Vercel AI SDK' }));
    const aiSdk = await screen.findByTestId('api-example-ai-sdk');
    expect(aiSdk).toHaveAccessibleName('Vercel AI SDK example');
    expect(aiSdk).toHaveTextContent(`createOpenAI({ baseURL: '${window.location.origin}/api/v1', apiKey: '${SECRET}' })`);
    expect(aiSdk).toHaveTextContent(`model: agentic('agentic/${AGENT}')`);
    expect(screen.getByRole('button', { name: 'Copy the Vercel AI SDK example' })).toBeInTheDocument();

    // The list now has the new key (refetched), without its secret.
    expect(await screen.findByText('Slack bot')).toBeInTheDocument();
    expect(calls('GET').length).toBeGreaterThanOrEqual(2);

    // Dismissed: the key is gone from the screen for good, the examples read the environment.
    fireEvent.click(screen.getByRole('button', { name: 'I have copied it' }));
    expect(screen.queryByTestId('api-key-created')).not.toBeInTheDocument();
    expect(screen.queryByText(SECRET)).not.toBeInTheDocument();
    expect(screen.getByTestId('api-example-curl')).toHaveTextContent('Bearer $AGENTIC_API_KEY');
    expect(screen.getByTestId('api-example-responses')).toHaveTextContent('apiKey: process.env.AGENTIC_API_KEY');
    expect(screen.getByTestId('api-example-responses-curl')).toHaveTextContent('Bearer $AGENTIC_API_KEY');
    expect(screen.getByTestId('api-example-ai-sdk')).toHaveTextContent('apiKey: process.env.AGENTIC_API_KEY');
  });

  it('validates the form before calling the server', async () => {
    renderPanel();
    await screen.findByText('Website bot');
    fireEvent.click(screen.getByRole('button', { name: /Create API key/ }));
    expect(await screen.findByText('Give the key a name.')).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('Key name'), { target: { value: 'Bot' } });
    fireEvent.change(screen.getByLabelText('Expires on (optional)'), { target: { value: '2001-01-01' } });
    fireEvent.click(screen.getByRole('button', { name: /Create API key/ }));
    expect(await screen.findByText('The expiry date must be in the future.')).toBeInTheDocument();
    expect(calls('POST')).toHaveLength(0);
  });

  it("shows the server's refusal", async () => {
    renderPanel();
    await screen.findByText('Website bot');
    fireEvent.change(screen.getByLabelText('Key name'), { target: { value: 'boom' } });
    fireEvent.click(screen.getByRole('button', { name: /Create API key/ }));
    expect(await screen.findByText(/maximum number of API keys/)).toBeInTheDocument();
    // The toast names the failed request, for support.
    expect(screen.getByRole('alert', { name: 'Error' })).toHaveAccessibleDescription(
      'This agent already has the maximum number of API keys (25). Reference: req-boom-1',
    );
    expect(screen.queryByTestId('api-key-created')).not.toBeInTheDocument();
  });

  it('revokes a key after confirmation', async () => {
    renderPanel();
    await screen.findByText('Website bot');
    fireEvent.click(screen.getByRole('button', { name: 'Revoke Website bot' }));
    expect(await screen.findByText('Apps using this key stop working at once. This cannot be undone.')).toBeInTheDocument();
    expect(calls('DELETE')).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(calls('DELETE')).toHaveLength(1));
    expect(calls('DELETE')[0]!.path).toBe(`${KEYS}/k1`);
    expect(await screen.findByText('No API keys yet')).toBeInTheDocument();
    expect(await screen.findByText('API Key Revoked')).toBeInTheDocument();
  });

  it('marks expired keys', async () => {
    stored = [key({ expiresAt: '2020-01-01T00:00:00Z' })];
    renderPanel();
    expect(await screen.findByText('Expired')).toBeInTheDocument();
  });
});
