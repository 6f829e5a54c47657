import { CommentOutlined, CopyOutlined, LoadingOutlined, MailOutlined } from '@ant-design/icons';
import { Alert, Button } from 'antd';
import { useId } from 'react';
import { toast } from '@/components/toast';
import { type AgentDocument, copyToClipboard, syncDisplay, type SyncDisplay, useDocuments } from '@/features/documents';
import '@/features/documents/documents.css';
import './channels.css';

interface ChannelsTabProps {
  agentId: string;
  /** The agent's own address (catalog); absent on an agent created before addresses existed. */
  agentEmail?: string;
  /** The agent's saved status: an agent that is not active refuses e-mail. */
  agentStatus?: string;
  /** Load the linked documents only while the editor is open. */
  enabled?: boolean;
}

/** Fallback reason of a document the agent cannot read, when the service gave none. */
export const UNREADABLE_DOCUMENT = 'The agent cannot read this document.';

const WATCH: Record<SyncDisplay, { text: string; className: string; watched: boolean }> = {
  syncing: { text: 'Checking access…', className: 'documents-badge--gray', watched: false },
  shared: { text: 'Watched for mentions', className: 'documents-badge--green', watched: true },
  not_shared: { text: 'Not watched', className: 'documents-badge--amber', watched: false },
  error: { text: 'Not watched', className: 'documents-badge--red', watched: false },
};

/**
 * The Channels tab (issue 15): how people reach the agent besides the app's chat. Its e-mail address
 * with Copy (the owner and active subscribers e-mail it and get the answer as a reply in the thread),
 * and Google Docs comments: which linked documents the agent watches for comments that mention its
 * address (those shared with it) and which it cannot (share them with the address).
 */
export function ChannelsTab({ agentId, agentEmail, agentStatus, enabled = true }: ChannelsTabProps) {
  const emailHeadingId = useId();
  const docsHeadingId = useId();
  const docs = useDocuments(agentId, enabled);
  const address = agentEmail?.trim() || undefined;
  const inactive = !!agentStatus && agentStatus !== 'active';

  const copyAddress = async () => {
    if (!address) return;
    if (await copyToClipboard(address)) {
      toast({ title: 'Address copied', description: `${address} is on the clipboard.` });
    } else {
      toast({ title: 'Could not copy the address', description: `Copy it by hand: ${address}`, variant: 'destructive' });
    }
  };

  const documents = docs.data ?? [];
  const watched = documents.filter((d) => syncDisplay(d) === 'shared').length;

  return (
    <div className="agent-editor__section agent-channels">
      <section className="agent-channels__card" aria-labelledby={emailHeadingId}>
        <h3 id={emailHeadingId} className="agent-channels__title">
          <MailOutlined aria-hidden="true" /> E-mail
        </h3>
        {address ? (
          <>
            <div className="agent-channels__address">
              <span className="sr-only">Agent e-mail address: </span>
              <a href={`mailto:${address}`} className="agent-channels__email" data-testid="channels-email">
                {address}
              </a>
              <Button size="small" icon={<CopyOutlined aria-hidden="true" />} onClick={() => void copyAddress()}>
                Copy
              </Button>
            </div>
            <p className="agent-channels__lead">Send it an e-mail to try it.</p>
            <p className="agents-muted agent-channels__text">
              You and the agent&apos;s active subscribers can write to this address from your own mail client. The agent
              answers with a reply in the same thread, with its sources as links, and replying continues the conversation.
              E-mail conversations also appear in the Chat tab, marked &ldquo;E-mail&rdquo;. Answers are charged to your
              wallet, like chat. E-mail from any other address is refused.
            </p>
            {inactive && (
              <Alert
                type="warning"
                showIcon
                className="agent-channels__alert"
                title="This agent is not active, so e-mail to it is refused. Set its status to Active in Settings to receive e-mail."
              />
            )}
          </>
        ) : (
          <p className="agents-muted agent-channels__text">This agent has no e-mail address yet.</p>
        )}
      </section>

      <section className="agent-channels__card" aria-labelledby={docsHeadingId}>
        <h3 id={docsHeadingId} className="agent-channels__title">
          <CommentOutlined aria-hidden="true" /> Google Docs comments
        </h3>
        <p className="agent-channels__lead" data-testid="channels-mention-hint">
          {address ? (
            <>
              Mention <span className="agent-channels__mention">{address}</span> in a comment to ask the agent.
            </>
          ) : (
            "Mention the agent's e-mail address in a comment to ask the agent."
          )}
        </p>
        <p className="agents-muted agent-channels__text">
          In a linked document shared with the agent&apos;s address, you or an active subscriber can write a comment that
          mentions the address (type + or @ and the address). The agent replies in the comment thread, answering from the
          document and its other knowledge. Answers are charged to your wallet.
        </p>
        {docs.isPending && enabled ? (
          <div role="status" aria-label="Loading documents" className="agent-channels__loading">
            <LoadingOutlined spin aria-hidden="true" />
          </div>
        ) : docs.isError ? (
          <p role="alert" className="agent-channels__error">
            {docs.error.message || 'Failed to load documents.'}
          </p>
        ) : documents.length === 0 ? (
          <p className="agent-channels__empty">
            No documents are linked to this agent yet. Link Google Docs in the Instructions &amp; Documents tab; those
            shared with the agent&apos;s address are watched for mentions.
          </p>
        ) : (
          <>
            <p className="agent-channels__count" data-testid="channels-watched-count">
              {watched === documents.length
                ? `All ${documents.length === 1 ? '1 linked document is' : `${documents.length} linked documents are`} watched for mentions.`
                : `${watched} of ${documents.length} linked ${documents.length === 1 ? 'document is' : 'documents are'} watched for mentions.`}
            </p>
            <ul className="agent-channels__docs" aria-label="Linked documents">
              {documents.map((doc) => (
                <WatchedDocument key={doc.id} doc={doc} address={address} />
              ))}
            </ul>
          </>
        )}
      </section>
    </div>
  );
}

function WatchedDocument({ doc, address }: { doc: AgentDocument; address?: string }) {
  const display = syncDisplay(doc);
  const badge = WATCH[display];
  return (
    <li className="agent-channels__doc" data-testid="channel-document" data-watched={badge.watched ? 'true' : 'false'}>
      <div className="agent-channels__doc-head">
        <a href={doc.url} target="_blank" rel="noopener noreferrer" className="agent-channels__doc-name">
          {doc.name}
        </a>
        <span className={`documents-badge ${badge.className}`} data-testid="watch-status">
          {display === 'syncing' && <LoadingOutlined spin aria-hidden="true" />}
          {badge.text}
        </span>
      </div>
      {display === 'not_shared' && (
        <p className="agent-channels__doc-hint">
          {address
            ? `Share this document with ${address} so the agent can see and answer its comments.`
            : "Share this document with the agent's e-mail address so the agent can see and answer its comments."}
        </p>
      )}
      {display === 'error' && (
        <p className="agent-channels__doc-hint agent-channels__doc-hint--error">{doc.syncError?.trim() || UNREADABLE_DOCUMENT}</p>
      )}
      {display === 'syncing' && (
        <p className="agent-channels__doc-hint">The agent is checking whether it can read this document.</p>
      )}
    </li>
  );
}
