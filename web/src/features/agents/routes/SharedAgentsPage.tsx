import { ArrowLeftOutlined, ReloadOutlined, TeamOutlined } from '@ant-design/icons';
import { Alert, Button, Skeleton } from 'antd';
import { Link, useSearchParams } from 'react-router';
import { usePageTitle } from '@/components/usePageTitle';
import { EmailVerificationBanner, useAuth } from '@/features/auth';
import { chatErrorText, LazyChatPanel } from '@/features/chat';
import { pendingInvitationsText, usePendingInvitations } from '../api/pending-invitations';
import { useSharedAgents } from '../api/shared-agents';
import { AgentIcon } from '../components/AgentIcon';
import type { Agent } from '../types';
// The agent icon tile styles (AgentIcon).
import '../agents.css';
import './shared-agents.css';

export const SHARED_PATH = '/dashboard/shared';
export const EMPTY_TEXT = 'No agents have been shared with you yet.';

/**
 * /dashboard/shared: the agents the signed-in user is an active subscriber of. Choosing one
 * (`?agent=<id>`, so Back and links work) opens the chat with it; its owner pays for the answers.
 */
export function SharedAgentsPage() {
  const { data: agents, isPending, isError, error, refetch } = useSharedAgents();
  const [params] = useSearchParams();
  const selectedId = params.get('agent');
  const selected = selectedId ? agents?.find((a) => a.id === selectedId) : undefined;
  usePageTitle(selected ? `${selected.name} · Shared with me` : 'Shared with me');

  let content;
  if (isPending) {
    content = <SharedSkeleton />;
  } else if (isError) {
    content = (
      <Alert
        type="error"
        showIcon
        title="Could not load the agents shared with you."
        description={chatErrorText(error, '')}
        action={
          <Button size="small" icon={<ReloadOutlined aria-hidden="true" />} onClick={() => void refetch()}>
            Try again
          </Button>
        }
      />
    );
  } else if (selectedId) {
    content = selected ? (
      <SharedChat agent={selected} />
    ) : (
      <>
        <BackLink />
        <Alert type="warning" showIcon title="This agent is not shared with you." description="Its owner may have revoked your access." />
      </>
    );
  } else if (!agents || agents.length === 0) {
    content = <SharedEmptyState />;
  } else {
    content = (
      <ul className="shared-agents" aria-label="Shared agents">
        {agents.map((agent) => (
          <li key={agent.id}>
            <Link className="shared-agent" to={`${SHARED_PATH}?agent=${encodeURIComponent(agent.id)}`} data-testid="shared-agent">
              <AgentIcon iconName={agent.iconName} iconColor={agent.iconColor} />
              <span className="shared-agent__text">
                <span className="shared-agent__name">{agent.name}</span>
                {agent.description && <span className="shared-agent__description">{agent.description}</span>}
                {ownerNameOf(agent) && <span className="shared-agent__owner">Shared by {ownerNameOf(agent)}</span>}
              </span>
            </Link>
          </li>
        ))}
      </ul>
    );
  }

  return (
    <section className="page shared-page">
      <h1 className="page__title">Shared with me</h1>
      <p className="page__lead">Agents other people have shared with you. Their owners pay for the answers.</p>
      <PendingInvitationsNotice />
      {content}
    </section>
  );
}

/**
 * The owner's display name when the server sent one (`ownerName`). `userId` is never shown: older
 * servers sent the owner's uid there.
 */
export function ownerNameOf(agent: Pick<Agent, 'ownerName'>): string {
  return typeof agent.ownerName === 'string' ? agent.ownerName.trim() : '';
}

/**
 * An invitee whose address is not verified yet: how many invitations wait for it, with the Send verification
 * e-mail button (the dashboard's verification banner, shown here in its place with the count).
 */
function PendingInvitationsNotice() {
  const { user } = useAuth();
  const unverified = !!user?.email && user.emailVerified === false;
  const { data } = usePendingInvitations(unverified);
  const count = data?.count ?? 0;
  return <EmailVerificationBanner inPage notice={count > 0 ? pendingInvitationsText(count) : undefined} />;
}

function BackLink() {
  return (
    <Link to={SHARED_PATH} className="shared-back">
      <ArrowLeftOutlined aria-hidden="true" /> Back to Shared with me
    </Link>
  );
}

function SharedChat({ agent }: { agent: Agent }) {
  return (
    <div className="shared-chat">
      <BackLink />
      <div className="shared-chat__agent">
        <AgentIcon iconName={agent.iconName} iconColor={agent.iconColor} size="large" />
        <div>
          <p className="shared-chat__name">{agent.name}</p>
          {agent.description && <p className="shared-chat__description">{agent.description}</p>}
          {ownerNameOf(agent) && <p className="shared-chat__owner">Shared by {ownerNameOf(agent)}</p>}
        </div>
      </div>
      <LazyChatPanel key={agent.id} agentId={agent.id} agentName={agent.name} role="subscriber" headingLevel={2} />
    </div>
  );
}

function SharedEmptyState() {
  const { user } = useAuth();
  return (
    <div className="shared-empty">
      <TeamOutlined aria-hidden="true" className="shared-empty__icon" />
      <h2 className="shared-empty__title">{EMPTY_TEXT}</h2>
      <p className="shared-empty__text">
        An agent's owner must invite your e-mail address
        {user?.email ? (
          <>
            {' '}
            (<strong>{user.email}</strong>)
          </>
        ) : null}{' '}
        from the agent's Users tab. Once they do, the agent appears here and you can chat with it.
      </p>
    </div>
  );
}

function SharedSkeleton() {
  return (
    <div className="shared-agents shared-agents--loading" role="status" aria-label="Loading shared agents" aria-busy="true">
      {Array.from({ length: 3 }, (_, i) => (
        <div className="shared-agent shared-agent--skeleton" key={i}>
          <Skeleton.Avatar active shape="square" />
          <Skeleton active title={false} paragraph={{ rows: 2, width: ['50%', '80%'] }} />
        </div>
      ))}
    </div>
  );
}

export default SharedAgentsPage;
