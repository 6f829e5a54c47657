import { UnorderedListOutlined } from '@ant-design/icons';
import { Alert, Button, Drawer, Skeleton } from 'antd';
import { useCallback, useRef, useState, type ReactNode } from 'react';
import { toast } from '@/components/toast';
import { useIsPhone } from '@/lib/use-media-query';
import {
  useChatInfo,
  useConversation,
  useConversations,
  useCreateConversation,
  useRenameConversation,
} from '../api/conversations';
import { ChatApiError, chatErrorText } from '../api/errors';
import { isInFlight, useChatSession } from '../hooks/use-chat-session';
import { useFillViewport } from '../hooks/use-fill-viewport';
import { titleFromMessage } from '../lib/format';
import type { ChatRole } from '../types';
import { ChannelTag, channelOf } from './ChannelTag';
import { ChatSender } from './ChatSender';
import { ConversationList } from './ConversationList';
import { MessageList } from './MessageList';
import { ModelTag } from './ModelTag';
import '../chat.css';

export const DEFAULT_TITLE = 'New conversation';

/** The line under the sender: who pays for the answers. */
export const CHAT_NOTES: Record<ChatRole, string> = {
  owner: 'Answers are charged to your wallet.',
  subscriber: "Answers are paid for by the agent's owner.",
  consumer: "Each answer is charged to your wallet: the model's usage, a 3% service fee and the creator's markup.",
};

export interface ChatPanelProps {
  agentId: string;
  /**
   * 'owner' (editor's Chat tab: answers are paid from their wallet), 'subscriber' (Shared with me) or 'consumer'
   * (a listed marketplace agent: the user pays usage, fee, markup and greeting cost).
   */
  role: ChatRole;
  agentName: string;
  /** Level of the panel's heading (2 on a page under its h1, 3 inside the editor under the agent's h2). */
  headingLevel?: 2 | 3;
  /**
   * The conversation to open (e.g. `?conversation=` from the Library); when it is not one of the caller's
   * conversations with the agent, the newest is shown as usual. A new value opens that conversation.
   */
  initialConversationId?: string | null;
  /**
   * The agent's greeting (a listed agent's first message in every new conversation, free): shown before the
   * first message of a new chat; once the conversation exists, the server's stored copy is shown instead.
   */
  greeting?: string;
}

/**
 * Chat with an agent, built from Ant Design X: the caller's conversations (Conversations), the
 * messages (Bubble.List, answers streamed as Markdown with citations and cost) and a Sender with Stop.
 */
export function ChatPanel({ agentId, role, agentName, headingLevel = 2, initialConversationId, greeting }: ChatPanelProps) {
  const info = useChatInfo(agentId);
  const list = useConversations(agentId);
  const create = useCreateConversation(agentId, role);
  const rename = useRenameConversation(agentId);
  const session = useChatSession(agentId, role);
  const [draft, setDraft] = useState('');
  // Phones: the conversations are a drawer and the panel fills the screen (the message box at its bottom).
  const phone = useIsPhone();
  const [drawerOpen, setDrawerOpen] = useState(false);
  const panelRef = useRef<HTMLElement>(null);
  useFillViewport(panelRef, true);
  /** undefined: follow the newest conversation; null: none (a new chat); else the chosen one. */
  const [chosen, setChosen] = useState<string | null | undefined>(initialConversationId || undefined);
  // A new conversation asked for from outside (the address changed) is opened.
  const [asked, setAsked] = useState(initialConversationId);
  if (asked !== initialConversationId) {
    setAsked(initialConversationId);
    if (initialConversationId) setChosen(initialConversationId);
  }

  const conversations = list.data;
  const chosenExists = typeof chosen === 'string' && (conversations?.some((c) => c.id === chosen) ?? true);
  const activeId = chosenExists ? (chosen as string) : chosen === null ? null : (conversations?.[0]?.id ?? null);
  const conversation = useConversation(activeId);
  const active = conversations?.find((c) => c.id === activeId) ?? conversation.data;
  const channel = activeId ? channelOf(active) : null;
  const activeTurns = session.turns.filter((t) => t.conversationId === activeId);
  const generating = activeTurns.some(isInFlight);

  const latest = [...activeTurns].reverse().find((t) => t.model);
  const model = latest?.model ?? info.data?.model;
  // The latest answer's `start` event names the model; before any, chat-info does.
  const simulated = latest
    ? (latest.simulated ?? (latest.model === info.data?.model ? info.data?.simulated : undefined))
    : info.data?.simulated;

  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const headingId = `chat-heading-${agentId}`;

  const startNew = () => {
    create.mutate(undefined, {
      onSuccess: (c) => setChosen(c.id),
      onError: (e) =>
        toast({ title: 'Error', description: chatErrorText(e, 'Failed to create a conversation.'), variant: 'destructive', error: e }),
    });
  };

  const submit = async (text: string) => {
    const content = text.trim();
    if (!content || create.isPending) return;
    let id = activeId;
    if (!id) {
      try {
        const created = await create.mutateAsync(titleFromMessage(content));
        id = created.id;
      } catch (e) {
        toast({ title: 'Error', description: chatErrorText(e, 'Failed to create a conversation.'), variant: 'destructive', error: e });
        return;
      }
    } else {
      // The first message names an untitled conversation.
      const stored = conversation.data;
      const untouched =
        active?.title === DEFAULT_TITLE && stored?.id === id && !stored.messages?.some((m) => m.role === 'user') && activeTurns.length === 0;
      if (untouched) rename.mutate({ id, title: titleFromMessage(content) });
    }
    setChosen(id);
    setDraft('');
    void session.send(id, content);
  };

  const { retry } = session;
  const onRetry = useCallback((turnId: string) => void retry(turnId), [retry]);

  const onDeleted = (id: string) => {
    session.forget(id);
    if (id === activeId) setChosen(undefined);
  };

  let body: ReactNode;
  if (activeId === null) {
    body = list.isPending ? (
      <MessagesSkeleton />
    ) : (
      <div className="chat-empty">
        {greeting?.trim() && (
          <figure className="chat-greeting" data-testid="chat-greeting">
            <figcaption className="chat-greeting__from">{agentName}</figcaption>
            <p className="chat-greeting__text">{greeting}</p>
          </figure>
        )}
        <p className="chat-empty__title">Start a conversation with {agentName}</p>
        <p className="chat-empty__text">Ask a question below. Answers draw on the documents linked to this agent.</p>
      </div>
    );
  } else if (conversation.isPending) {
    body = <MessagesSkeleton />;
  } else if (conversation.isError) {
    const gone = conversation.error instanceof ChatApiError && conversation.error.status === 404;
    body = (
      <Alert
        type="error"
        showIcon
        className="chat-alert"
        title={gone ? 'This conversation no longer exists.' : 'Could not load this conversation.'}
        description={gone ? undefined : chatErrorText(conversation.error, '')}
        action={
          !gone && (
            <Button size="small" onClick={() => void conversation.refetch()}>
              Try again
            </Button>
          )
        }
      />
    );
  } else {
    const messages = conversation.data?.messages ?? [];
    body =
      messages.length === 0 && activeTurns.length === 0 ? (
        <div className="chat-empty">
          <p className="chat-empty__title">No messages yet</p>
          <p className="chat-empty__text">Ask {agentName} anything below.</p>
        </div>
      ) : (
        <MessageList
          messages={messages}
          dataUpdatedAt={conversation.dataUpdatedAt}
          turns={activeTurns}
          role={role}
          agentName={agentName}
          onRetry={onRetry}
        />
      );
  }

  const conversationList = (
    <ConversationList
      agentId={agentId}
      conversations={conversations}
      loading={list.isPending}
      error={list.isError ? list.error : null}
      onReload={() => void list.refetch()}
      activeId={activeId}
      onSelect={(id) => {
        setChosen(id);
        setDrawerOpen(false);
      }}
      onCreate={() => {
        startNew();
        setDrawerOpen(false);
      }}
      creating={create.isPending}
      onDeleted={onDeleted}
      headingLevel={headingLevel}
      titleHidden={phone}
    />
  );

  return (
    <section
      ref={panelRef}
      className={phone ? 'chat-panel chat-panel--phone' : 'chat-panel'}
      aria-labelledby={headingId}
      data-testid="chat-panel"
    >
      {phone ? (
        <Drawer
          open={drawerOpen}
          onClose={() => setDrawerOpen(false)}
          placement="left"
          size="85%"
          title="Conversations"
          className="chat-conversations-drawer"
          data-testid="conversations-drawer"
        >
          {conversationList}
        </Drawer>
      ) : (
        <aside className="chat-panel__sidebar">{conversationList}</aside>
      )}
      <div className="chat-panel__main">
        <header className="chat-panel__header">
          <div className="chat-panel__titles">
            <Heading id={headingId} className="chat-panel__heading">
              Chat with {agentName}
            </Heading>
            <div className="chat-panel__subtitle-row">
              <p className="chat-panel__subtitle" data-testid="chat-conversation-title">
                {active?.title ?? DEFAULT_TITLE}
              </p>
              <ChannelTag conversation={activeId ? active : null} />
            </div>
            {channel && (
              <p className="chat-panel__channel-note" data-testid="chat-channel-note">
                {channel.note}
              </p>
            )}
          </div>
          <div className="chat-panel__tools">
            {phone && (
              <Button
                size="small"
                className="chat-panel__conversations-button"
                icon={<UnorderedListOutlined aria-hidden="true" />}
                aria-label="Conversations"
                aria-haspopup="dialog"
                aria-expanded={drawerOpen}
                onClick={() => setDrawerOpen(true)}
              >
                Conversations
              </Button>
            )}
            <ModelTag model={model} simulated={simulated} followUpSearch={info.data?.followUpSearch} />
          </div>
        </header>
        <div className="chat-panel__body">{body}</div>
        <ChatSender
          value={draft}
          onChange={setDraft}
          onSubmit={(v) => void submit(v)}
          onStop={() => activeId && session.stop(activeId)}
          generating={generating}
          // Until the list is in, a message could not tell whether it starts a new conversation.
          disabled={create.isPending || list.isPending}
          placeholder={`Message ${agentName}…`}
        />
        <p className="chat-panel__note">
          {CHAT_NOTES[role]}
        </p>
      </div>
    </section>
  );
}

function MessagesSkeleton() {
  return (
    <div role="status" aria-label="Loading messages" className="chat-messages-loading">
      <Skeleton active avatar paragraph={{ rows: 3 }} />
    </div>
  );
}

export default ChatPanel;
