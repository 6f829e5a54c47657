import { ArrowLeftOutlined, InfoCircleOutlined } from '@ant-design/icons';
import { Alert } from 'antd';
import { Link, Navigate, useLocation, useParams, useSearchParams } from 'react-router';
import { LoadingSpinner } from '@/components/LoadingSpinner';
import { usePageTitle } from '@/components/usePageTitle';
import { useAgents } from '@/features/agents';
import { returnToState, useAuth } from '@/features/auth';
import { LazyChatPanel, useChatInfo } from '@/features/chat';
import { isNotFound, useMarketplaceProfile } from '../api/marketplace';
import { ConsumerPriceNotice } from '../components/ConsumerPriceNotice';
import { PublicLayout } from '../components/PublicLayout';
import { CONSUMER_CHAT_TEXTS } from '../lib/texts';
import type { MarketplaceProfile } from '../types';
import { profilePath, PROFILE_TEXTS } from './AgentProfilePage';

export const CHAT_PAGE_TEXTS = {
  title: (name: string) => `Chat with ${name}`,
  back: (name: string) => `Back to ${name}`,
  loadError: 'Could not load this agent.',
} as const;

/** The owner's editor of an agent (AgentsPage opens it from `?agent=`). */
export const editorPath = (agentId: string) => `/dashboard/agentic-users?agent=${encodeURIComponent(agentId)}`;

/**
 * /marketplace/:slug/chat (issue 28). A signed-in user who is not the owner chats with a listed agent and pays
 * per answer from their own wallet: the page says what they pay and shows their balance, then the chat
 * (`ChatPanel` as 'consumer'). The owner gets a note pointing to their editor's Chat tab. Signed out: sign in
 * first, then back here.
 */
export function MarketplaceChatPage() {
  const { slug = '' } = useParams();
  const { user, loading } = useAuth();
  const { search } = useLocation();
  const profile = useMarketplaceProfile(slug);
  const name = profile.data?.name ?? 'this agent';
  usePageTitle(profile.data ? CHAT_PAGE_TEXTS.title(profile.data.name) : 'Marketplace');

  if (loading) return <LoadingSpinner />;
  // Back here after sign-in, with the conversation asked for (?conversation=, the Library's links).
  if (!user) return <Navigate to="/auth" replace state={returnToState(`${profilePath(slug)}/chat${search}`)} />;

  let content;
  if (profile.isPending) {
    content = <LoadingSpinner fullPage={false} />;
  } else if (profile.isError) {
    content = isNotFound(profile.error) ? (
      <div className="mp-notfound">
        <h1 className="mp-page__title">{PROFILE_TEXTS.notFoundTitle}</h1>
        <p>{PROFILE_TEXTS.notFoundText}</p>
        <Link to="/marketplace">{PROFILE_TEXTS.browse}</Link>
      </div>
    ) : (
      <div className="mp-notfound">
        <h1 className="mp-page__title">{CHAT_PAGE_TEXTS.title(name)}</h1>
        <p role="alert">{profile.error.message || CHAT_PAGE_TEXTS.loadError}</p>
      </div>
    );
  } else {
    content = <ChatForUser agent={profile.data} />;
  }

  return (
    <PublicLayout>
      <Link to={profilePath(slug)} className="mp-back">
        <ArrowLeftOutlined aria-hidden="true" /> {CHAT_PAGE_TEXTS.back(name)}
      </Link>
      {content}
    </PublicLayout>
  );
}

/** The owner's note, or the price notice and the chat. Whether the user owns the agent: their agents list. */
function ChatForUser({ agent }: { agent: MarketplaceProfile }) {
  const mine = useAgents();
  // `?conversation=<id>` (the Library's links) opens that conversation.
  const [params] = useSearchParams();
  const conversationId = params.get('conversation');
  const owned = mine.data?.some((a) => a.id === agent.id) ?? false;
  // An active subscriber (invited by the owner) is not charged: the owner pays, as under Shared with me.
  const info = useChatInfo(agent.id);
  const role = info.data?.role === 'subscriber' ? 'subscriber' : 'consumer';

  if (mine.isPending) return <LoadingSpinner fullPage={false} />;

  if (owned) {
    return (
      <section className="mp-chat-page" aria-labelledby="mp-chat-title">
        <h1 id="mp-chat-title" className="mp-page__title">
          {CHAT_PAGE_TEXTS.title(agent.name)}
        </h1>
        <div className="mp-chat-placeholder" data-testid="owner-chat-note">
          <p className="mp-chat-placeholder__text">
            <InfoCircleOutlined aria-hidden="true" /> {CONSUMER_CHAT_TEXTS.ownerTitle}
          </p>
          <p className="mp-muted">{CONSUMER_CHAT_TEXTS.ownerText}</p>
          <Link to={editorPath(agent.id)}>{CONSUMER_CHAT_TEXTS.ownerLink(agent.name)}</Link>
        </div>
      </section>
    );
  }

  return (
    <section className="mp-chat-page" aria-labelledby="mp-chat-title">
      <h1 id="mp-chat-title" className="mp-page__title">
        {CHAT_PAGE_TEXTS.title(agent.name)}
      </h1>
      {!agent.available && <Alert type="warning" showIcon className="mp-chat-page__alert" title={CONSUMER_CHAT_TEXTS.unavailable} />}
      {role === 'consumer' && <ConsumerPriceNotice agent={agent} />}
      <div className="mp-chat-page__panel">
        <LazyChatPanel
          agentId={agent.id}
          agentName={agent.name}
          role={role}
          headingLevel={2}
          initialConversationId={conversationId}
          greeting={agent.greeting}
        />
      </div>
    </section>
  );
}

export default MarketplaceChatPage;
