import { Alert, Button, Skeleton } from 'antd';
import { useConversation } from '../api/conversations';
import { chatErrorText } from '../api/errors';
import type { ChatRole } from '../types';
import { MessageList } from './MessageList';
import '../chat.css';

export interface ConversationTranscriptProps {
  conversationId: string;
  agentName: string;
  role?: ChatRole;
}

const NO_TURNS: never[] = [];
const noRetry = () => undefined;

/**
 * A stored conversation, read-only: its messages as the chat shows them (answers, citations, cost), without a
 * sender. Used for conversations that cannot continue (a marketplace agent no longer listed: the Library).
 */
export function ConversationTranscript({ conversationId, agentName, role = 'consumer' }: ConversationTranscriptProps) {
  const conversation = useConversation(conversationId);
  if (conversation.isPending) {
    return (
      <div role="status" aria-label="Loading the conversation" aria-busy="true" className="chat-transcript">
        <Skeleton active paragraph={{ rows: 3 }} />
      </div>
    );
  }
  if (conversation.isError) {
    return (
      <Alert
        type="error"
        showIcon
        className="chat-alert"
        title="Could not load this conversation."
        description={chatErrorText(conversation.error, '')}
        action={
          <Button size="small" onClick={() => void conversation.refetch()}>
            Try again
          </Button>
        }
      />
    );
  }
  const messages = conversation.data.messages ?? [];
  return (
    <div className="chat-transcript" data-testid="conversation-transcript">
      {messages.length === 0 ? (
        <p className="chat-empty__text">No messages in this conversation.</p>
      ) : (
        <MessageList
          messages={messages}
          dataUpdatedAt={conversation.dataUpdatedAt}
          turns={NO_TURNS}
          role={role}
          agentName={agentName}
          onRetry={noRetry}
        />
      )}
    </div>
  );
}

export default ConversationTranscript;
