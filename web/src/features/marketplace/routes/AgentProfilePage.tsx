import { ArrowLeftOutlined, LockOutlined, MessageOutlined, ReloadOutlined } from '@ant-design/icons';
import { Alert, Button, Skeleton } from 'antd';
import { Link, useNavigate, useParams } from 'react-router';
import { usePageTitle } from '@/components/usePageTitle';
import { AgentIcon } from '@/features/agents';
import { returnToState, useAuth } from '@/features/auth';
import { isNotFound, useMarketplaceProfile } from '../api/marketplace';
import { UNAVAILABLE_TEXT } from '../components/AgentCard';
import { PublicLayout } from '../components/PublicLayout';
import { RatingStars } from '../components/RatingStars';
import { ReportButton } from '../components/ReportButton';
import { ReviewsSection } from '../components/ReviewsSection';
import { formatDate } from '../lib/dates';
import { answersText, formatCount, pricingWords, ratingLabel, ratingText } from '../lib/format';
import { PRIVACY_TEXT, PRIVACY_TITLE } from '../lib/texts';
import type { MarketplaceProfile } from '../types';
// The agent icon tile styles (AgentIcon) live with the agents feature.
import '@/features/agents/agents.css';

export const PROFILE_TEXTS = {
  back: 'Back to the marketplace',
  chat: 'Chat',
  unavailable: 'This agent is not answering right now.',
  pricing: 'Pricing',
  pricingNote: "What a typical answer costs you, the 3% service fee and the creator's markup included.",
  greeting: 'How it greets you',
  about: 'About',
  notFoundTitle: 'Agent not found',
  notFoundText: 'This agent is not in the marketplace. Its creator may have unpublished it.',
  browse: 'Browse the marketplace',
  failed: 'Could not load this agent.',
} as const;

export function profilePath(slug: string) {
  return `/marketplace/${encodeURIComponent(slug)}`;
}

/** /marketplace/:slug: a listed agent's public profile (issue 27). */
export function AgentProfilePage() {
  const { slug = '' } = useParams();
  const profile = useMarketplaceProfile(slug);
  usePageTitle(profile.data?.name ?? (profile.isError && isNotFound(profile.error) ? PROFILE_TEXTS.notFoundTitle : 'Marketplace'));

  let content;
  if (profile.isPending) {
    content = (
      <div role="status" aria-label="Loading" aria-busy="true" className="mp-profile-skeleton">
        <Skeleton active avatar paragraph={{ rows: 4 }} />
      </div>
    );
  } else if (profile.isError) {
    content = isNotFound(profile.error) ? (
      <div className="mp-notfound">
        <h1 className="mp-page__title">{PROFILE_TEXTS.notFoundTitle}</h1>
        <p>{PROFILE_TEXTS.notFoundText}</p>
        <Link to="/marketplace">{PROFILE_TEXTS.browse}</Link>
      </div>
    ) : (
      <>
        <h1 className="mp-page__title">Marketplace</h1>
        <Alert
          type="error"
          showIcon
          title={PROFILE_TEXTS.failed}
          description={profile.error.message}
          action={
            <Button size="small" icon={<ReloadOutlined aria-hidden="true" />} onClick={() => void profile.refetch()}>
              Try again
            </Button>
          }
        />
      </>
    );
  } else {
    content = <Profile agent={profile.data} />;
  }

  return (
    <PublicLayout>
      <Link to="/marketplace" className="mp-back">
        <ArrowLeftOutlined aria-hidden="true" /> {PROFILE_TEXTS.back}
      </Link>
      {content}
    </PublicLayout>
  );
}

function Profile({ agent }: { agent: MarketplaceProfile }) {
  const { user, loading } = useAuth();
  const navigate = useNavigate();
  const path = profilePath(agent.slug);

  // Signed out: sign in first, then back to this profile.
  const chat = () => {
    if (user) void navigate(`${path}/chat`);
    else void navigate('/auth', { state: returnToState(path) });
  };

  return (
    <article className="mp-profile" aria-labelledby="mp-profile-title">
      <header className="mp-profile__header">
        <AgentIcon iconName={agent.iconName} iconColor={agent.iconColor} size="large" />
        <div className="mp-profile__heading">
          <h1 id="mp-profile-title" className="mp-page__title">
            {agent.name}
          </h1>
          <p className="mp-profile__creator">by {agent.creatorName || 'A creator'}</p>
          <p className="mp-card__rating">
            <RatingStars value={agent.rating.count ? agent.rating.average : 0} label={ratingLabel(agent.rating)} size="medium" />
            <span aria-hidden="true">{ratingText(agent.rating)}</span>
            <span className="mp-dot" aria-hidden="true">
              ·
            </span>
            <span>{answersText(agent.answers)}</span>
          </p>
          <p className="mp-card__footer">
            {agent.category && (
              <Link className="mp-chip" to={`/marketplace?category=${encodeURIComponent(agent.category)}`}>
                {agent.category}
              </Link>
            )}
            {(agent.tags ?? []).map((tag) => (
              <Link key={tag} className="mp-chip mp-chip--tag" to={`/marketplace?tag=${encodeURIComponent(tag)}`}>
                #{tag}
              </Link>
            ))}
            {!agent.available && <span className="mp-chip mp-chip--muted">{UNAVAILABLE_TEXT}</span>}
          </p>
        </div>
        <div className="mp-profile__actions">
          <Button
            type="primary"
            size="large"
            icon={<MessageOutlined aria-hidden="true" />}
            onClick={chat}
            disabled={loading || !agent.available}
            aria-describedby={!agent.available ? 'mp-unavailable' : undefined}
          >
            {PROFILE_TEXTS.chat}
          </Button>
          {!agent.available && (
            <p id="mp-unavailable" className="mp-muted">
              {PROFILE_TEXTS.unavailable}
            </p>
          )}
          {user && <ReportButton target={{ kind: 'agent', slug: agent.slug }} label="Report this agent" title="Report this agent" />}
        </div>
      </header>

      <section className="mp-section" aria-labelledby="mp-about">
        <h2 id="mp-about" className="mp-section__title">
          {PROFILE_TEXTS.about}
        </h2>
        {agent.description && <p className="mp-profile__description">{agent.description}</p>}
        <p className="mp-muted">
          {[
            agent.documentsCount > 0
              ? `Knows ${formatCount(agent.documentsCount)} ${agent.documentsCount === 1 ? 'document' : 'documents'}`
              : '',
            formatDate(agent.createdAt) ? `Created ${formatDate(agent.createdAt)}` : '',
          ]
            .filter(Boolean)
            .join(' · ')}
        </p>
      </section>

      <section className="mp-section" aria-labelledby="mp-pricing">
        <h2 id="mp-pricing" className="mp-section__title">
          {PROFILE_TEXTS.pricing}
        </h2>
        <p className="mp-pricing" data-testid="pricing-words">
          {pricingWords(agent)}
        </p>
        <p className="mp-muted">{PROFILE_TEXTS.pricingNote}</p>
        <div className="mp-privacy">
          <LockOutlined aria-hidden="true" />
          <div>
            <p className="mp-privacy__title">{PRIVACY_TITLE}</p>
            <p className="mp-muted">{PRIVACY_TEXT}</p>
          </div>
        </div>
      </section>

      {agent.greeting && (
        <section className="mp-section" aria-labelledby="mp-greeting">
          <h2 id="mp-greeting" className="mp-section__title">
            {PROFILE_TEXTS.greeting}
          </h2>
          <blockquote className="mp-greeting">{agent.greeting}</blockquote>
        </section>
      )}

      <ReviewsSection slug={agent.slug} rating={agent.rating} agentId={agent.id} />
    </article>
  );
}

export default AgentProfilePage;
