import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { removeToast } from '@/components/toast/toast-store';
import { type FakeApi, fakeApi, noContent } from '@/test/fake-api';
import { fakeIdentity } from '@/test/fake-firebase';
import { setMarketplaceEnabled } from '@/test/marketplace';
import { authValue, renderApp } from '@/test/render';
import { json, profile, review } from '../test/fixtures';

configure({ defaultHidden: true });
vi.setConfig({ testTimeout: 30_000 });

vi.mock('@/lib/firebase', () => ({
  loadFirebase: vi.fn(async () => ({ auth: { currentUser: fakeIdentity({ uid: 'u1' }) } })),
}));

const slow = { timeout: 15_000 };
const owner = authValue({ user: { uid: 'u1', email: 'ada@example.com', displayName: 'Ada Lovelace' } });
const PROFILE = '/api/marketplace/agents/tax-helper';
const REPLY = (reviewId: string) => `/api/agents/a1/reviews/${reviewId}/reply`;

let mine: unknown[];
let api: FakeApi;
const calls = (method: string, path: string) => api.callsTo(`${method} ${path}`);

beforeEach(() => {
  removeToast();
  setMarketplaceEnabled(true);
  mine = [{ id: 'a1', name: 'Tax Helper', isPublic: true, slug: 'tax-helper' }];
  api = fakeApi({
    [`GET ${PROFILE}`]: () => profile(),
    'GET /api/agents': () => mine,
    [`GET ${PROFILE}/reviews`]: () => ({
      items: [
        review({ reply: { text: 'Thank you, Grace!', createdAt: '2026-02-02T10:00:00Z', updatedAt: '2026-02-02T10:00:00Z' } }),
        review({ id: 'r2', rating: 2, authorName: 'Alan', text: 'Too slow.' }),
      ],
      nextCursor: null,
    }),
  });
});

async function reviewBy(author: string) {
  const list = await screen.findByRole('list', { name: 'Reviews' }, slow);
  return within(list).getByRole('article', { name: `Review by ${author}` });
}

describe('creator replies on the profile', () => {
  it('offers Reply where there is none and Edit reply / Remove reply on a reply, to the owner only', async () => {
    renderApp('/marketplace/tax-helper', owner);
    const alan = await reviewBy('Alan');
    expect(await within(alan).findByRole('button', { name: 'Reply to the review by Alan' }, slow)).toHaveTextContent('Reply');
    const grace = await reviewBy('Grace');
    expect(within(grace).getByRole('button', { name: 'Edit reply to the review by Grace' })).toHaveTextContent('Edit reply');
    expect(within(grace).getByRole('button', { name: 'Remove reply to the review by Grace' })).toHaveTextContent('Remove reply');
    expect(within(grace).queryByRole('button', { name: /^Reply to/ })).not.toBeInTheDocument();
  });

  it('shows no reply controls to someone else', async () => {
    mine = [];
    renderApp('/marketplace/tax-helper', owner);
    const alan = await reviewBy('Alan');
    await waitFor(() => expect(calls('GET', '/api/agents')).toHaveLength(1));
    expect(within(alan).queryByRole('button', { name: /Reply/ })).not.toBeInTheDocument();
    expect(within(await reviewBy('Grace')).queryByRole('button', { name: /reply/i })).not.toBeInTheDocument();
  });

  it('checks the reply, saves it with PUT, toasts and refetches the reviews', async () => {
    api.use({ [`PUT ${REPLY('r2')}`]: () => review({ id: 'r2', reply: { text: 'Fixed now.', createdAt: '', updatedAt: '' } }) });
    renderApp('/marketplace/tax-helper', owner);
    const alan = await reviewBy('Alan');
    fireEvent.click(await within(alan).findByRole('button', { name: 'Reply to the review by Alan' }, slow));
    const form = within(alan).getByRole('form', { name: 'Your reply to Alan' });
    const box = within(form).getByLabelText('Your reply');
    await waitFor(() => expect(box).toHaveFocus());
    expect(box).toHaveAttribute('maxlength', '2000');
    fireEvent.click(within(form).getByRole('button', { name: 'Save reply' }));
    expect(await within(form).findByText('Write a reply first.')).toBeInTheDocument();
    expect(box).toHaveAttribute('aria-invalid', 'true');
    expect(calls('PUT', REPLY('r2'))).toHaveLength(0);

    const before = calls('GET', `${PROFILE}/reviews`).length;
    fireEvent.change(box, { target: { value: '  Fixed now.  ' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Save reply' }));
    expect(await screen.findByRole('status', { name: 'Reply saved' })).toBeInTheDocument();
    expect(calls('PUT', REPLY('r2'))[0]!.body).toEqual({ text: 'Fixed now.' });
    await waitFor(() => expect(calls('GET', `${PROFILE}/reviews`).length).toBeGreaterThan(before));
    await waitFor(() => expect(within(alan).queryByRole('form')).not.toBeInTheDocument());
  });

  it("shows the server's messages: a field message at the field, others above the buttons", async () => {
    let answer = json({ error: 'validation_failed', message: 'Invalid input', fields: { text: 'A reply can be at most 2,000 characters.' } }, 400);
    api.use({ [`PUT ${REPLY('r2')}`]: () => answer.clone() });
    renderApp('/marketplace/tax-helper', owner);
    const alan = await reviewBy('Alan');
    fireEvent.click(await within(alan).findByRole('button', { name: 'Reply to the review by Alan' }, slow));
    const form = within(alan).getByRole('form', { name: 'Your reply to Alan' });
    fireEvent.change(within(form).getByLabelText('Your reply'), { target: { value: 'Thanks' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Save reply' }));
    expect(await within(form).findByText('A reply can be at most 2,000 characters.')).toBeInTheDocument();

    answer = json({ error: 'not_found', message: 'Review not found' }, 404);
    fireEvent.click(within(form).getByRole('button', { name: 'Save reply' }));
    expect(await within(form).findByText('Review not found')).toBeInTheDocument();
  });

  it('edits a reply from its text, cancels, and removes it with DELETE', async () => {
    let removeAnswer = json({ error: 'not_found', message: 'Reply not found' }, 404);
    api.use({ [`DELETE ${REPLY('r1')}`]: () => removeAnswer.clone() });
    renderApp('/marketplace/tax-helper', owner);
    const grace = await reviewBy('Grace');
    fireEvent.click(await within(grace).findByRole('button', { name: 'Edit reply to the review by Grace' }, slow));
    const form = within(grace).getByRole('form', { name: 'Your reply to Grace' });
    expect(within(form).getByLabelText('Your reply')).toHaveValue('Thank you, Grace!');
    fireEvent.click(within(form).getByRole('button', { name: 'Cancel' }));
    expect(within(grace).queryByRole('form')).not.toBeInTheDocument();

    fireEvent.click(within(grace).getByRole('button', { name: 'Remove reply to the review by Grace' }));
    expect(await within(grace).findByText('Reply not found')).toBeInTheDocument();
    removeAnswer = noContent();
    fireEvent.click(within(grace).getByRole('button', { name: 'Remove reply to the review by Grace' }));
    expect(await screen.findByRole('status', { name: 'Reply removed' })).toBeInTheDocument();
    expect(calls('DELETE', REPLY('r1'))).toHaveLength(2);
  });
});
