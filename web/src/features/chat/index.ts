export { useChatInfo } from './api/conversations';
export { chatErrorText, readChatError } from './api/errors';
export { LazyChatPanel, LazyConversationTranscript } from './components/LazyChatPanel';
export type { ChatPanelProps } from './components/ChatPanel';
export type { ChatRole } from './types';
