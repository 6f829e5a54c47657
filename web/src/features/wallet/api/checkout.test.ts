import { describe, expect, it, vi } from 'vitest';
import { NOT_LOGGED_IN_MESSAGE, TOKEN_FAILURE_MESSAGE } from '@/lib/api-client';
import { CHECKOUT_PATH, startCheckout, type CheckoutDeps, type StripeRedirector } from './checkout';

const user = { uid: 'uid-1', email: 'ada@example.com' };
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const ok = (body: Record<string, unknown> = {}) =>
  json({ publishableKey: 'pk_test_1', sessionId: 'cs_1', url: 'https://pay.example/cs_1', ...body });

function deps(responses: Response[], overrides: Partial<CheckoutDeps> = {}) {
  const fetchMock = vi.fn<typeof fetch>();
  for (const r of responses) fetchMock.mockResolvedValueOnce(r);
  let n = 0;
  const d: CheckoutDeps = {
    getToken: vi.fn(async () => `token-${++n}`),
    fetch: fetchMock,
    redirect: vi.fn(),
    loadStripe: vi.fn(async () => null),
    now: () => new Date('2026-05-01T10:00:00.000Z'),
    ...overrides,
  };
  return { d, fetchMock };
}
const auth = (init: RequestInit | undefined) => new Headers(init?.headers).get('Authorization');

describe('startCheckout', () => {
  it('posts amount in cents, usd and metadata with a fresh token, then follows the url', async () => {
    const { d, fetchMock } = deps([ok()]);
    await startCheckout(2500, user, d);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe(CHECKOUT_PATH);
    expect(init?.method).toBe('POST');
    expect(init?.credentials).toBe('include');
    expect(auth(init)).toBe('Bearer token-1');
    expect(new Headers(init?.headers).get('Content-Type')).toBe('application/json');
    expect(JSON.parse(String(init?.body))).toEqual({
      amount: 2500,
      currency: 'usd',
      metadata: { userId: 'uid-1', email: 'ada@example.com', timestamp: '2026-05-01T10:00:00.000Z' },
    });
    expect(d.redirect).toHaveBeenCalledWith('https://pay.example/cs_1');
    expect(d.loadStripe).not.toHaveBeenCalled();
  });

  it('retries a 401 once with a fresh token', async () => {
    const { d, fetchMock } = deps([new Response('', { status: 401 }), ok()]);
    await startCheckout(500, user, d);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(auth(fetchMock.mock.calls[0]![1])).toBe('Bearer token-1');
    expect(auth(fetchMock.mock.calls[1]![1])).toBe('Bearer token-2');
    expect(d.getToken).toHaveBeenCalledTimes(2);
    expect(d.redirect).toHaveBeenCalledWith('https://pay.example/cs_1');
  });

  it("fails with 'Authentication failed. Please log in again.' on a second 401", async () => {
    const { d, fetchMock } = deps([new Response('', { status: 401 }), new Response('', { status: 401 })]);
    await expect(startCheckout(500, user, d)).rejects.toThrow('Authentication failed. Please log in again.');
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it("fails with 'Invalid response from server after retry' when the retry has no key", async () => {
    const { d } = deps([new Response('', { status: 401 }), json({ url: 'https://pay.example' })]);
    await expect(startCheckout(500, user, d)).rejects.toThrow('Invalid response from server after retry');
    expect(d.redirect).not.toHaveBeenCalled();
  });

  it('maps the retry status like the first one', async () => {
    const { d } = deps([new Response('', { status: 401 }), new Response('slow down', { status: 429 })]);
    await expect(startCheckout(500, user, d)).rejects.toThrow('Too many requests. Please wait a moment and try again.');
  });

  it.each([
    [400, '{"error":"invalid_amount"}', 'Invalid request. Please check the amount and try again.'],
    [429, '', 'Too many requests. Please wait a moment and try again.'],
    [500, '{"error":"internal","message":"Internal server error"}', 'Failed to create checkout session: {"error":"internal","message":"Internal server error"}'],
    [503, 'upstream down', 'Failed to create checkout session: upstream down'],
  ])('maps status %d', async (status, body, message) => {
    const { d, fetchMock } = deps([new Response(body, { status })]);
    await expect(startCheckout(500, user, d)).rejects.toThrow(message);
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it("fails with 'No publishable key returned from server'", async () => {
    const { d } = deps([json({ sessionId: 'cs_1', url: 'https://pay.example' })]);
    await expect(startCheckout(500, user, d)).rejects.toThrow('No publishable key returned from server');
    expect(d.redirect).not.toHaveBeenCalled();
  });

  it('treats an unreadable body as a missing key', async () => {
    const { d } = deps([new Response('not json', { status: 200 })]);
    await expect(startCheckout(500, user, d)).rejects.toThrow('No publishable key returned from server');
  });

  it("fails with 'Neither URL nor session ID was provided by the server'", async () => {
    const { d } = deps([json({ publishableKey: 'pk_test_1' })]);
    await expect(startCheckout(500, user, d)).rejects.toThrow('Neither URL nor session ID was provided by the server');
  });

  it('uses Stripe.js redirectToCheckout with the session id when there is no url', async () => {
    const stripe: StripeRedirector = { redirectToCheckout: vi.fn(async () => ({})) };
    const { d } = deps([ok({ url: null })], { loadStripe: vi.fn(async () => stripe) });
    await startCheckout(500, user, d);
    expect(d.loadStripe).toHaveBeenCalledWith('pk_test_1');
    expect(stripe.redirectToCheckout).toHaveBeenCalledWith({ sessionId: 'cs_1' });
    expect(d.redirect).not.toHaveBeenCalled();
  });

  it('reports the error Stripe.js returns', async () => {
    const stripe: StripeRedirector = { redirectToCheckout: vi.fn(async () => ({ error: { message: 'No such session' } })) };
    const { d } = deps([ok({ url: '' })], { loadStripe: vi.fn(async () => stripe) });
    await expect(startCheckout(500, user, d)).rejects.toThrow('No such session');
  });

  it("fails with 'Failed to load Stripe' when loadStripe resolves null or rejects (offline)", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const nullStripe = deps([ok({ url: undefined })]);
    await expect(startCheckout(500, user, nullStripe.d)).rejects.toThrow('Failed to load Stripe');
    const offline = deps([ok({ url: undefined })], {
      loadStripe: vi.fn(async () => {
        throw new Error('Failed to load Stripe.js');
      }),
    });
    await expect(startCheckout(500, user, offline.d)).rejects.toThrow(/^Failed to load Stripe$/);
  });

  it("fails with 'No authenticated user found' without a user", async () => {
    const { d, fetchMock } = deps([]);
    await expect(startCheckout(500, null, d)).rejects.toThrow('No authenticated user found');
    const noIdentity = deps([], {
      getToken: vi.fn(async () => {
        throw new Error(NOT_LOGGED_IN_MESSAGE);
      }),
    });
    await expect(startCheckout(500, user, noIdentity.d)).rejects.toThrow('No authenticated user found');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("fails with 'Failed to obtain valid authentication token' when no token comes", async () => {
    const failing = deps([], {
      getToken: vi.fn(async () => {
        throw new Error(TOKEN_FAILURE_MESSAGE);
      }),
    });
    await expect(startCheckout(500, user, failing.d)).rejects.toThrow('Failed to obtain valid authentication token');
    const empty = deps([], { getToken: vi.fn(async () => '') });
    await expect(startCheckout(500, user, empty.d)).rejects.toThrow('Failed to obtain valid authentication token');
    const onRetry = deps([new Response('', { status: 401 })], {
      getToken: vi.fn<() => Promise<string>>().mockResolvedValueOnce('t1').mockRejectedValueOnce(new Error('x')),
    });
    await expect(startCheckout(500, user, onRetry.d)).rejects.toThrow('Failed to obtain valid authentication token');
  });
});
