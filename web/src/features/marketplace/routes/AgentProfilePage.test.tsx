import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { removeToast } from '@/components/toast/toast-store';
import { type ApiCall, type FakeApi, fakeApi, type Routes } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { fetchMarketplaceStatus } from '@/features/marketplace/api/status';
import { setMarketplaceEnabled } from '@/test/marketplace';
import { authValue, renderApp } from '@/test/render';
import { json, profile, review } from '../test/fixtures';

configure({ defaultHidden: true });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u2' }) } })),
}));

const slow = { timeout: 10_000 };
const signedIn = authValue({ user: { uid: 'u2', email: 'grace@example.com', displayName: 'Grace' } });

const PROFILE = '/api/marketplace/agents/tax-helper';

let api: FakeApi;
const calls = (method: string, path: string) => api.callsTo(`${method} ${path}`);

const listed: Routes = {
  [`GET ${PROFILE}`]: () => profile(),
  // A signed-in visitor's own agents (none: the visitor is not the creator).
  'GET /api/agents': [],
  [`GET ${PROFILE}/reviews`]: (req: ApiCall) =>
    req.url.searchParams.get('cursor') === 'r-2'
      ? { items: [review({ id: 'r3', rating: 3, authorName: 'Linus', text: 'Fine.' })], nextCursor: null }
      : {
          items: [
            review({
              reply: { text: 'Thank you, Grace!', createdAt: '2026-02-02T10:00:00Z', updatedAt: '2026-02-02T10:00:00Z' },
            }),
            review({ id: 'r2', rating: 2, authorName: 'Alan', text: 'Too slow.', updatedAt: '2026-02-05T10:00:00Z' }),
          ],
          nextCursor: 'r-2',
        },
};

beforeEach(() => {
  removeToast();
  setMarketplaceEnabled(true);
  api = fakeApi(listed);
});

describe('/marketplace/:slug (profile)', () => {
  it('shows the description, creator, pricing in words, privacy, greeting and the reviews with replies', async () => {
    renderApp('/marketplace/tax-helper');
    expect(await screen.findByRole('heading', { level: 1, name: 'Tax Helper' }, slow)).toBeInTheDocument();
    expect(screen.getByText('by Ada Lovelace')).toBeInTheDocument();
    expect(screen.getByText('Answers questions about VAT and income tax.')).toBeInTheDocument();
    expect(screen.getByTestId('pricing-words')).toHaveTextContent(
      'about $0.004 per answer · $0.50 to start a conversation · remembers about 4,000 tokens',
    );
    expect(screen.getByText('Your conversations are private')).toBeInTheDocument();
    expect(screen.getByText('Hello! Ask me anything about VAT.')).toBeInTheDocument();
    expect(screen.getByText('Knows 3 documents · Created 01/15/2026')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: '#vat' })).toHaveAttribute('href', '/marketplace?tag=vat');
    expect(screen.getAllByRole('img', { name: 'Rated 4.5 out of 5 by 12 people' }).length).toBeGreaterThan(0);

    const reviews = await screen.findByRole('list', { name: 'Reviews' });
    const grace = within(reviews).getByRole('article', { name: 'Review by Grace' });
    expect(within(grace).getByRole('img', { name: '5 out of 5 stars' })).toBeInTheDocument();
    expect(within(grace).getByText('Clear and quick answers.')).toBeInTheDocument();
    expect(within(grace).getByText('Reply from the creator')).toBeInTheDocument();
    expect(within(grace).getByText('Thank you, Grace!')).toBeInTheDocument();
    expect(within(reviews).getByRole('article', { name: 'Review by Alan' })).toHaveTextContent('(edited)');
    // Signed out: no review form and no report buttons, a sign-in link instead.
    expect(screen.getByRole('link', { name: 'Sign in to review this agent' })).toHaveAttribute('href', '/auth');
    expect(screen.queryByRole('button', { name: /^Report/ })).not.toBeInTheDocument();

    fireEvent.click(screen.getByRole('button', { name: 'Show more reviews' }));
    expect(await screen.findByRole('article', { name: 'Review by Linus' })).toBeInTheDocument();
    expect(calls('GET', `${PROFILE}/reviews`).map((call) => call.url.search)).toEqual([
      '?sort=newest',
      '?sort=newest&cursor=r-2',
    ]);

    fireEvent.change(screen.getByLabelText('Sort reviews'), { target: { value: 'lowest' } });
    await waitFor(() =>
      expect(calls('GET', `${PROFILE}/reviews`).at(-1)!.url.search).toBe('?sort=lowest'),
    );
  });

  it('Chat sends a signed-out visitor to sign in, and back to the profile afterwards', async () => {
    const { router } = renderApp('/marketplace/tax-helper');
    fireEvent.click(await screen.findByRole('button', { name: 'Chat' }, slow));
    await waitFor(() => expect(router.state.location.pathname).toBe('/auth'));
    expect(router.state.location.state).toEqual({ returnTo: '/marketplace/tax-helper' });
  });

  it('Chat opens the chat page for a signed-in visitor, which says what they pay', async () => {
    api.use({
      'GET /api/user/balance': { success: true, data: { balance: 5 } },
      'GET /api/agents/a1/chat-info': { model: 'agentic-sim', simulated: true, role: 'consumer' },
      'GET /api/agents/a1/conversations': [],
    });
    const { router } = renderApp('/marketplace/tax-helper', signedIn);
    fireEvent.click(await screen.findByRole('button', { name: 'Chat' }, slow));
    await waitFor(() => expect(router.state.location.pathname).toBe('/marketplace/tax-helper/chat'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Chat with Tax Helper' })).toBeInTheDocument();
    expect(
      await screen.findByText(
        "You pay per answer from your wallet: the model's usage, a 3% service fee and the creator's 20% markup.",
        {},
        slow,
      ),
    ).toBeInTheDocument();
  });

  it('waits for the session before asking for the profile (a user switch would cancel the request)', async () => {
    renderApp('/marketplace/tax-helper', authValue({ loading: true }));
    // The switch is asked; the page itself waits.
    await waitFor(() => expect(vi.mocked(fetchMarketplaceStatus)).toHaveBeenCalled());
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls('GET', PROFILE)).toHaveLength(0);
    expect(screen.queryByRole('heading', { level: 1, name: 'Tax Helper' })).toBeNull();
  });

  it('says so when the agent is not listed (404)', async () => {
    api = fakeApi({ 'GET /api/marketplace/agents/:slug': () => json({ error: 'not_found', message: 'Agent not found' }, 404) });
    renderApp('/marketplace/gone');
    expect(await screen.findByRole('heading', { level: 1, name: 'Agent not found' }, slow)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Browse the marketplace' })).toHaveAttribute('href', '/marketplace');
    expect(calls('GET', '/api/marketplace/agents/gone')).toHaveLength(1);
  });

  it('marks an unavailable agent and disables Chat', async () => {
    api.use({ [`GET ${PROFILE}`]: () => profile({ available: false }) });
    renderApp('/marketplace/tax-helper');
    const chat = await screen.findByRole('button', { name: 'Chat' }, slow);
    expect(chat).toBeDisabled();
    expect(chat).toHaveAccessibleDescription('This agent is not answering right now.');
    expect(screen.getByText('Unavailable right now')).toBeInTheDocument();
  });
});

describe('the review form', () => {
  it('asks for a rating, then sends the review with the token and shows the server refusal as worded', async () => {
    api.use({
      [`PUT ${PROFILE}/review`]: () =>
        json(
          {
            error: 'review_requires_answer',
            message: 'Only people who got an answer from this agent can review it.',
          },
          403,
        ),
    });
    renderApp('/marketplace/tax-helper', signedIn);
    const form = await screen.findByRole('form', { name: 'Your review' }, slow);
    fireEvent.click(within(form).getByRole('button', { name: 'Post review' }));
    expect(await within(form).findByText('Choose a rating from 1 to 5 stars.')).toBeInTheDocument();
    expect(calls('PUT', `${PROFILE}/review`)).toHaveLength(0);

    fireEvent.click(within(form).getByRole('radio', { name: '4 stars' }));
    fireEvent.change(within(form).getByLabelText('Your review (optional)'), { target: { value: '  Very helpful.  ' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Post review' }));

    expect(await within(form).findByRole('alert')).toHaveTextContent('Only people who got an answer from this agent can review it.');
    const [put] = calls('PUT', `${PROFILE}/review`);
    expect(put!.body).toEqual({ rating: 4, text: 'Very helpful.' });
    expect(put!.headers.get('Authorization')).toBe('Bearer token-123');
  });

  it("shows the owner's refusal and the field messages the server sends", async () => {
    let answer = json({ error: 'forbidden', message: 'You cannot review your own agent.' }, 403);
    api.use({ [`PUT ${PROFILE}/review`]: () => answer.clone() });
    renderApp('/marketplace/tax-helper', signedIn);
    const form = await screen.findByRole('form', { name: 'Your review' }, slow);
    fireEvent.click(within(form).getByRole('radio', { name: '1 star' }));
    fireEvent.click(within(form).getByRole('button', { name: 'Post review' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('You cannot review your own agent.');

    answer = json(
      {
        error: 'validation_failed',
        message: 'A review can be at most 2,000 characters.',
        fields: { text: 'A review can be at most 2,000 characters.' },
      },
      400,
    );
    fireEvent.click(within(form).getByRole('button', { name: 'Post review' }));
    expect(await within(form).findByText('A review can be at most 2,000 characters.')).toBeInTheDocument();
    expect(within(form).getByLabelText('Your review (optional)')).toHaveAttribute('aria-invalid', 'true');
    expect(within(form).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('saves a review, and deletes it', async () => {
    api.use({
      [`PUT ${PROFILE}/review`]: () => json(review({ rating: 5 }), 201),
      [`DELETE ${PROFILE}/review`]: () => json(null, 204),
    });
    renderApp('/marketplace/tax-helper', signedIn);
    const form = await screen.findByRole('form', { name: 'Your review' }, slow);
    fireEvent.click(within(form).getByRole('radio', { name: '5 stars' }));
    fireEvent.click(within(form).getByRole('button', { name: 'Post review' }));
    expect(await screen.findByRole('status', { name: 'Review saved' })).toBeInTheDocument();
    // The profile (rating) and the reviews are read again, and the profile once more about 2 s later: the rating is
    // a read model the catalog updates from the review's event.
    await waitFor(() => expect(calls('GET', PROFILE).length).toBeGreaterThan(1));
    const afterSave = calls('GET', PROFILE).length;
    await waitFor(() => expect(calls('GET', PROFILE).length).toBeGreaterThan(afterSave), { timeout: 5_000 });

    fireEvent.click(within(form).getByRole('button', { name: 'Delete my review' }));
    expect(await screen.findByRole('status', { name: 'Review deleted' })).toBeInTheDocument();
    expect(calls('DELETE', `${PROFILE}/review`)).toHaveLength(1);
  });

  it('reports the agent with a reason', async () => {
    api.use({ [`POST ${PROFILE}/report`]: () => json({ status: 'received' }, 202) });
    renderApp('/marketplace/tax-helper', signedIn);
    fireEvent.click(await screen.findByRole('button', { name: 'Report this agent' }, slow));
    const dialog = await screen.findByRole('dialog', { name: 'Report this agent' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send report' }));
    expect(await within(dialog).findByText('Tell us what is wrong, in at most 1,000 characters.')).toBeInTheDocument();
    fireEvent.change(within(dialog).getByLabelText('Reason'), { target: { value: 'It gives legal advice.' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send report' }));
    expect(await screen.findByRole('status', { name: 'Report received' })).toBeInTheDocument();
    expect(calls('POST', `${PROFILE}/report`)[0]!.body).toEqual({ reason: 'It gives legal advice.' });
    expect(screen.getAllByRole('button', { name: /^Report review by / }).length).toBeGreaterThan(0);
  });
});
