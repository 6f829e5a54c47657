import { Button } from 'antd';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { toast } from '@/components/toast';
import { loadFirebase } from '@/lib/firebase';
import { revokeSessions } from '../api/account';
import { ACCOUNT_TEXTS } from '../lib/texts';

/** Revokes every refresh token of the user (POST /api/user/sessions/revoke), then signs out here. */
export function SignOutEverywhere() {
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const run = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await revokeSessions();
      const { auth, signOut } = await loadFirebase();
      await signOut(auth);
      toast({ title: ACCOUNT_TEXTS.signedOutEverywhere, description: ACCOUNT_TEXTS.signedOutEverywhereBody });
      navigate('/auth', { replace: true });
    } catch (err) {
      console.error('Error signing out everywhere:', err);
      setError(err instanceof Error && err.message ? err.message : ACCOUNT_TEXTS.signOutFailed);
      setBusy(false);
    }
  };

  return (
    <>
      <p className="account-section__text">{ACCOUNT_TEXTS.sessionsBody}</p>
      {error && (
        <p role="alert" className="form-field__error">
          {error}
        </p>
      )}
      <div>
        <Button onClick={() => void run()} disabled={busy}>
          {busy ? ACCOUNT_TEXTS.signingOut : ACCOUNT_TEXTS.signOutEverywhere}
        </Button>
      </div>
    </>
  );
}
