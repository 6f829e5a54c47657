import { beforeEach, describe, expect, it } from 'vitest';
import { type FakeApi, fakeApi, json, noContent, text } from './fake-api';

describe('fakeApi', () => {
  let api: FakeApi;
  beforeEach(() => {
    api = fakeApi({
      'GET /api/wallet': { balance: 5 },
      'POST /api/agents/:id/tags': (req) => json({ id: req.params.id, got: req.body }, 201, { statusText: 'Created' }),
      'DELETE /api/agents/:id': () => noContent(),
    });
  });

  it('answers a static value as a 200 JSON body, fresh per request', async () => {
    for (let i = 0; i < 2; i++) {
      const response = await fetch('/api/wallet');
      expect(response.status).toBe(200);
      expect(response.headers.get('Content-Type')).toBe('application/json');
      expect(await response.json()).toEqual({ balance: 5 });
    }
  });

  it('passes params, the parsed body and headers to a handler and records the call', async () => {
    const response = await fetch('/api/agents/a%201/tags?x=1', {
      method: 'POST',
      headers: { Authorization: 'Bearer t' },
      body: JSON.stringify({ tag: 'physics' }),
    });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Created');
    expect(await response.json()).toEqual({ id: 'a 1', got: { tag: 'physics' } });
    const [call] = api.callsTo('POST /api/agents/:id/tags');
    expect(call).toMatchObject({ method: 'POST', path: '/api/agents/a%201/tags', body: { tag: 'physics' } });
    expect(call!.url.search).toBe('?x=1');
    expect(call!.headers.get('Authorization')).toBe('Bearer t');
    expect(api.callsTo('POST /api/agents/a%201/tags')).toHaveLength(1);
    expect(api.callsTo('GET /api/wallet')).toHaveLength(0);
  });

  it('lets a test replace a route or single out one path of a pattern, and propagates a throw as a rejection', async () => {
    api.use({ 'GET /api/wallet': () => text('boom', 500, { statusText: 'Internal Server Error' }) });
    api.routes['DELETE /api/agents/a1'] = () => {
      throw new TypeError('Failed to fetch');
    };
    const response = await fetch('/api/wallet');
    expect([response.status, response.statusText, await response.text()]).toEqual([500, 'Internal Server Error', 'boom']);
    await expect(fetch('/api/agents/a1', { method: 'DELETE' })).rejects.toThrow('Failed to fetch');
    expect((await fetch('/api/agents/a2', { method: 'DELETE' })).status).toBe(204);
  });

});

describe('a request without a route', () => {
  let rejection: unknown;
  // It rejects, and also fails its test when the test finishes: `fails` inverts that outcome.
  it.fails('fails the test', async () => {
    const api = fakeApi({ 'GET /api/wallet': {} });
    rejection = await fetch('/api/nope?x=1').catch((error: unknown) => error);
    expect(api.calls.map((c) => c.path)).toEqual(['/api/nope']);
  });

  it('rejects, naming the request and the routes', () => {
    expect(rejection).toEqual(new Error('fakeApi: no route for GET /api/nope?x=1; routes: GET /api/wallet'));
  });
});
