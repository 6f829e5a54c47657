import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeApi, fakeApi } from '@/test/fake-api';
import { setMarketplaceEnabled } from '@/test/marketplace';
import { authValue, renderApp } from '@/test/render';
import { listedAgent } from '../test/fixtures';

// getByRole's visibility check is very slow with antd's styles in jsdom; every queried element is visible.
configure({ defaultHidden: true });

vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => ({ auth: { currentUser: null } })) }));

const slow = { timeout: 10_000 };

const AGENTS = 'GET /api/marketplace/agents';
const CATEGORIES = 'GET /api/marketplace/categories';
let api: FakeApi;

/** A controllable IntersectionObserver: `reveal()` tells every observer its target came into view. */
const observers: { callback: IntersectionObserverCallback; targets: Element[] }[] = [];
class FakeIntersectionObserver {
  private entry: { callback: IntersectionObserverCallback; targets: Element[] };
  constructor(callback: IntersectionObserverCallback) {
    this.entry = { callback, targets: [] };
    observers.push(this.entry);
  }
  observe(target: Element) {
    this.entry.targets.push(target);
  }
  unobserve() {}
  disconnect() {
    this.entry.targets = [];
  }
  takeRecords() {
    return [];
  }
}
function reveal() {
  for (const { callback, targets } of observers) {
    if (targets.length === 0) continue;
    callback(
      targets.map((target) => ({ isIntersecting: true, target }) as unknown as IntersectionObserverEntry),
      {} as IntersectionObserver,
    );
  }
}

function agentCalls() {
  return api.callsTo(AGENTS).map((call) => call.url);
}

beforeEach(() => {
  setMarketplaceEnabled(true);
  observers.length = 0;
  vi.stubGlobal('IntersectionObserver', FakeIntersectionObserver);
  api = fakeApi({
    [CATEGORIES]: [
      { category: 'Finance', count: 2 },
      { category: 'Law', count: 1 },
    ],
    [AGENTS]: { items: [listedAgent()], nextCursor: null },
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('/marketplace (public)', () => {
  it('shows the cards to a signed-out visitor: icon, name, creator, rating, answers, typical price, greeting cost', async () => {
    renderApp('/marketplace');
    expect(await screen.findByRole('heading', { level: 1, name: 'Marketplace' }, slow)).toBeInTheDocument();
    const card = await screen.findByRole('article', { name: 'Tax Helper' });
    expect(within(card).getByRole('link', { name: 'Tax Helper' })).toHaveAttribute('href', '/marketplace/tax-helper');
    expect(within(card).getByText('by Ada Lovelace')).toBeInTheDocument();
    expect(within(card).getByRole('img', { name: 'Rated 4.5 out of 5 by 12 people' })).toBeInTheDocument();
    expect(within(card).getByText('1,234 answers')).toBeInTheDocument();
    expect(within(card).getByText('about $0.004 per answer')).toBeInTheDocument();
    expect(within(card).getByText('$0.50 to start a conversation')).toBeInTheDocument();
    expect(card.querySelector('[data-icon="ri-brain-line"]')).not.toBeNull();
    // The public page has the landing page's header, not the dashboard navigation.
    expect(screen.getByRole('link', { name: 'Agentic home' })).toHaveAttribute('href', '/');
    expect(screen.getByRole('link', { name: 'Sign In' })).toHaveAttribute('href', '/auth');
    expect(screen.queryByRole('navigation', { name: 'Main' })).not.toBeInTheDocument();

    const [first] = agentCalls();
    expect(first!.searchParams.get('sort')).toBe('popular');
    expect(first!.searchParams.get('limit')).toBe('20');
    expect(first!.searchParams.has('cursor')).toBe(false);
    expect(api.calls[0]!.headers.has('Authorization')).toBe(false);
    // The category filter lists the categories with their counts.
    const category = screen.getByLabelText('Category');
    expect(within(category).getByRole('option', { name: 'Finance (2)' })).toBeInTheDocument();
  });

  it('searches after a pause, with q in the address and the request; then says when nothing matches', async () => {
    const { router } = renderApp('/marketplace');
    await screen.findByRole('article', { name: 'Tax Helper' }, slow);
    api.use({ [AGENTS]: { items: [], nextCursor: null }, [CATEGORIES]: [{ category: 'Finance', count: 2 }] });

    fireEvent.change(screen.getByRole('searchbox', { name: 'Search the marketplace' }), { target: { value: 'iso 27001' } });
    await waitFor(() => expect(router.state.location.search).toBe('?q=iso+27001'));
    await waitFor(() => expect(agentCalls().at(-1)!.searchParams.get('q')).toBe('iso 27001'));
    expect(await screen.findByText('No agents match your search.')).toBeInTheDocument();
    // One request for the typed text, not one per keystroke.
    expect(agentCalls().filter((url) => url.searchParams.has('q'))).toHaveLength(1);

    fireEvent.change(screen.getByLabelText('Sort by'), { target: { value: 'price' } });
    await waitFor(() => expect(agentCalls().at(-1)!.searchParams.get('sort')).toBe('price'));
    expect(router.state.location.search).toBe('?q=iso+27001&sort=price');
    fireEvent.change(screen.getByLabelText('Category'), { target: { value: 'Finance' } });
    await waitFor(() => expect(agentCalls().at(-1)!.searchParams.get('category')).toBe('Finance'));
  });

  it('reads the filters from the address', async () => {
    renderApp('/marketplace?q=vat&category=Law&sort=rating');
    await screen.findByRole('article', { name: 'Tax Helper' }, slow);
    const url = agentCalls()[0]!;
    expect(url.searchParams.get('q')).toBe('vat');
    expect(url.searchParams.get('category')).toBe('Law');
    expect(url.searchParams.get('sort')).toBe('rating');
    expect(screen.getByRole('searchbox', { name: 'Search the marketplace' })).toHaveValue('vat');
    expect(screen.getByLabelText('Sort by')).toHaveValue('rating');
  });

  it('loads the next page with the cursor when the end of the list comes into view', async () => {
    api.use({
      [CATEGORIES]: [],
      [AGENTS]: (req) =>
        req.url.searchParams.get('cursor') === 'page-2'
          ? { items: [listedAgent({ id: 'a2', slug: 'law-helper', name: 'Law Helper', greetingCostCents: 0 })], nextCursor: null }
          : { items: [listedAgent()], nextCursor: 'page-2' },
    });
    renderApp('/marketplace');
    await screen.findByRole('article', { name: 'Tax Helper' }, slow);
    expect(screen.getByRole('button', { name: 'Load more agents' })).toBeInTheDocument();
    await waitFor(() => expect(observers.some((o) => o.targets.length > 0)).toBe(true));
    reveal();

    const lawHelper = await screen.findByRole('article', { name: 'Law Helper' });
    expect(within(lawHelper).queryByText(/to start a conversation/)).not.toBeInTheDocument();
    expect(agentCalls().map((url) => url.searchParams.get('cursor'))).toEqual([null, 'page-2']);
    expect(screen.getAllByRole('article')).toHaveLength(2);
    expect(screen.getByText("You've reached the end of the list.")).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Load more agents' })).not.toBeInTheDocument();
  });

  it('shows a loading state, then the empty state when nothing is listed', async () => {
    let release!: () => void;
    api.use({
      [CATEGORIES]: [],
      [AGENTS]: () => new Promise((resolve) => (release = () => resolve({ items: [], nextCursor: null }))),
    });
    renderApp('/marketplace');
    expect(await screen.findByRole('status', { name: 'Loading agents' }, slow)).toHaveAttribute('aria-busy', 'true');
    release();
    expect(await screen.findByText('No agents are listed yet.')).toBeInTheDocument();
  });

  it('is the not-found screen while the marketplace is off', async () => {
    setMarketplaceEnabled(false);
    renderApp('/marketplace');
    expect(await screen.findByRole('heading', { name: '404 Page Not Found' }, slow)).toBeInTheDocument();
    expect(agentCalls()).toHaveLength(0);
  });
});

describe('/dashboard/marketplace with the marketplace open', () => {
  it('is the marketplace inside the dashboard layout', async () => {
    renderApp('/dashboard/marketplace', authValue({ user: { uid: 'u1', email: 'ada@example.com', displayName: 'Ada' } }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Marketplace' }, slow)).toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: 'Main' })).toBeInTheDocument();
    expect(await screen.findByRole('article', { name: 'Tax Helper' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Marketplace Coming Soon' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Notify Me When Available' })).not.toBeInTheDocument();
  });
});
