import { Link } from 'react-router';
import { AgentIcon } from '@/features/agents';
import { answerPriceText, answersText, greetingCostText, ratingLabel, ratingText } from '../lib/format';
import type { MarketplaceAgent } from '../types';
import { RatingStars } from './RatingStars';
// The agent icon tile styles (AgentIcon) live with the agents feature.
import '@/features/agents/agents.css';

export const UNAVAILABLE_TEXT = 'Unavailable right now';

/** One agent of the list: its name links to the profile (the whole card is clickable). */
export function AgentCard({ agent }: { agent: MarketplaceAgent }) {
  const titleId = `mp-card-${agent.id}`;
  const greeting = greetingCostText(agent);
  return (
    <article className="mp-card" aria-labelledby={titleId} data-testid="marketplace-card">
      <div className="mp-card__head">
        <AgentIcon iconName={agent.iconName} iconColor={agent.iconColor} />
        <div className="mp-card__title-block">
          <h2 id={titleId} className="mp-card__title">
            <Link to={`/marketplace/${encodeURIComponent(agent.slug)}`} className="mp-card__link">
              {agent.name}
            </Link>
          </h2>
          <p className="mp-card__creator">by {agent.creatorName || 'A creator'}</p>
        </div>
      </div>
      {agent.description && <p className="mp-card__description">{agent.description}</p>}
      <p className="mp-card__rating">
        <RatingStars value={agent.rating.count ? agent.rating.average : 0} label={ratingLabel(agent.rating)} />
        <span aria-hidden="true">{ratingText(agent.rating)}</span>
        <span className="mp-dot" aria-hidden="true">
          ·
        </span>
        <span>{answersText(agent.answers)}</span>
      </p>
      <p className="mp-card__price">
        <span>{answerPriceText(agent)}</span>
        {greeting && <span>{greeting}</span>}
      </p>
      <p className="mp-card__footer">
        {agent.category && <span className="mp-chip">{agent.category}</span>}
        {!agent.available && <span className="mp-chip mp-chip--muted">{UNAVAILABLE_TEXT}</span>}
      </p>
    </article>
  );
}

/** A card's placeholder while the list loads. */
export function AgentCardSkeleton() {
  return (
    <div className="mp-card mp-card--skeleton" aria-hidden="true">
      <div className="mp-card__head">
        <span className="mp-skeleton mp-skeleton--icon" />
        <div className="mp-card__title-block">
          <span className="mp-skeleton mp-skeleton--title" />
          <span className="mp-skeleton mp-skeleton--line" />
        </div>
      </div>
      <span className="mp-skeleton mp-skeleton--line" />
      <span className="mp-skeleton mp-skeleton--line" />
      <span className="mp-skeleton mp-skeleton--short" />
    </div>
  );
}
