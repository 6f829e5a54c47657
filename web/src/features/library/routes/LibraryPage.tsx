import { BookOutlined, ReloadOutlined } from '@ant-design/icons';
import { Alert, Button, Skeleton } from 'antd';
import { useState } from 'react';
import { Link, Navigate } from 'react-router';
import { LoadingSpinner } from '@/components/LoadingSpinner';
import { usePageTitle } from '@/components/usePageTitle';
import { AgentIcon } from '@/features/agents';
import { chatErrorText, LazyConversationTranscript } from '@/features/chat';
import { formatDate, useMarketplaceSwitch } from '@/features/marketplace';
import { useLibrary, type LibraryAgent, type LibraryConversation } from '../api/library';
// The agent icon tile styles (AgentIcon) live with the agents feature.
import '@/features/agents/agents.css';
import './library.css';

export const LIBRARY_PAGE_PATH = '/dashboard/library';

export const LIBRARY_TEXTS = {
  title: 'Library',
  lead: 'Agents you used from the marketplace, with your recent conversations. Only you can see your conversations.',
  loading: 'Loading your library',
  loadError: 'Could not load your library.',
  retry: 'Try again',
  empty: 'Agents you chat with from the marketplace appear here.',
  emptyText: 'Find an agent, open its profile and choose Chat.',
  browse: 'Browse the marketplace',
  listLabel: 'Agents you used',
  unknownAgent: 'Removed agent',
  lastUsed: 'Last used',
  updated: 'Updated',
  notListed: 'No longer in the marketplace',
  readOnly: 'Your conversations with it can be read but not continued.',
  conversationsOf: (name: string) => `Conversations with ${name}`,
  newChat: (name: string) => `New chat with ${name}`,
  show: 'Read',
  hide: 'Hide',
} as const;

/** Where a listed agent's conversation opens: the marketplace chat with that conversation. */
export const libraryChatPath = (slug: string, conversationId: string) =>
  `/marketplace/${encodeURIComponent(slug)}/chat?conversation=${encodeURIComponent(conversationId)}`;

/**
 * /dashboard/library (issue 27): the agents the signed-in user talked to from the marketplace, most recent first,
 * each with their recent conversations. A listed agent's conversations open in the marketplace chat
 * (`?conversation=`); an agent no longer listed says so and its conversations open read-only here (the marketplace
 * chat needs the agent's public profile, which is gone). Only while the marketplace is on (else → /dashboard).
 */
export function LibraryPage() {
  usePageTitle(LIBRARY_TEXTS.title);
  const { enabled, known } = useMarketplaceSwitch();
  const library = useLibrary(enabled);

  if (!known) return <LoadingSpinner fullPage={false} />;
  if (!enabled) return <Navigate to="/dashboard" replace />;

  let content;
  if (library.isPending) {
    content = <LibrarySkeleton />;
  } else if (library.isError) {
    content = (
      <Alert
        type="error"
        showIcon
        title={LIBRARY_TEXTS.loadError}
        description={chatErrorText(library.error, '') || undefined}
        action={
          <Button size="small" icon={<ReloadOutlined aria-hidden="true" />} onClick={() => void library.refetch()}>
            {LIBRARY_TEXTS.retry}
          </Button>
        }
      />
    );
  } else if (library.data.agents.length === 0) {
    content = (
      <div className="library-empty">
        <BookOutlined aria-hidden="true" className="library-empty__icon" />
        <h2 className="library-empty__title">{LIBRARY_TEXTS.empty}</h2>
        <p className="library-empty__text">{LIBRARY_TEXTS.emptyText}</p>
        <Link to="/dashboard/marketplace" className="library-empty__link">
          {LIBRARY_TEXTS.browse}
        </Link>
      </div>
    );
  } else {
    content = (
      <ul className="library-agents" aria-label={LIBRARY_TEXTS.listLabel}>
        {library.data.agents.map((agent) => (
          <li key={agent.agentId}>
            <LibraryAgentCard agent={agent} />
          </li>
        ))}
      </ul>
    );
  }

  return (
    <section className="page library-page" aria-labelledby="library-title">
      <h1 id="library-title" className="page__title">
        {LIBRARY_TEXTS.title}
      </h1>
      <p className="page__lead">{LIBRARY_TEXTS.lead}</p>
      {content}
    </section>
  );
}

function LibraryAgentCard({ agent }: { agent: LibraryAgent }) {
  const name = agent.name || LIBRARY_TEXTS.unknownAgent;
  const open = agent.listed && agent.slug !== '';
  const headingId = `library-agent-${agent.agentId}`;
  const lastUsed = formatDate(agent.lastActivityAt);
  return (
    <article className="library-agent" aria-labelledby={headingId} data-testid="library-agent">
      <header className="library-agent__header">
        <AgentIcon iconName={agent.iconName} iconColor={agent.iconColor} />
        <div className="library-agent__titles">
          <h2 id={headingId} className="library-agent__name">
            {open ? <Link to={`/marketplace/${encodeURIComponent(agent.slug)}`}>{name}</Link> : name}
          </h2>
          {lastUsed && (
            <p className="library-agent__meta">
              {LIBRARY_TEXTS.lastUsed} <time dateTime={agent.lastActivityAt}>{lastUsed}</time>
            </p>
          )}
        </div>
      </header>
      {!open && (
        <p className="library-agent__gone" data-testid="library-agent-unlisted">
          <strong>{LIBRARY_TEXTS.notListed}</strong> {LIBRARY_TEXTS.readOnly}
        </p>
      )}
      <ul className="library-conversations" aria-label={LIBRARY_TEXTS.conversationsOf(name)}>
        {agent.conversations.map((c) =>
          open ? (
            <li key={c.id}>
              <Link className="library-conversation" to={libraryChatPath(agent.slug, c.id)}>
                <span className="library-conversation__title">{c.title}</span>
                <ConversationDate conversation={c} />
              </Link>
            </li>
          ) : (
            <ReadOnlyConversation key={c.id} conversation={c} agentName={name} />
          ),
        )}
      </ul>
      {open && (
        <Link className="library-agent__new" to={`/marketplace/${encodeURIComponent(agent.slug)}/chat`}>
          {LIBRARY_TEXTS.newChat(name)}
        </Link>
      )}
    </article>
  );
}

function ConversationDate({ conversation }: { conversation: LibraryConversation }) {
  const updated = formatDate(conversation.updatedAt);
  if (!updated) return null;
  return (
    <span className="library-conversation__date">
      {LIBRARY_TEXTS.updated} <time dateTime={conversation.updatedAt}>{updated}</time>
    </span>
  );
}

/** A conversation of an agent no longer listed: a disclosure button that shows it read-only below. */
function ReadOnlyConversation({ conversation, agentName }: { conversation: LibraryConversation; agentName: string }) {
  const [open, setOpen] = useState(false);
  const panelId = `library-transcript-${conversation.id}`;
  return (
    <li>
      <button
        type="button"
        className="library-conversation library-conversation--button"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => setOpen((v) => !v)}
      >
        <span className="library-conversation__title">{conversation.title}</span>
        <ConversationDate conversation={conversation} />
        <span className="library-conversation__action" aria-hidden="true">
          {open ? LIBRARY_TEXTS.hide : LIBRARY_TEXTS.show}
        </span>
      </button>
      {open && (
        <div id={panelId} className="library-transcript" role="region" aria-label={conversation.title}>
          <LazyConversationTranscript conversationId={conversation.id} agentName={agentName} />
        </div>
      )}
    </li>
  );
}

function LibrarySkeleton() {
  return (
    <div className="library-agents library-agents--loading" role="status" aria-label={LIBRARY_TEXTS.loading} aria-busy="true">
      {Array.from({ length: 2 }, (_, i) => (
        <div className="library-agent" key={i}>
          <Skeleton.Avatar active shape="square" />
          <Skeleton active title={false} paragraph={{ rows: 3, width: ['40%', '80%', '70%'] }} />
        </div>
      ))}
    </div>
  );
}

export default LibraryPage;
