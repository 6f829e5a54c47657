import { Tag } from 'antd';
import { useEffect, useState, type ReactNode } from 'react';
import { LoadingSpinner } from '@/components/LoadingSpinner';
import { usePageTitle } from '@/components/usePageTitle';
import { EmailVerificationBanner, useAuth } from '@/features/auth';
import { loadFirebase } from '@/lib/firebase';
import { ChangePasswordForm } from '../components/ChangePasswordForm';
import { DeleteAccountSection } from '../components/DeleteAccountSection';
import { DisplayNameForm } from '../components/DisplayNameForm';
import { SignOutEverywhere } from '../components/SignOutEverywhere';
import { ACCOUNT_TEXTS } from '../lib/texts';
import './account.css';

/** Whether the signed-in Firebase user has a password (e-mail sign-in); null until known. */
function useHasPassword(uid: string | undefined): boolean | null {
  const [state, setState] = useState<{ uid?: string; value: boolean | null }>({ value: null });
  useEffect(() => {
    let active = true;
    void loadFirebase()
      .then(({ auth }) => {
        const providers = auth.currentUser?.providerData?.map((p) => p.providerId) ?? [];
        if (active) setState({ uid, value: providers.length === 0 || providers.includes('password') });
      })
      .catch(() => active && setState({ uid, value: true }));
    return () => {
      active = false;
    };
  }, [uid]);
  return state.uid === uid ? state.value : null;
}

function Section({ id, title, danger, children }: { id: string; title: string; danger?: boolean; children: ReactNode }) {
  return (
    <section className={`account-section${danger ? ' account-section--danger' : ''}`} aria-labelledby={id}>
      <h2 id={id} className="account-section__title">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** /dashboard/account (issue 29). */
export function AccountPage() {
  usePageTitle(ACCOUNT_TEXTS.title);
  const { user, loading } = useAuth();
  const hasPassword = useHasPassword(user?.uid);

  if (loading && !user) return <LoadingSpinner fullPage={false} />;
  if (!user) return null;
  const email = user.email ?? '';
  const verified = user.emailVerified !== false;

  return (
    <section className="page account">
      <h1 className="page__title">{ACCOUNT_TEXTS.title}</h1>
      <p className="page__lead">{ACCOUNT_TEXTS.lead}</p>

      <Section id="account-profile" title={ACCOUNT_TEXTS.profileHeading}>
        <DisplayNameForm key={user.uid} initial={user.displayName ?? ''} />
        <dl className="account-email">
          <dt className="form-field__label">{ACCOUNT_TEXTS.emailLabel}</dt>
          <dd className="account-email__value" data-testid="account-email">
            <span>{email}</span>{' '}
            {/* Own colours: antd's orange/green tags fall short of 4.5:1 contrast (axe). */}
            <Tag
              className={verified ? 'account-tag account-tag--verified' : 'account-tag account-tag--unverified'}
              data-testid="account-verification"
            >
              {verified ? ACCOUNT_TEXTS.verified : ACCOUNT_TEXTS.unverified}
            </Tag>
          </dd>
        </dl>
        {/* inPage: the layout's own banner steps aside, so the button shows once. */}
        <EmailVerificationBanner inPage />
      </Section>

      <Section id="account-password" title={ACCOUNT_TEXTS.passwordHeading}>
        {hasPassword === null ? null : hasPassword && email ? (
          <ChangePasswordForm email={email} />
        ) : (
          <p className="account-section__text">{ACCOUNT_TEXTS.noPassword}</p>
        )}
      </Section>

      <Section id="account-sessions" title={ACCOUNT_TEXTS.sessionsHeading}>
        <SignOutEverywhere />
      </Section>

      <Section id="account-delete" title={ACCOUNT_TEXTS.deleteHeading} danger>
        <DeleteAccountSection email={email} />
      </Section>
    </section>
  );
}

export default AccountPage;
