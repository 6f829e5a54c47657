import { onTestFinished, vi } from 'vitest';

/**
 * A fake of the product's HTTP API for Vitest: replaces the global `fetch` with a small router, so a test states
 * only the endpoints its screen uses and asserts on the requests it saw.
 *
 *   const api = fakeApi({
 *     'GET /api/agents': [agent()],                                  // a JSON body, 200
 *     'POST /api/agents': (req) => json({ ...req.body, id: 'a2' }, 201),
 *     'GET /api/agents/:id/subscribers': (req) => (req.params.id === 'a1' ? [] : json({}, 404)),
 *   });
 *   ...
 *   api.use({ 'GET /api/agents': () => text('boom', 500) });        // a test overrides a route
 *   ...
 *   expect(api.callsTo('POST /api/agents')[0]!.body).toEqual({ name: 'Chem Tutor' });
 *
 * Routes match the method and the path (not the query, which a handler reads from `req.url`). A request no route
 * matches rejects (as a network failure would) and fails the test when it finishes, so a screen that calls an
 * endpoint the test did not state cannot pass by accident.
 */

/** One request the fake received. */
export interface ApiCall {
  method: string;
  /** The path without the query string, e.g. `/api/user/transactions`. */
  path: string;
  /** The whole address (against the page's origin): `url.search`, `url.searchParams`. */
  url: URL;
  /** The `:name` segments of the matched route. */
  params: Record<string, string>;
  headers: Headers;
  /** The body parsed as JSON when it is a JSON string; otherwise the body as sent (string, FormData, …). */
  body: unknown;
  /** The fetch arguments as the code under test passed them. */
  input: RequestInfo | URL;
  init: RequestInit;
  signal: AbortSignal | undefined;
}

/**
 * What a route answers: a Response (used as is), or any other value (sent as a 200 JSON body). A function runs per
 * request; it may be async, and a throw becomes a rejected fetch (e.g. `throw new TypeError('Failed to fetch')`).
 */
export type RouteReply = Response | object | string | number | boolean | null;
export type RouteHandler = (req: ApiCall) => RouteReply | Promise<RouteReply>;
/** Keys are `'METHOD /path'`; a path segment `:name` matches any one segment. */
export type Routes = Record<string, RouteHandler | Exclude<RouteReply, Response>>;

/** The rest of a response: `{ statusText: 'Created' }`, extra headers (a JSON body has its Content-Type). */
export type ReplyInit = Omit<ResponseInit, 'status'>;

/** A JSON response (what the API sends); a 204 has no body. */
export function json(body: unknown, status = 200, init: ReplyInit = {}): Response {
  const headers = new Headers(init.headers);
  if (!headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
  return new Response(status === 204 ? null : JSON.stringify(body), { ...init, status, headers });
}

/** A plain-text (or empty) response, e.g. an error page: `text('boom', 500, { statusText: 'Internal Server Error' })`. */
export function text(body: string, status = 200, init: ReplyInit = {}): Response {
  return new Response(body, { ...init, status });
}

/** A 204 No Content response. */
export function noContent(): Response {
  return new Response(null, { status: 204 });
}

function parseKey(key: string): { method: string; segments: string[] } {
  const match = /^([A-Z]+) (\/[^\s?]*)$/.exec(key);
  if (!match) throw new Error(`fakeApi: route "${key}" is not "METHOD /path" (without a query)`);
  return { method: match[1]!, segments: match[2]!.split('/') };
}

function matchPath(segments: string[], path: string): Record<string, string> | undefined {
  const actual = path.split('/');
  if (actual.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of segments.entries()) {
    if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(actual[i]!);
    else if (segment !== actual[i]) return undefined;
  }
  return params;
}

function parseBody(body: BodyInit | null | undefined): unknown {
  if (typeof body !== 'string') return body ?? undefined;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

export interface FakeApi {
  /** Every request, in the order it was made (matched or not). */
  readonly calls: ApiCall[];
  /** The requests a route key (`'GET /api/agents/:id'`, or a concrete path) matches. */
  callsTo(key: string): ApiCall[];
  /** The routes, read at every request: a test may add or replace one (`api.routes['GET /api/x'] = …`). */
  readonly routes: Routes;
  /** Adds routes, replacing those with the same key (e.g. a test overriding its file's defaults). */
  use(routes: Routes): void;
  /** The stubbed fetch, for tests that assert on it directly. */
  readonly fetch: ReturnType<typeof vi.fn<typeof fetch>>;
}

/**
 * Stubs the global `fetch` with a router over `routes` for the current test (call it in the test or in a
 * beforeEach). A later call replaces the earlier fake.
 */
export function fakeApi(initial: Routes = {}): FakeApi {
  const routes: Routes = { ...initial };
  const calls: ApiCall[] = [];
  const unmatched: string[] = [];

  const fetchFake = vi.fn<typeof fetch>(async (input, init = {}) => {
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request?.url ?? String(input), window.location.href);
    const method = (init.method ?? request?.method ?? 'GET').toUpperCase();
    const call: ApiCall = {
      method,
      path: url.pathname,
      url,
      params: {},
      headers: new Headers(init.headers ?? request?.headers),
      body: parseBody(init.body),
      input,
      init,
      signal: init.signal ?? request?.signal ?? undefined,
    };
    calls.push(call);
    // The most specific matching route (fewest `:name` segments) answers, so a test can single out one path
    // of a pattern its file routes.
    let best: { reply: Routes[string]; params: Record<string, string> } | undefined;
    for (const [key, reply] of Object.entries(routes)) {
      const route = parseKey(key);
      const params = route.method === method ? matchPath(route.segments, url.pathname) : undefined;
      if (params && (!best || Object.keys(params).length < Object.keys(best.params).length)) best = { reply, params };
    }
    if (best) {
      call.params = best.params;
      const reply = typeof best.reply === 'function' ? await best.reply(call) : best.reply;
      return reply instanceof Response ? reply : json(reply);
    }
    const what = `${method} ${url.pathname}${url.search}`;
    unmatched.push(what);
    throw new Error(`fakeApi: no route for ${what}; routes: ${Object.keys(routes).join(', ') || '(none)'}`);
  });

  vi.stubGlobal('fetch', fetchFake);
  onTestFinished(() => {
    if (unmatched.length > 0) {
      throw new Error(`fakeApi: requests without a route: ${unmatched.join('; ')}`);
    }
  });

  return {
    calls,
    callsTo(key) {
      const route = parseKey(key);
      return calls.filter((c) => c.method === route.method && matchPath(route.segments, c.path));
    },
    routes,
    use(more) {
      Object.assign(routes, more);
    },
    fetch: fetchFake,
  };
}
