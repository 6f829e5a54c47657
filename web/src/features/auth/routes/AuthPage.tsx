import { ArrowLeftOutlined } from '@ant-design/icons';
import { Button, Tabs } from 'antd';
import { Link, Navigate, useLocation } from 'react-router';
import { LoadingSpinner } from '@/components/LoadingSpinner';
import { usePageTitle } from '@/components/usePageTitle';
import { useAuth } from '../auth-context';
import { GoogleSignInButton } from '../components/GoogleSignInButton';
import { LoginForm } from '../components/LoginForm';
import { MarketingPanel } from '../components/MarketingPanel';
import { RegisterForm } from '../components/RegisterForm';
import { useMarketplaceInterestOnSignIn } from '../hooks/useMarketplaceInterestOnSignIn';
import { nextPathOf, returnToOf } from '../lib/return-to';
import './auth.css';

/** /auth (spec §2 "Auth page"). */
export function AuthPage() {
  usePageTitle('Sign in');
  const { user, loading, profileLoading, error, refreshUser } = useAuth();
  // /auth?interest=marketplace: register the interest before leaving for /dashboard.
  const registeringInterest = useMarketplaceInterestOnSignIn();
  // A marketplace page that asked for sign-in (its Chat button) gets the visitor back; a link such as the
  // invitation e-mail's (/auth?next=/dashboard/shared) opens its same-origin path.
  const location = useLocation();
  const returnTo = returnToOf(location.state) ?? nextPathOf(location.search);

  if (loading || profileLoading || registeringInterest) return <LoadingSpinner />;

  if (error) {
    return (
      <main className="auth-load-error">
        <p className="auth-load-error__title">Error loading user data</p>
        <p className="auth-load-error__message">{error.message}</p>
        <div className="auth-load-error__actions">
          <Button onClick={() => void refreshUser()}>Try again</Button>
          <Link to="/">Back to home</Link>
        </div>
      </main>
    );
  }

  if (user) return <Navigate to={returnTo ?? '/dashboard'} replace />;

  return (
    <div className="auth-page">
      <main className="auth-main">
        <div className="auth-card">
          <Link to="/" className="auth-back" aria-label="Back to home">
            <ArrowLeftOutlined aria-hidden="true" />
          </Link>
          <h1 className="auth-title">Welcome to Agentic</h1>
          <Tabs
            defaultActiveKey="login"
            destroyOnHidden
            centered
            items={[
              {
                key: 'login',
                label: 'Login',
                children: (
                  <>
                    <p className="auth-subtitle">Sign in to your account</p>
                    <LoginForm />
                  </>
                ),
              },
              {
                key: 'register',
                label: 'Register',
                children: (
                  <>
                    <p className="auth-subtitle">Create your account</p>
                    <RegisterForm />
                  </>
                ),
              },
            ]}
          />
          <hr className="auth-divider" />
          <p className="auth-continue">Or continue with</p>
          <GoogleSignInButton />
        </div>
      </main>
      <MarketingPanel />
    </div>
  );
}

export default AuthPage;
