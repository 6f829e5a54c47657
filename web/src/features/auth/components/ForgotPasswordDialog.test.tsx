import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthContext } from '../auth-context';
import { authValue } from '@/test/render';

const sdk = {
  auth: { currentUser: null },
  sendPasswordResetEmail: vi.fn(async (_auth: unknown, _email: string) => {}),
};
vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => sdk) }));

const { LoginForm } = await import('./LoginForm');
const { RESET_TEXTS } = await import('./ForgotPasswordDialog');

function renderLogin() {
  render(
    <AuthContext.Provider value={authValue()}>
      <LoginForm />
    </AuthContext.Provider>,
  );
}

async function openDialog(ue: ReturnType<typeof userEvent.setup>, typedEmail?: string) {
  if (typedEmail) await ue.type(screen.getByLabelText('Email'), typedEmail);
  await ue.click(screen.getByRole('button', { name: 'Forgot password?' }));
  return screen.findByRole('dialog', { name: RESET_TEXTS.title });
}

describe('Forgot password', () => {
  beforeEach(() => {
    vi.clearAllMocks();
    sdk.sendPasswordResetEmail.mockImplementation(async () => {});
  });

  it('prefills the address from the sign-in form and sends the reset e-mail', async () => {
    const ue = userEvent.setup();
    renderLogin();
    const dialog = await openDialog(ue, 'ada@example.com');
    const field = within(dialog).getByLabelText(RESET_TEXTS.emailLabel);
    expect(field).toHaveValue('ada@example.com');
    await ue.click(within(dialog).getByRole('button', { name: RESET_TEXTS.send }));
    expect(sdk.sendPasswordResetEmail).toHaveBeenCalledWith(sdk.auth, 'ada@example.com');
    expect(await within(dialog).findByRole('status')).toHaveTextContent(RESET_TEXTS.sent('ada@example.com'));
  });

  it('shows the same confirmation for an unknown address (no account enumeration)', async () => {
    sdk.sendPasswordResetEmail.mockRejectedValue(Object.assign(new Error('x'), { code: 'auth/user-not-found' }));
    const ue = userEvent.setup();
    renderLogin();
    const dialog = await openDialog(ue);
    await ue.type(within(dialog).getByLabelText(RESET_TEXTS.emailLabel), 'nobody@example.com');
    await ue.click(within(dialog).getByRole('button', { name: RESET_TEXTS.send }));
    expect(await within(dialog).findByRole('status')).toHaveTextContent(RESET_TEXTS.sent('nobody@example.com'));
  });

  it('validates the address and shows other errors clearly', async () => {
    const ue = userEvent.setup();
    renderLogin();
    const dialog = await openDialog(ue);
    await ue.type(within(dialog).getByLabelText(RESET_TEXTS.emailLabel), 'not-an-address');
    await ue.click(within(dialog).getByRole('button', { name: RESET_TEXTS.send }));
    expect(within(dialog).getByText('Please enter a valid email address')).toBeInTheDocument();
    expect(within(dialog).getByLabelText(RESET_TEXTS.emailLabel)).toHaveAttribute('aria-invalid', 'true');
    expect(sdk.sendPasswordResetEmail).not.toHaveBeenCalled();

    sdk.sendPasswordResetEmail.mockRejectedValue(Object.assign(new Error('x'), { code: 'auth/too-many-requests' }));
    const field = within(dialog).getByLabelText(RESET_TEXTS.emailLabel);
    await ue.clear(field);
    await ue.type(field, 'ada@example.com');
    await ue.click(within(dialog).getByRole('button', { name: RESET_TEXTS.send }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(RESET_TEXTS.tooMany);
    expect(within(dialog).queryByRole('status')).not.toBeInTheDocument();
  });
});
