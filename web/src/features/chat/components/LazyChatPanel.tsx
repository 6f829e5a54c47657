import { Component, lazy, Suspense, type ReactNode } from 'react';
import { LoadingSpinner } from '@/components/LoadingSpinner';
import type { ChatPanelProps } from './ChatPanel';
import type { ConversationTranscriptProps } from './ConversationTranscript';

// The chat (Ant Design X, the Markdown renderer) is its own chunk, fetched when a chat is first shown.
const ChatPanel = lazy(() => import('./ChatPanel'));
const ConversationTranscript = lazy(() => import('./ConversationTranscript'));

class ChunkErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  render() {
    if (this.state.failed) {
      return (
        <div role="alert" className="chat-load-error">
          The chat could not be loaded. Check your connection and reload the page.
        </div>
      );
    }
    return this.props.children;
  }
}

/** ChatPanel, lazily loaded (keeps Ant Design X out of every route's initial JavaScript). */
export function LazyChatPanel(props: ChatPanelProps) {
  return (
    <ChunkErrorBoundary>
      <Suspense fallback={<LoadingSpinner fullPage={false} />}>
        <ChatPanel {...props} />
      </Suspense>
    </ChunkErrorBoundary>
  );
}

/** ConversationTranscript (a read-only conversation), lazily loaded like the chat. */
export function LazyConversationTranscript(props: ConversationTranscriptProps) {
  return (
    <ChunkErrorBoundary>
      <Suspense fallback={<LoadingSpinner fullPage={false} />}>
        <ConversationTranscript {...props} />
      </Suspense>
    </ChunkErrorBoundary>
  );
}
