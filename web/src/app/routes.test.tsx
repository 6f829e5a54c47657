import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { authValue, renderApp } from '@/test/render';

vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => ({ auth: { currentUser: null } })) }));

const signedIn = { uid: 'u1', email: 'ada@example.com', displayName: 'Ada Lovelace', username: 'ada' };

describe('routing', () => {
  it('shows the landing page at / with links to /auth', async () => {
    renderApp('/');
    expect(await screen.findByRole('heading', { level: 1, name: 'Agentic' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Sign In' })).toHaveAttribute('href', '/auth');
    expect(screen.getByRole('link', { name: 'Get Started' })).toHaveAttribute('href', '/auth');
  });

  it('shows the 404 screen for unknown paths', async () => {
    renderApp('/nope/really');
    expect(await screen.findByRole('heading', { name: '404 Page Not Found' })).toBeInTheDocument();
    expect(screen.getByText('Did you forget to add the page to the router?')).toBeInTheDocument();
  });

  it('shows a spinner named Loading on protected routes while the user loads', async () => {
    renderApp('/dashboard', authValue({ loading: true }));
    expect(await screen.findByRole('status', { name: 'Loading' })).toBeInTheDocument();
  });

  it('redirects signed-out visitors from protected routes to /auth', async () => {
    for (const path of ['/dashboard', '/dashboard/agentic-users', '/dashboard/wallet', '/wallet']) {
      const { router, unmount } = renderApp(path);
      await waitFor(() => expect(router.state.location.pathname).toBe('/auth'));
      unmount();
    }
  });

  it('shows the profile-load error on protected pages instead of redirecting', async () => {
    const { router } = renderApp('/dashboard', authValue({ user: null, error: new Error('boom') }));
    expect(await screen.findByText('Error loading user data: boom')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it('renders the placeholder pages for a signed-in user', async () => {
    const cases: [string, string][] = [
      ['/dashboard', 'Dashboard'],
      ['/dashboard/agentic-users', 'Your Agentic Users'],
      ['/dashboard/marketplace', 'Marketplace Coming Soon'],
      ['/dashboard/wallet', 'Wallet'],
      ['/wallet', 'Wallet'],
    ];
    for (const [path, heading] of cases) {
      const { unmount } = renderApp(path, authValue({ user: signedIn }));
      expect(await screen.findByRole('heading', { level: 1, name: heading })).toBeInTheDocument();
      // /wallet has no dashboard layout.
      expect(screen.queryByRole('navigation', { name: 'Main' }) !== null).toBe(path !== '/wallet');
      unmount();
    }
  });
});

describe('dashboard header', () => {
  it('marks the active link with aria-current and Dashboard only on exact match', async () => {
    renderApp('/dashboard/wallet', authValue({ user: signedIn }));
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Wallet' })).toHaveAttribute('aria-current', 'page');
    expect(within(nav).getByRole('link', { name: 'Dashboard' })).not.toHaveAttribute('aria-current');
    expect(within(nav).getByRole('link', { name: 'Your Agentic Users' })).toHaveAttribute(
      'href',
      '/dashboard/agentic-users',
    );
    expect(screen.getByRole('link', { name: 'Agentic' })).toHaveAttribute('href', '/dashboard');
  });

  it('shows initials and label of the signed-in user, and logs out to /auth', async () => {
    const auth = authValue({ user: signedIn });
    const { router } = renderApp('/dashboard', auth);
    const visited: string[] = [];
    router.subscribe((state) => visited.push(state.location.pathname));
    // The accessible name starts with the visible text (axe label-content-name-mismatch).
    const button = await screen.findByRole('button', { name: 'AL ada, Account menu' });
    expect(button).toHaveTextContent('AL');
    expect(button).toHaveTextContent('ada');

    await userEvent.click(button);
    expect(await screen.findByText('My Account')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('menuitem', { name: 'Log out' }));
    expect(auth.logout).toHaveBeenCalled();
    // (The fake context keeps the user, so /auth then bounces back to /dashboard.)
    await waitFor(() => expect(visited).toContain('/auth'));
  });
});
