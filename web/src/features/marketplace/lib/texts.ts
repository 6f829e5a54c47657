/** Texts shared by the marketplace's pages (issue 27). */
export const MARKETPLACE_LEAD = 'Agents built by experts, ready to answer your questions. Search and compare them by rating, use and price.';

export const PRIVACY_TITLE = 'Your conversations are private';
export const PRIVACY_TEXT = 'The creator sees how many people use the agent, its ratings and reviews, never your conversations.';

export const CHAT_COMING_TEXT = 'Chatting with marketplace agents opens with paid answers (coming next).';
