import { DeleteOutlined, EditOutlined, EllipsisOutlined, MessageOutlined, PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { Conversations, type ConversationItemType } from '@ant-design/x';
import { Alert, Button, Input, Modal, Skeleton, type InputRef } from 'antd';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { toast } from '@/components/toast';
import { useDeleteConversation, useRenameConversation } from '../api/conversations';
import { chatErrorText } from '../api/errors';
import type { Conversation } from '../types';
import { ChannelTag, channelOf } from './ChannelTag';

export const TITLE_MAX = 200;

interface ConversationListProps {
  agentId: string;
  conversations: readonly Conversation[] | undefined;
  loading: boolean;
  error: unknown;
  onReload: () => void;
  activeId: string | null;
  onSelect: (id: string) => void;
  onCreate: () => void;
  creating: boolean;
  /** Called after a conversation was deleted on the server. */
  onDeleted: (id: string) => void;
  headingLevel: 2 | 3;
  /** The heading is for screen readers only (in the phone drawer, whose title says "Conversations"). */
  titleHidden?: boolean;
}

/**
 * The caller's conversations with the agent (Ant Design X Conversations): New conversation, select,
 * rename inline (Enter saves, Escape cancels) and delete after a confirmation. A conversation that came
 * from another channel carries its tag ("E-mail", "Docs comment", "API").
 */
export function ConversationList(props: ConversationListProps) {
  const { agentId, conversations, loading, error, onReload, activeId, onSelect, onCreate, creating, onDeleted, headingLevel, titleHidden } = props;
  const [renamingId, setRenamingId] = useState<string | null>(null);
  const rename = useRenameConversation(agentId);
  const remove = useDeleteConversation(agentId);
  const [modal, modalHolder] = Modal.useModal();
  const Heading = headingLevel === 2 ? 'h3' : 'h4';

  const saveTitle = (conversation: Conversation, value: string) => {
    const title = value.trim();
    setRenamingId(null);
    if (!title || title === conversation.title) return;
    rename.mutate(
      { id: conversation.id, title: title.slice(0, TITLE_MAX) },
      {
        onError: (e) => toast({ title: 'Error', description: chatErrorText(e, 'Failed to rename the conversation.'), variant: 'destructive', error: e }),
      },
    );
  };

  const confirmDelete = (conversation: Conversation) => {
    void modal.confirm({
      title: 'Delete conversation?',
      content: `"${conversation.title}" and all its messages will be deleted. This cannot be undone.`,
      okText: 'Delete',
      okButtonProps: { danger: true },
      cancelText: 'Cancel',
      onOk: () =>
        remove.mutateAsync(conversation.id).then(
          () => {
            onDeleted(conversation.id);
            toast({ title: 'Conversation Deleted', description: `"${conversation.title}" was deleted.` });
          },
          (e: unknown) => {
            toast({ title: 'Error', description: chatErrorText(e, 'Failed to delete the conversation.'), variant: 'destructive', error: e });
          },
        ),
    });
  };

  const items: ConversationItemType[] = (conversations ?? []).map((c) => ({
    key: c.id,
    conversation: c,
    icon: <MessageOutlined aria-hidden="true" />,
    'data-testid': 'conversation-item',
    label:
      renamingId === c.id ? (
        <RenameInput conversation={c} onSave={(v) => saveTitle(c, v)} onCancel={() => setRenamingId(null)} />
      ) : (
        <button type="button" className="chat-conv__select" aria-current={c.id === activeId ? 'true' : undefined}>
          <span className="chat-conv__title">{c.title}</span>
          {channelOf(c) && (
            <>
              {' '}
              <ChannelTag conversation={c} />
            </>
          )}
        </button>
      ),
  }));

  return (
    <div className="chat-conversations">
      <div className="chat-conversations__head">
        <Heading className={titleHidden ? 'chat-conversations__title sr-only' : 'chat-conversations__title'}>Conversations</Heading>
        <Button type="primary" size="small" icon={<PlusOutlined aria-hidden="true" />} onClick={onCreate} loading={creating}>
          New conversation
        </Button>
      </div>
      {loading && (
        <div role="status" aria-label="Loading conversations" className="chat-conversations__loading">
          <Skeleton active title={false} paragraph={{ rows: 4 }} />
        </div>
      )}
      {!loading && !!error && (
        <Alert
          type="error"
          showIcon
          title="Could not load your conversations."
          description={
            <>
              {chatErrorText(error, '') && <p className="chat-conversations__error">{chatErrorText(error, '')}</p>}
              <Button size="small" icon={<ReloadOutlined aria-hidden="true" />} onClick={onReload}>
                Try again
              </Button>
            </>
          }
        />
      )}
      {!loading && !error && items.length === 0 && (
        <p className="chat-conversations__empty">No conversations yet. Start one, or just send a message.</p>
      )}
      {items.length > 0 && (
        <nav aria-label="Conversations">
          <Conversations
            items={items}
            activeKey={activeId ?? undefined}
            onActiveChange={(key) => {
              if (key !== renamingId) onSelect(String(key));
            }}
            menu={(item) => {
              const c = item.conversation as Conversation;
              return {
                items: [
                  { key: 'rename', label: 'Rename', icon: <EditOutlined aria-hidden="true" /> },
                  { key: 'delete', label: 'Delete', danger: true, icon: <DeleteOutlined aria-hidden="true" /> },
                ],
                onClick: ({ key, domEvent }) => {
                  domEvent.stopPropagation();
                  if (key === 'rename') setRenamingId(c.id);
                  if (key === 'delete') confirmDelete(c);
                },
                trigger: (
                  <Button
                    type="text"
                    size="small"
                    className="chat-conv__menu"
                    icon={<EllipsisOutlined aria-hidden="true" />}
                    aria-label={`Actions for ${c.title}`}
                  />
                ),
              };
            }}
          />
        </nav>
      )}
      {modalHolder}
    </div>
  );
}

function RenameInput({ conversation, onSave, onCancel }: { conversation: Conversation; onSave: (value: string) => void; onCancel: () => void }) {
  const [value, setValue] = useState(conversation.title);
  const finished = useRef(false);
  const ref = useRef<InputRef>(null);

  useEffect(() => {
    // After the actions menu has closed (it may hand focus back to its trigger).
    const frame = requestAnimationFrame(() => ref.current?.focus({ cursor: 'all' }));
    return () => cancelAnimationFrame(frame);
  }, []);

  const finish = (save: boolean) => {
    if (finished.current) return;
    finished.current = true;
    if (save) onSave(value);
    else onCancel();
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    e.stopPropagation();
    if (e.key === 'Enter') {
      e.preventDefault();
      finish(true);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      finish(false);
    }
  };
  return (
    <Input
      ref={ref}
      size="small"
      aria-label="Conversation title"
      maxLength={TITLE_MAX}
      value={value}
      onChange={(e) => setValue(e.target.value)}
      onKeyDown={onKeyDown}
      // Leaving the field keeps a changed title (like Enter) and otherwise just closes it.
      onBlur={() => finish(value.trim() !== conversation.title && value.trim() !== '')}
      onClick={(e) => e.stopPropagation()}
    />
  );
}
