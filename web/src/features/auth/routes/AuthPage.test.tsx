import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { authValue, renderApp } from '@/test/render';

vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => ({ auth: { currentUser: null } })) }));

describe('/auth', () => {
  it('shows a spinner while the user or profile loads', async () => {
    renderApp('/auth', authValue({ profileLoading: true }));
    expect(await screen.findByRole('status', { name: 'Loading' })).toBeInTheDocument();
    expect(screen.queryByRole('tab', { name: 'Login' })).not.toBeInTheDocument();
  });

  it('shows the profile error', async () => {
    renderApp('/auth', authValue({ error: new Error('Internal server error') }));
    expect(await screen.findByText('Error loading user data')).toBeInTheDocument();
    expect(screen.getByText('Internal server error')).toBeInTheDocument();
  });

  it('sends a signed-in user to /dashboard', async () => {
    const { router } = renderApp('/auth', authValue({ user: { uid: 'u', email: 'a@b.co', displayName: null } }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });

  it('sends a signed-in user back to the marketplace page that asked for sign-in, and nowhere else', async () => {
    const user = { uid: 'u', email: 'a@b.co', displayName: null };
    const back = renderApp({ pathname: '/auth', state: { returnTo: '/marketplace/tax-helper' } }, authValue({ user }));
    await waitFor(() => expect(back.router.state.location.pathname).toBe('/marketplace/tax-helper'));
    back.unmount();
    const outside = renderApp({ pathname: '/auth', state: { returnTo: 'https://evil.example/' } }, authValue({ user }));
    await waitFor(() => expect(outside.router.state.location.pathname).toBe('/dashboard'));
  });

  it("opens /auth?next='s same-origin path once signed in (the invitation e-mail's link), and nowhere else", async () => {
    const user = { uid: 'u', email: 'a@b.co', displayName: null };
    const shared = renderApp('/auth?next=/dashboard/shared', authValue({ user }));
    await waitFor(() => expect(shared.router.state.location.pathname).toBe('/dashboard/shared'));
    shared.unmount();
    const outside = renderApp('/auth?next=//evil.example/dashboard', authValue({ user }));
    await waitFor(() => expect(outside.router.state.location.pathname).toBe('/dashboard'));
  });

  it('renders the login tab by default with labelled fields', async () => {
    renderApp('/auth');
    expect(await screen.findByRole('tab', { name: 'Login', selected: true })).toBeInTheDocument();
    expect(screen.getByText('Sign in to your account')).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveAttribute('type', 'email');
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
    expect(screen.getByRole('link', { name: 'Back to home' })).toHaveAttribute('href', '/');
    expect(screen.getByText('Or continue with')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Google' })).toBeEnabled();
  });

  it('validates the login form and associates the messages with the fields', async () => {
    const auth = authValue();
    renderApp('/auth', auth);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Email'), 'nope');
    await user.type(screen.getByLabelText('Password'), '123');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByText('Please enter a valid email address')).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveAccessibleDescription('Please enter a valid email address');
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('Password must be at least 6 characters');
    expect(auth.login).not.toHaveBeenCalled();
  });

  it("submits the login and shows 'Signing in...' while pending", async () => {
    let finish!: () => void;
    const auth = authValue({ login: vi.fn(() => new Promise<void>((r) => (finish = r))) });
    renderApp('/auth', auth);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'secret1');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('button', { name: 'Signing in...' })).toBeDisabled();
    expect(auth.login).toHaveBeenCalledWith('ada@example.com', 'secret1');
    finish();
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeEnabled();
  });

  it('registers with username, e-mail and password (not confirmPassword)', async () => {
    const auth = authValue();
    renderApp('/auth', auth);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('tab', { name: 'Register' }));
    expect(await screen.findByText('Create your account')).toBeInTheDocument();

    await user.type(screen.getByLabelText('Username'), 'ad');
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'secret1');
    await user.type(screen.getByLabelText('Confirm Password'), 'secret2');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(await screen.findByText('Username must be at least 3 characters')).toBeInTheDocument();
    expect(screen.getByLabelText('Confirm Password')).toHaveAccessibleDescription('Passwords do not match');
    expect(auth.register).not.toHaveBeenCalled();

    await user.type(screen.getByLabelText('Username'), 'a');
    await user.clear(screen.getByLabelText('Confirm Password'));
    await user.type(screen.getByLabelText('Confirm Password'), 'secret1');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    await waitFor(() =>
      expect(auth.register).toHaveBeenCalledWith({ email: 'ada@example.com', password: 'secret1', username: 'ada' }),
    );
  });
});
