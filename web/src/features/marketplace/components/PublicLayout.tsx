import type { ReactNode } from 'react';
import { Link, useLocation } from 'react-router';
import { returnToState, useAuth } from '@/features/auth';
import { copyright, Icon } from '@/features/landing';
import '../routes/marketplace-pages.css';

/**
 * The public marketplace pages' frame (outside the dashboard layout), in the landing page's header style:
 * the brand (→ /), a Marketplace link, and Sign In / Get Started (back here after sign-in) or, signed in,
 * Dashboard.
 */
export function PublicLayout({ children }: { children: ReactNode }) {
  const { user, loading } = useAuth();
  const location = useLocation();
  const back = returnToState(`${location.pathname}${location.search}`);

  return (
    <div className="mp-public">
      <a href="#main" className="skip-link">
        Skip to main content
      </a>
      <header className="mp-header">
        <div className="mp-container mp-header__inner">
          <Link to="/" className="mp-brand" aria-label="Agentic home">
            <Icon name="sparkling" className="mp-brand__mark" />
            <span>Agentic</span>
          </Link>
          <nav aria-label="Marketplace" className="mp-header__nav">
            <Link to="/marketplace" className="mp-header__link" aria-current={location.pathname === '/marketplace' ? 'page' : undefined}>
              Marketplace
            </Link>
          </nav>
          <div className="mp-header__actions">
            {loading ? null : user ? (
              <Link to="/dashboard" className="mp-btn mp-btn--primary">
                Dashboard
              </Link>
            ) : (
              <>
                <Link to="/auth" state={back} className="mp-btn mp-btn--ghost">
                  Sign In
                </Link>
                <Link to="/auth" state={back} className="mp-btn mp-btn--primary">
                  Get Started
                </Link>
              </>
            )}
          </div>
        </div>
      </header>
      <main id="main" className="mp-main" tabIndex={-1}>
        <div className="mp-container">{children}</div>
      </main>
      <footer className="mp-footer">
        <div className="mp-container">
          <p>{copyright()}</p>
        </div>
      </footer>
    </div>
  );
}
