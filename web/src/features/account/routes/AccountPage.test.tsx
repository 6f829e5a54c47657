import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthContext } from '@/features/auth/auth-context';
import { ApiError } from '@/lib/api-error';
import { createQueryClient } from '@/lib/query-client';
import { authValue } from '@/test/render';

const firebaseUser = {
  uid: 'uid-1',
  email: 'ada@example.com',
  emailVerified: false,
  providerData: [{ providerId: 'password' }],
  getIdToken: vi.fn(async () => 'token'),
};
const sdk = {
  auth: { currentUser: firebaseUser as typeof firebaseUser | null },
  EmailAuthProvider: { credential: vi.fn((email: string, password: string) => ({ email, password })) },
  reauthenticateWithCredential: vi.fn(async (_u: unknown, _c: unknown) => {}),
  updatePassword: vi.fn(async (_u: unknown, _p: string) => {}),
  updateProfile: vi.fn(async (_u: unknown, _p: unknown) => {}),
  sendEmailVerification: vi.fn(async () => {}),
  reload: vi.fn(async () => {}),
  signOut: vi.fn(async () => {}),
};
vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => sdk) }));

const api = {
  revokeSessions: vi.fn(async () => {}),
  deleteAccount: vi.fn(async () => {}),
};
vi.mock('../api/account', () => api);

const { AccountPage } = await import('./AccountPage');
const { ACCOUNT_TEXTS } = await import('../lib/texts');

const ada = { uid: 'uid-1', email: 'ada@example.com', displayName: 'Ada', emailVerified: false };

function renderPage(user: typeof ada | (Omit<typeof ada, 'emailVerified'> & { emailVerified: boolean }) = ada) {
  const auth = authValue({ user });
  const router = createMemoryRouter(
    [
      { path: '/dashboard/account', Component: AccountPage },
      { path: '/auth', Component: () => <p>Sign-in page</p> },
    ],
    { initialEntries: ['/dashboard/account'] },
  );
  render(
    <QueryClientProvider client={createQueryClient()}>
      <AuthContext.Provider value={auth}>
        <RouterProvider router={router} />
      </AuthContext.Provider>
    </QueryClientProvider>,
  );
  return { auth, router };
}

const section = (name: string) => screen.getByRole('region', { name });

describe('AccountPage', () => {
  beforeEach(() => {
    vi.clearAllMocks();
    sdk.auth.currentUser = firebaseUser;
  });

  it('shows the e-mail, its verification state and the Send verification e-mail button', async () => {
    renderPage();
    expect(await screen.findByRole('heading', { level: 1, name: 'Account' })).toBeInTheDocument();
    expect(screen.getByTestId('account-email')).toHaveTextContent('ada@example.com');
    expect(screen.getByTestId('account-verification')).toHaveTextContent('Not verified');
    expect(screen.getByRole('button', { name: 'Send verification e-mail' })).toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: 'Email' })).not.toBeInTheDocument(); // read-only
  });

  it('a verified address shows Verified and no button', async () => {
    renderPage({ ...ada, emailVerified: true });
    expect(await screen.findByTestId('account-verification')).toHaveTextContent('Verified');
    expect(screen.queryByRole('button', { name: 'Send verification e-mail' })).not.toBeInTheDocument();
  });

  it('saves the display name on the Firebase user and the profile', async () => {
    const ue = userEvent.setup();
    const { auth } = renderPage();
    const field = await screen.findByLabelText(ACCOUNT_TEXTS.displayNameLabel);
    expect(field).toHaveValue('Ada');
    await ue.clear(field);
    await ue.click(screen.getByRole('button', { name: ACCOUNT_TEXTS.save }));
    expect(await screen.findByText(ACCOUNT_TEXTS.displayNameRequired)).toBeInTheDocument();
    await ue.type(field, '  Ada Lovelace ');
    await ue.click(screen.getByRole('button', { name: ACCOUNT_TEXTS.save }));
    await waitFor(() => expect(auth.refreshUser).toHaveBeenCalled());
    expect(sdk.updateProfile).toHaveBeenCalledWith(firebaseUser, { displayName: 'Ada Lovelace' });
  });

  it('changes the password after reauthenticating; a wrong current password shows on its field', async () => {
    const ue = userEvent.setup();
    renderPage();
    const form = within(await screen.findByRole('form', { name: ACCOUNT_TEXTS.passwordHeading }));
    const current = form.getByLabelText(ACCOUNT_TEXTS.currentPasswordLabel);
    await ue.type(current, 'wrong-pass');
    await ue.type(form.getByLabelText(ACCOUNT_TEXTS.newPasswordLabel), 'new-secret');
    await ue.type(form.getByLabelText(ACCOUNT_TEXTS.confirmPasswordLabel), 'new-secret');
    sdk.reauthenticateWithCredential.mockRejectedValueOnce(Object.assign(new Error('x'), { code: 'auth/wrong-password' }));
    await ue.click(form.getByRole('button', { name: ACCOUNT_TEXTS.changePassword }));
    expect(await form.findByText(ACCOUNT_TEXTS.wrongPassword)).toBeInTheDocument();
    expect(current).toHaveAttribute('aria-invalid', 'true');
    expect(sdk.updatePassword).not.toHaveBeenCalled();

    await ue.clear(current);
    await ue.type(current, 'old-secret');
    await ue.click(form.getByRole('button', { name: ACCOUNT_TEXTS.changePassword }));
    await waitFor(() => expect(sdk.updatePassword).toHaveBeenCalledWith(firebaseUser, 'new-secret'));
    expect(sdk.EmailAuthProvider.credential).toHaveBeenLastCalledWith('ada@example.com', 'old-secret');
    await waitFor(() => expect(current).toHaveValue(''));
  });

  it('checks that the new passwords match', async () => {
    const ue = userEvent.setup();
    renderPage();
    const form = within(await screen.findByRole('form', { name: ACCOUNT_TEXTS.passwordHeading }));
    await ue.type(form.getByLabelText(ACCOUNT_TEXTS.currentPasswordLabel), 'old-secret');
    await ue.type(form.getByLabelText(ACCOUNT_TEXTS.newPasswordLabel), 'new-secret');
    await ue.type(form.getByLabelText(ACCOUNT_TEXTS.confirmPasswordLabel), 'other-secret');
    await ue.click(form.getByRole('button', { name: ACCOUNT_TEXTS.changePassword }));
    expect(await form.findByText('Passwords do not match')).toBeInTheDocument();
    expect(sdk.reauthenticateWithCredential).not.toHaveBeenCalled();
  });

  it('signs out everywhere: revokes, signs out here and goes to /auth', async () => {
    const ue = userEvent.setup();
    const { router } = renderPage();
    await ue.click(await within(await waitFor(() => section(ACCOUNT_TEXTS.sessionsHeading))).findByRole('button', { name: ACCOUNT_TEXTS.signOutEverywhere }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/auth'));
    expect(api.revokeSessions).toHaveBeenCalled();
    expect(sdk.signOut).toHaveBeenCalled();
  });

  it('deletes the account after the e-mail is typed; a refusal shows the reason', async () => {
    const ue = userEvent.setup();
    const { router } = renderPage();
    await ue.click(await screen.findByRole('button', { name: ACCOUNT_TEXTS.deleteButton }));
    const dialog = within(await screen.findByRole('dialog', { name: ACCOUNT_TEXTS.deleteConfirmTitle }));
    const confirm = dialog.getByRole('button', { name: ACCOUNT_TEXTS.deleteButton });
    expect(confirm).toBeDisabled();
    await ue.type(dialog.getByLabelText('Type ada@example.com to confirm'), 'ada@example.com');
    expect(confirm).toBeEnabled();

    const reason = 'Your wallet holds $12.34: spend or withdraw it before deleting your account.';
    api.deleteAccount.mockRejectedValueOnce(new ApiError(reason, 409));
    await ue.click(confirm);
    expect(await dialog.findByRole('alert')).toHaveTextContent(reason);
    expect(sdk.signOut).not.toHaveBeenCalled();

    await ue.click(confirm);
    await waitFor(() => expect(router.state.location.pathname).toBe('/auth'));
    expect(api.deleteAccount).toHaveBeenCalledTimes(2);
    expect(sdk.signOut).toHaveBeenCalled();
  });

  it('a Google user has no password to change', async () => {
    firebaseUser.providerData = [{ providerId: 'google.com' }];
    renderPage({ ...ada, emailVerified: true });
    expect(await screen.findByText(ACCOUNT_TEXTS.noPassword)).toBeInTheDocument();
    firebaseUser.providerData = [{ providerId: 'password' }];
  });
});
