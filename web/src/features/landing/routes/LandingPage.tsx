import { useEffect, useState, type MouseEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { useAuth } from '@/features/auth';
import { useMarketplaceEnabled } from '@/features/marketplace';
import { Dialog } from '../components/Dialog';
import { Icon } from '../components/Icon';
import {
  BENEFITS,
  CONTACT_EMAIL,
  CONTACT_HREF,
  copyright,
  LANDING_TITLE,
  MARKETPLACE_INTEREST_HREF,
  MARKETPLACE_LIVE,
  NAV_LINKS,
  PRIVATE_PLAN,
  PUBLIC_PLAN,
  STEPS,
  USE_CASES,
} from '../content';
import './landing.css';

/** Placeholder links (Terms, Privacy) lead nowhere. */
function stay(event: MouseEvent) {
  event.preventDefault();
}

/**
 * Landing page (spec §2 "Landing page (/)"). Plain HTML and CSS with inline SVG icons, and no antd,
 * so that `/` stays within the bundle budget (docs/web-landing.md). The head tags crawlers need are
 * in web/index.html (served HTML), not set here.
 *
 * With the marketplace open (issue 27, the launch switch on) the consumer half's button is Browse the
 * Marketplace, the Public card's is Publish an Agent, and "coming soon" goes from the marketplace's mentions.
 * While the switch is unknown or off: the spec's page (waitlist buttons and dialog).
 */
export function LandingPage() {
  const [waitlistOpen, setWaitlistOpen] = useState(false);
  const [contactOpen, setContactOpen] = useState(false);
  const location = useLocation();
  const navigate = useNavigate();
  const marketplace = useMarketplaceEnabled();
  const { user } = useAuth();

  useEffect(() => {
    document.title = LANDING_TITLE;
  }, []);

  // Back from the payment provider with ?success=true: drop the query string from the address bar.
  useEffect(() => {
    if (new URLSearchParams(location.search).get('success') === 'true') {
      void navigate({ pathname: location.pathname, hash: location.hash }, { replace: true, preventScrollReset: true });
    }
  }, [location.search, location.pathname, location.hash, navigate]);

  const openWaitlist = () => setWaitlistOpen(true);

  return (
    <div className="landing" id="top">
      <a href="#main" className="skip-link">
        Skip to main content
      </a>
      <header className="lp-header">
        <div className="lp-container lp-header__inner">
          <a href="#top" className="lp-brand" aria-label="Agentic home">
            <Icon name="sparkling" className="lp-brand__mark" />
            <span>Agentic</span>
          </a>
          <nav aria-label="Sections" className="lp-sections">
            <ul>
              {NAV_LINKS.map((link) => (
                <li key={link.href}>
                  <a href={link.href}>{link.label}</a>
                </li>
              ))}
            </ul>
          </nav>
          <div className="lp-header__actions">
            <Link to="/auth" className="lp-btn lp-btn--ghost">
              Sign In
            </Link>
            <Link to="/auth" className="lp-btn lp-btn--primary">
              Get Started
            </Link>
          </div>
        </div>
      </header>

      <main id="main" tabIndex={-1}>
        <section className="lp-hero" aria-labelledby="hero-title">
          <div className="lp-container">
            <h1 id="hero-title" className="lp-hero__title">
              Agentic
            </h1>
            <p className="lp-hero__tagline">
              Turn your knowledge into an AI agent: a digital twin of your expertise that works with people while you
              focus on what matters.
            </p>
            <div className="lp-hero__halves">
              <div className="lp-half lp-half--creator">
                <p className="lp-eyebrow">For experts and creators</p>
                <h2 className="lp-half__title">Share Your Expertise as an AI Agent</h2>
                <p className="lp-half__text">
                  Write instructions, link your documents as knowledge, and get an Agentic User with its own e-mail
                  address that acts like a real user.
                </p>
                <Link to="/auth" className="lp-btn lp-btn--primary lp-btn--lg">
                  Create Your Agentic User
                  <Icon name="arrowRight" size={20} />
                </Link>
              </div>
              <div className="lp-half lp-half--consumer">
                <p className="lp-eyebrow">For people who need answers</p>
                <h2 className="lp-half__title">Access Expert Knowledge, On Demand</h2>
                {marketplace ? (
                  <>
                    <p className="lp-half__text">{MARKETPLACE_LIVE.consumerText}</p>
                    <Link to={MARKETPLACE_LIVE.browseHref} className="lp-btn lp-btn--dark lp-btn--lg">
                      {MARKETPLACE_LIVE.browse}
                      <Icon name="arrowRight" size={20} />
                    </Link>
                  </>
                ) : (
                  <>
                    <p className="lp-half__text">
                      Use agents built by experts whenever you need them and pay only for what you use, from your own
                      wallet. The marketplace is coming soon.
                    </p>
                    <button
                      type="button"
                      className="lp-btn lp-btn--dark lp-btn--lg"
                      aria-haspopup="dialog"
                      onClick={openWaitlist}
                    >
                      Join Waitlist for Marketplace
                    </button>
                  </>
                )}
              </div>
            </div>
          </div>
        </section>

        <section id="how-it-works" className="lp-section" aria-labelledby="how-it-works-title">
          <div className="lp-container">
            <h2 id="how-it-works-title" className="lp-section__title">
              How It Works
            </h2>
            <p className="lp-section__lead">From your know-how to a working agent in four steps.</p>
            <ol className="lp-grid lp-grid--4 lp-steps">
              {STEPS.map((step, index) => (
                <li key={step.title} className="lp-card">
                  <span className="lp-step-number" aria-hidden="true">
                    {index + 1}
                  </span>
                  <Icon name={step.icon} className="lp-card__icon" />
                  <h3 className="lp-card__title">{step.title}</h3>
                  <p className="lp-card__text">{marketplace && step.liveText ? step.liveText : step.text}</p>
                </li>
              ))}
            </ol>
          </div>
        </section>

        <section id="features" className="lp-section lp-section--tinted" aria-labelledby="features-title">
          <div className="lp-container">
            <h2 id="features-title" className="lp-section__title">
              Benefits
            </h2>
            <p className="lp-section__lead">Why experts turn their knowledge into Agentic Users.</p>
            <ul className="lp-grid lp-grid--3">
              {BENEFITS.map((benefit) => (
                <li key={benefit.title} className="lp-card">
                  <Icon name={benefit.icon} className="lp-card__icon" />
                  <h3 className="lp-card__title">
                    {benefit.title}
                    {benefit.comingSoon && !marketplace && <span className="lp-badge">Coming soon</span>}
                  </h3>
                  <p className="lp-card__text">{benefit.text}</p>
                </li>
              ))}
            </ul>
          </div>
        </section>

        <section id="use-cases" className="lp-section" aria-labelledby="use-cases-title">
          <div className="lp-container">
            <h2 id="use-cases-title" className="lp-section__title">
              Use Cases
            </h2>
            <p className="lp-section__lead">Made for people whose knowledge others rely on.</p>
            <ul className="lp-grid lp-grid--3">
              {USE_CASES.map((useCase) => (
                <li key={useCase.title} className="lp-card">
                  <Icon name={useCase.icon} className="lp-card__icon" />
                  <h3 className="lp-card__title">{useCase.title}</h3>
                  <p className="lp-card__text">{useCase.text}</p>
                </li>
              ))}
            </ul>
          </div>
        </section>

        <section id="pricing" className="lp-section lp-section--tinted" aria-labelledby="pricing-title">
          <div className="lp-container">
            <h2 id="pricing-title" className="lp-section__title">
              Pricing
            </h2>
            <p className="lp-section__lead">
              Wallet based and pay-as-you-go: every account has a digital wallet that funds agent interactions, with
              token-based costs.
            </p>
            <div className="lp-grid lp-grid--2 lp-pricing">
              {[PRIVATE_PLAN, PUBLIC_PLAN].map((plan) => {
                const isPublic = plan === PUBLIC_PLAN;
                return (
                  <article key={plan.title} className={`lp-card lp-plan${isPublic ? '' : ' lp-plan--featured'}`}>
                    <Icon name={isPublic ? 'global' : 'lock'} className="lp-card__icon" />
                    <h3 className="lp-card__title">
                      {plan.title}
                      {isPublic && !marketplace && <span className="lp-badge">Coming soon</span>}
                    </h3>
                    <p className="lp-plan__price">
                      <span className="lp-plan__amount">{plan.price}</span> <span>{plan.period}</span>
                    </p>
                    <p className="lp-card__text">{plan.summary}</p>
                    <ul className="lp-plan__features">
                      {plan.features.map((feature) => (
                        <li key={feature}>
                          <Icon name="check" size={18} className="lp-plan__check" />
                          {feature}
                        </li>
                      ))}
                    </ul>
                    {isPublic && marketplace ? (
                      <Link
                        to={user ? MARKETPLACE_LIVE.publishHref : '/auth'}
                        className="lp-btn lp-btn--ghost lp-btn--block"
                      >
                        {MARKETPLACE_LIVE.publish}
                      </Link>
                    ) : isPublic ? (
                      <button
                        type="button"
                        className="lp-btn lp-btn--ghost lp-btn--block"
                        aria-haspopup="dialog"
                        onClick={openWaitlist}
                      >
                        Join Waitlist
                      </button>
                    ) : (
                      <Link to="/auth" className="lp-btn lp-btn--primary lp-btn--block">
                        Create Private Agent
                      </Link>
                    )}
                  </article>
                );
              })}
            </div>
          </div>
        </section>

        <section className="lp-cta" aria-labelledby="cta-title">
          <div className="lp-container">
            <h2 id="cta-title" className="lp-cta__title">
              Ready to share what you know?
            </h2>
            <p className="lp-cta__text">Create your first Agentic User in minutes.</p>
            <Link to="/auth" className="lp-btn lp-btn--light lp-btn--lg">
              Get Started Today
              <Icon name="arrowRight" size={20} />
            </Link>
          </div>
        </section>
      </main>

      <footer className="lp-footer">
        <div className="lp-container lp-footer__inner">
          <span className="lp-footer__brand">Agentic</span>
          <nav aria-label="Footer">
            <ul className="lp-footer__links">
              <li>
                <a href="#" onClick={stay}>
                  Terms
                </a>
              </li>
              <li>
                <a href="#" onClick={stay}>
                  Privacy
                </a>
              </li>
              <li>
                <a
                  href="#contact"
                  aria-haspopup="dialog"
                  onClick={(event) => {
                    event.preventDefault();
                    setContactOpen(true);
                  }}
                >
                  Contact
                </a>
              </li>
            </ul>
          </nav>
          <p className="lp-footer__copyright">{copyright()}</p>
        </div>
      </footer>

      <Dialog
        open={waitlistOpen && !marketplace}
        onClose={() => setWaitlistOpen(false)}
        title="Marketplace Coming Soon!"
        actions={
          <>
            <button type="button" className="lp-btn lp-btn--ghost" onClick={() => setWaitlistOpen(false)}>
              Close
            </button>
            <Link to={MARKETPLACE_INTEREST_HREF} className="lp-btn lp-btn--primary">
              Create Account
            </Link>
          </>
        }
      >
        <p>
          Our marketplace of expert agents is under development. Create an account to show your interest, and we will
          let you know as soon as it opens.
        </p>
      </Dialog>

      <Dialog
        open={contactOpen}
        onClose={() => setContactOpen(false)}
        title="Get In Touch"
        actions={
          <button type="button" className="lp-btn lp-btn--ghost" onClick={() => setContactOpen(false)}>
            Close
          </button>
        }
      >
        <p>Questions, ideas or partnership requests? Write to us and we will get back to you.</p>
        <p>
          <Icon name="mail" size={18} className="lp-inline-icon" />{' '}
          <a href={CONTACT_HREF} className="lp-dialog-link">
            {CONTACT_EMAIL}
          </a>
        </p>
      </Dialog>
    </div>
  );
}

export default LandingPage;
