import { Button, Input, Modal } from 'antd';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { toast } from '@/components/toast';
import { loadFirebase } from '@/lib/firebase';
import { deleteAccount } from '../api/account';
import { ACCOUNT_TEXTS } from '../lib/texts';

/**
 * Delete account: a confirmation in which the user types their e-mail address; `DELETE /api/user/account` → 204,
 * then the local sign-out. A refusal (409: the wallet holds money) shows the server's reason in the dialog.
 */
export function DeleteAccountSection({ email }: { email: string }) {
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string>();
  const matches = typed.trim().toLowerCase() === email.trim().toLowerCase() && email.trim() !== '';

  const close = () => {
    if (pending) return;
    setOpen(false);
    setTyped('');
    setError(undefined);
  };

  const confirm = async () => {
    if (!matches || pending) return;
    setPending(true);
    setError(undefined);
    try {
      await deleteAccount();
    } catch (err) {
      setError(err instanceof Error && err.message ? err.message : ACCOUNT_TEXTS.deleteFailed);
      setPending(false);
      return;
    }
    try {
      const { auth, signOut } = await loadFirebase();
      await signOut(auth);
    } catch (err) {
      console.error('Sign-out after deleting the account failed:', err);
    }
    toast({ title: ACCOUNT_TEXTS.deleted, description: ACCOUNT_TEXTS.deletedBody });
    navigate('/auth', { replace: true });
  };

  return (
    <>
      <p className="account-section__text">{ACCOUNT_TEXTS.deleteBody}</p>
      <div>
        <Button danger onClick={() => setOpen(true)}>
          {ACCOUNT_TEXTS.deleteButton}
        </Button>
      </div>
      <Modal
        open={open}
        title={ACCOUNT_TEXTS.deleteConfirmTitle}
        onCancel={close}
        destroyOnHidden
        width={480}
        footer={
          <div className="account-form__actions">
            <Button onClick={close} disabled={pending}>
              {ACCOUNT_TEXTS.cancel}
            </Button>
            <Button danger type="primary" onClick={() => void confirm()} disabled={!matches || pending}>
              {pending ? ACCOUNT_TEXTS.deleting : ACCOUNT_TEXTS.deleteButton}
            </Button>
          </div>
        }
      >
        <form
          className="account-form"
          onSubmit={(e) => {
            e.preventDefault();
            e.stopPropagation();
            void confirm();
          }}
        >
          <p>{ACCOUNT_TEXTS.deleteBody}</p>
          <label htmlFor="account-delete-confirm" className="form-field__label">
            {ACCOUNT_TEXTS.deleteConfirmLabel(email)}
          </label>
          <Input
            id="account-delete-confirm"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            autoComplete="off"
            autoFocus
          />
          {error && (
            <p role="alert" className="form-field__error">
              {error}
            </p>
          )}
        </form>
      </Modal>
    </>
  );
}
