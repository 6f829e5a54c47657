import { Button, Input, Modal } from 'antd';
import { useState, type FormEvent } from 'react';
import { z } from 'zod';
import { FormField, fieldA11y } from '@/components/FormField';
import { loadFirebase } from '@/lib/firebase';
import { getErrorCode } from '../lib/auth-errors';
import { MESSAGES } from '../lib/schemas';

/** Texts of the password reset (issue 29). */
export const RESET_TEXTS = {
  link: 'Forgot password?',
  title: 'Reset your password',
  intro: "Enter your account's e-mail address and we will send you a link to choose a new password.",
  emailLabel: 'Email',
  send: 'Send reset link',
  sending: 'Sending...',
  cancel: 'Cancel',
  close: 'Close',
  // The same confirmation whether or not an account uses the address (no account enumeration).
  sent: (email: string) =>
    `If an account uses ${email}, we have sent it a link to reset your password. Check your inbox (and the spam folder).`,
  tooMany: 'Too many attempts. Try again in a few minutes.',
  network: 'The reset e-mail could not be sent: check your connection and try again.',
  failed: 'The reset e-mail could not be sent. Try again later.',
} as const;

const emailSchema = z.string().trim().pipe(z.email(MESSAGES.email));

/** The message shown for a failed sendPasswordResetEmail ("" when the neutral confirmation applies). */
export function resetErrorMessage(error: unknown): string {
  switch (getErrorCode(error)) {
    // An unknown address gets the same answer as a known one.
    case 'auth/user-not-found':
      return '';
    case 'auth/invalid-email':
    case 'auth/missing-email':
      return MESSAGES.email;
    case 'auth/too-many-requests':
      return RESET_TEXTS.tooMany;
    case 'auth/network-request-failed':
      return RESET_TEXTS.network;
    default:
      return RESET_TEXTS.failed;
  }
}

interface ForgotPasswordDialogProps {
  open: boolean;
  /** Prefilled from the sign-in form. */
  initialEmail: string;
  onClose: () => void;
}

/** Asks for the address and sends Firebase's password reset e-mail. */
export function ForgotPasswordDialog({ open, initialEmail, onClose }: ForgotPasswordDialogProps) {
  return (
    <Modal open={open} title={RESET_TEXTS.title} onCancel={onClose} destroyOnHidden footer={null} width={440}>
      {open && <ResetForm initialEmail={initialEmail} onClose={onClose} />}
    </Modal>
  );
}

function ResetForm({ initialEmail, onClose }: { initialEmail: string; onClose: () => void }) {
  const [email, setEmail] = useState(initialEmail);
  const [fieldError, setFieldError] = useState<string>();
  const [formError, setFormError] = useState<string>();
  const [sending, setSending] = useState(false);
  const [sentTo, setSentTo] = useState<string>();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    e.stopPropagation(); // React events cross the Modal's portal
    if (sending) return;
    setFormError(undefined);
    const parsed = emailSchema.safeParse(email);
    if (!parsed.success) {
      setFieldError(MESSAGES.email);
      return;
    }
    setFieldError(undefined);
    setSending(true);
    try {
      const { auth, sendPasswordResetEmail } = await loadFirebase();
      await sendPasswordResetEmail(auth, parsed.data);
      setSentTo(parsed.data);
    } catch (err) {
      const message = resetErrorMessage(err);
      if (message === '') setSentTo(parsed.data);
      else if (message === MESSAGES.email) setFieldError(message);
      else setFormError(message);
    } finally {
      setSending(false);
    }
  };

  if (sentTo !== undefined) {
    return (
      <div className="auth-reset">
        <p role="status">{RESET_TEXTS.sent(sentTo)}</p>
        <div className="auth-reset__actions">
          <Button type="primary" onClick={onClose}>
            {RESET_TEXTS.close}
          </Button>
        </div>
      </div>
    );
  }

  return (
    <form className="auth-reset" onSubmit={(e) => void submit(e)} noValidate aria-label={RESET_TEXTS.title}>
      <p>{RESET_TEXTS.intro}</p>
      <FormField id="reset-email" label={RESET_TEXTS.emailLabel} error={fieldError}>
        <Input
          {...fieldA11y('reset-email', fieldError)}
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          type="email"
          autoComplete="email"
          placeholder="you@example.com"
          autoFocus
        />
      </FormField>
      {formError && (
        <p role="alert" className="form-field__error">
          {formError}
        </p>
      )}
      <div className="auth-reset__actions">
        <Button onClick={onClose} disabled={sending}>
          {RESET_TEXTS.cancel}
        </Button>
        <Button type="primary" htmlType="submit" disabled={sending}>
          {sending ? RESET_TEXTS.sending : RESET_TEXTS.send}
        </Button>
      </div>
    </form>
  );
}
