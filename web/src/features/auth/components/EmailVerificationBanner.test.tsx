import { QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthContext } from '@/features/auth/auth-context';
import { createQueryClient } from '@/lib/query-client';
import { authValue } from '@/test/render';

// The Firebase user as the SDK holds it: emailVerified flips once the link is opened.
const firebaseUser = {
  uid: 'uid-1',
  email: 'ada@example.com',
  emailVerified: false,
  getIdToken: vi.fn(async (_force?: boolean) => 'token'),
};
const sdk = {
  auth: { currentUser: firebaseUser as typeof firebaseUser | null },
  sendEmailVerification: vi.fn(async (_user: unknown) => {}),
  reload: vi.fn(async (_user: unknown) => {}),
};
vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => sdk) }));

const { EmailVerificationBanner, VERIFY_TEXTS } = await import('./EmailVerificationBanner');

function renderBanner(user: { uid: string; email: string | null; displayName: null; emailVerified?: boolean } | null) {
  const auth = authValue({ user });
  const queryClient = createQueryClient();
  const invalidate = vi.spyOn(queryClient, 'invalidateQueries');
  render(
    <QueryClientProvider client={queryClient}>
      <AuthContext.Provider value={auth}>
        <EmailVerificationBanner />
      </AuthContext.Provider>
    </QueryClientProvider>,
  );
  return { auth, invalidate };
}

const unverified = { uid: 'uid-1', email: 'ada@example.com', displayName: null, emailVerified: false };

describe('EmailVerificationBanner', () => {
  beforeEach(() => {
    vi.clearAllMocks();
    firebaseUser.emailVerified = false;
    sdk.auth.currentUser = firebaseUser;
  });

  it('is not shown to a verified user, a user of unknown state, or nobody', () => {
    renderBanner({ ...unverified, emailVerified: true });
    renderBanner({ uid: 'uid-2', email: 'g@example.com', displayName: null });
    renderBanner(null);
    expect(screen.queryByRole('region', { name: VERIFY_TEXTS.label })).not.toBeInTheDocument();
    expect(screen.queryByText(VERIFY_TEXTS.notice)).not.toBeInTheDocument();
  });

  it('sends the verification e-mail, then reloads the user and refreshes the token once verified', async () => {
    const ue = userEvent.setup();
    const { auth, invalidate } = renderBanner(unverified);

    const region = screen.getByRole('region', { name: VERIFY_TEXTS.label });
    expect(region).toHaveTextContent('Verify your e-mail address to accept invitations');
    await ue.click(screen.getByRole('button', { name: 'Send verification e-mail' }));
    expect(sdk.sendEmailVerification).toHaveBeenCalledWith(firebaseUser);
    expect(await screen.findByRole('status')).toHaveTextContent('Verification e-mail sent');

    // Not verified yet: the banner stays and says so.
    await ue.click(screen.getByRole('button', { name: VERIFY_TEXTS.check }));
    expect(sdk.reload).toHaveBeenCalledWith(firebaseUser);
    expect(await screen.findByText(VERIFY_TEXTS.notYet, { exact: false })).toBeInTheDocument();
    expect(firebaseUser.getIdToken).not.toHaveBeenCalled();

    // The link was opened in another tab; coming back to this one checks again.
    firebaseUser.emailVerified = true;
    await act(async () => {
      window.dispatchEvent(new Event('focus'));
    });
    await waitFor(() => expect(screen.queryByRole('region', { name: VERIFY_TEXTS.label })).not.toBeInTheDocument());
    expect(firebaseUser.getIdToken).toHaveBeenCalledWith(true);
    expect(auth.refreshUser).toHaveBeenCalled();
    expect(invalidate).toHaveBeenCalled();
  });

  it('says so when the e-mail cannot be sent', async () => {
    const ue = userEvent.setup();
    sdk.sendEmailVerification.mockRejectedValueOnce(new Error('auth/too-many-requests'));
    renderBanner(unverified);
    await ue.click(screen.getByRole('button', { name: 'Send verification e-mail' }));
    expect(await screen.findByRole('status')).toHaveTextContent(VERIFY_TEXTS.failed);
    expect(screen.getByRole('button', { name: 'Send verification e-mail' })).toBeEnabled();
  });
});
