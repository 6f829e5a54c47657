import { ArrowLeftOutlined, InfoCircleOutlined } from '@ant-design/icons';
import { Link, Navigate, useParams } from 'react-router';
import { LoadingSpinner } from '@/components/LoadingSpinner';
import { usePageTitle } from '@/components/usePageTitle';
import { useAuth } from '@/features/auth';
import { returnToState } from '@/features/auth/lib/return-to';
import { isNotFound, useMarketplaceProfile } from '../api/marketplace';
import { PublicLayout } from '../components/PublicLayout';
import { CHAT_COMING_TEXT } from '../lib/texts';
import { profilePath, PROFILE_TEXTS } from './AgentProfilePage';

export const CHAT_PAGE_TEXTS = {
  title: (name: string) => `Chat with ${name}`,
  already: 'If this agent is yours or was shared with you, you can already chat with it from',
  back: (name: string) => `Back to ${name}`,
} as const;

/**
 * /marketplace/:slug/chat. Conversations with marketplace agents start when users pay for their own answers
 * (the next issue): until then this page says so, honestly, and points owners and subscribers to where they
 * can already chat. Signed out: sign in first, then back here.
 */
export function MarketplaceChatPage() {
  const { slug = '' } = useParams();
  const { user, loading } = useAuth();
  const profile = useMarketplaceProfile(slug);
  const name = profile.data?.name ?? 'this agent';
  usePageTitle(profile.data ? CHAT_PAGE_TEXTS.title(profile.data.name) : 'Marketplace');

  if (loading) return <LoadingSpinner />;
  if (!user) return <Navigate to="/auth" replace state={returnToState(`${profilePath(slug)}/chat`)} />;

  return (
    <PublicLayout>
      <Link to={profilePath(slug)} className="mp-back">
        <ArrowLeftOutlined aria-hidden="true" /> {CHAT_PAGE_TEXTS.back(name)}
      </Link>
      {profile.isError && isNotFound(profile.error) ? (
        <div className="mp-notfound">
          <h1 className="mp-page__title">{PROFILE_TEXTS.notFoundTitle}</h1>
          <p>{PROFILE_TEXTS.notFoundText}</p>
          <Link to="/marketplace">{PROFILE_TEXTS.browse}</Link>
        </div>
      ) : (
        <section className="mp-chat-placeholder" aria-labelledby="mp-chat-title">
          <h1 id="mp-chat-title" className="mp-page__title">
            {CHAT_PAGE_TEXTS.title(name)}
          </h1>
          <p className="mp-chat-placeholder__text" role="status">
            <InfoCircleOutlined aria-hidden="true" /> {CHAT_COMING_TEXT}
          </p>
          <p className="mp-muted">
            {CHAT_PAGE_TEXTS.already} <Link to="/dashboard/agentic-users">Your Agentic Users</Link> or{' '}
            <Link to="/dashboard/shared">Shared with me</Link>.
          </p>
        </section>
      )}
    </PublicLayout>
  );
}

export default MarketplaceChatPage;
