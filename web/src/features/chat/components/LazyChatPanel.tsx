import { lazy } from 'react';
import { LazyChunk } from '@/components/LazyChunk';
import type { ChatPanelProps } from './ChatPanel';
import type { ConversationTranscriptProps } from './ConversationTranscript';

// The chat (Ant Design X, the Markdown renderer) is its own chunk, fetched when a chat is first shown.
const ChatPanel = lazy(() => import('./ChatPanel'));
const ConversationTranscript = lazy(() => import('./ConversationTranscript'));

/** ChatPanel, lazily loaded (keeps Ant Design X out of every route's initial JavaScript). */
export function LazyChatPanel(props: ChatPanelProps) {
  return (
    <LazyChunk what="The chat" className="chat-load-error">
      <ChatPanel {...props} />
    </LazyChunk>
  );
}

/** ConversationTranscript (a read-only conversation), lazily loaded like the chat. */
export function LazyConversationTranscript(props: ConversationTranscriptProps) {
  return (
    <LazyChunk what="The chat" className="chat-load-error">
      <ConversationTranscript {...props} />
    </LazyChunk>
  );
}
