import { useQueryClient } from '@tanstack/react-query';
import { Button } from 'antd';
import { useCallback, useEffect, useLayoutEffect, useState, useSyncExternalStore } from 'react';
import { loadFirebase } from '@/lib/firebase';
import { useAuth } from '../auth-context';
import './email-verification.css';

/** Texts of the banner (docs/identity.md, "E-mail verification"). */
export const VERIFY_TEXTS = {
  label: 'E-mail verification',
  notice: 'Verify your e-mail address to accept invitations',
  send: 'Send verification e-mail',
  sent: 'Verification e-mail sent',
  sentHint: 'Open the link in the e-mail, then come back here.',
  check: "I've verified my address",
  notYet: 'Your address is not verified yet.',
  failed: 'The verification e-mail could not be sent. Try again later.',
} as const;

type State = 'idle' | 'sending' | 'sent' | 'failed';

/**
 * Offers a signed-in user whose e-mail address is not verified to verify it:
 * agents shared with an address activate only once its owner has verified it
 * (Google sign-ins are verified already, so they never see this). After the
 * link in the e-mail is opened, the Firebase user is reloaded and the ID token
 * refreshed (email_verified becomes true in it), and the data is refetched, so
 * pending invitations activate on that request.
 */
export function EmailVerificationBanner({ notice, inPage = false }: EmailVerificationBannerProps = {}) {
  const { user } = useAuth();
  const pageHasOwn = useSyncExternalStore(subscribePageBanners, pageBannersShown, pageBannersShown);
  // A page's own banner tells the layout's to step aside while it is mounted (before paint: no flicker).
  useLayoutEffect(() => {
    if (!inPage) return;
    setPageBanners(pageBanners + 1);
    return () => setPageBanners(pageBanners - 1);
  }, [inPage]);
  if (!inPage && pageHasOwn) return null;
  // A fresh state for each signed-in user.
  return <Banner key={user?.uid ?? ''} notice={notice || VERIFY_TEXTS.notice} />;
}

export interface EmailVerificationBannerProps {
  /** The notice (default VERIFY_TEXTS.notice), e.g. Shared with me's count of pending invitations. */
  notice?: string;
  /**
   * Rendered by a page (Shared with me) rather than the dashboard layout: while it is mounted, the layout's
   * banner is not shown, so the page's notice is the only one.
   */
  inPage?: boolean;
}

// How many page banners are mounted (a tiny external store the layout's banner subscribes to).
let pageBanners = 0;
const pageBannerListeners = new Set<() => void>();
function setPageBanners(n: number) {
  pageBanners = Math.max(0, n);
  pageBannerListeners.forEach((listener) => listener());
}
function subscribePageBanners(listener: () => void) {
  pageBannerListeners.add(listener);
  return () => {
    pageBannerListeners.delete(listener);
  };
}
function pageBannersShown() {
  return pageBanners > 0;
}

function Banner({ notice }: { notice: string }) {
  const { user, refreshUser } = useAuth();
  const queryClient = useQueryClient();
  const [state, setState] = useState<State>('idle');
  const [notYet, setNotYet] = useState(false);
  const [verified, setVerified] = useState(false);

  /** Reloads the Firebase user; when now verified, refreshes the token and the data. */
  const check = useCallback(
    async (explicit: boolean) => {
      const { auth, reload } = await loadFirebase();
      const current = auth.currentUser;
      if (!current) return;
      try {
        await reload(current);
      } catch {
        return; // offline or the emulator is away: try again on the next check
      }
      if (auth.currentUser?.emailVerified) {
        await auth.currentUser.getIdToken(true); // the new token says email_verified: true
        setVerified(true);
        await refreshUser().catch(() => {});
        await queryClient.invalidateQueries();
      } else if (explicit) {
        setNotYet(true);
      }
    },
    [queryClient, refreshUser],
  );

  // Back from the e-mail (another tab): check without being asked.
  useEffect(() => {
    if (state !== 'sent') return;
    const onFocus = () => void check(false);
    window.addEventListener('focus', onFocus);
    return () => window.removeEventListener('focus', onFocus);
  }, [state, check]);

  const send = async () => {
    setState('sending');
    setNotYet(false);
    try {
      const { auth, sendEmailVerification } = await loadFirebase();
      if (!auth.currentUser) return;
      await sendEmailVerification(auth.currentUser);
      setState('sent');
    } catch {
      setState('failed');
    }
  };

  // Only an explicit false: a user without an address, or whose state is
  // unknown, is not asked.
  if (!user?.email || user.emailVerified !== false || verified) return null;
  return (
    <section className="email-verify" aria-label={VERIFY_TEXTS.label} data-testid="email-verification-banner">
      <p className="email-verify__notice">{notice}</p>
      <div className="email-verify__actions">
        {state === 'sent' ? (
          <Button key="check" onClick={() => void check(true)}>
            {VERIFY_TEXTS.check}
          </Button>
        ) : (
          <Button key="send" type="primary" disabled={state === 'sending'} onClick={() => void send()}>
            {VERIFY_TEXTS.send}
          </Button>
        )}
      </div>
      <p className="email-verify__status" role="status" aria-live="polite">
        {state === 'sent' && (
          <>
            <strong>{VERIFY_TEXTS.sent}</strong> {VERIFY_TEXTS.sentHint}
            {notYet && <> {VERIFY_TEXTS.notYet}</>}
          </>
        )}
        {state === 'failed' && VERIFY_TEXTS.failed}
      </p>
    </section>
  );
}
