import { Link } from 'react-router';
import { usePageTitle } from '@/components/usePageTitle';
import './landing.css';

/** Minimal landing page (the full one comes with a later issue). */
export function LandingPage() {
  usePageTitle('');
  return (
    <div className="landing">
      <header className="landing__header">
        <span className="landing__brand">Agentic</span>
        <nav aria-label="Account" className="landing__nav">
          <Link to="/auth" className="landing__button landing__button--ghost">
            Sign In
          </Link>
          <Link to="/auth" className="landing__button landing__button--primary">
            Get Started
          </Link>
        </nav>
      </header>
      <main className="landing__hero">
        <h1 className="landing__title">Agentic</h1>
        <p className="landing__tagline">
          Turn your expertise into an AI agent: a digital twin of your knowledge, with its own e-mail address, funded
          by a pay-as-you-go wallet.
        </p>
        <Link to="/auth" className="landing__button landing__button--primary landing__button--large">
          Create Your Agentic User
        </Link>
      </main>
    </div>
  );
}

export default LandingPage;
