/** Texts shared by the marketplace's pages (issue 27). */
export const MARKETPLACE_LEAD = 'Agents built by experts, ready to answer your questions. Search and compare them by rating, use and price.';

export const PRIVACY_TITLE = 'Your conversations are private';
export const PRIVACY_TEXT = 'The creator sees how many people use the agent, its ratings and reviews, never your conversations.';


/** The consumer chat (issue 28): what a marketplace user pays, said before the first message. */
export const CONSUMER_CHAT_TEXTS = {
  pricingHeading: 'What you pay',
  price: (markupPercent: number) =>
    `You pay per answer from your wallet: the model's usage, a 3% service fee and the creator's ${markupPercent}% markup.`,
  greeting: (dollars: string) => `Starting a conversation costs ${dollars}, charged with its first answer.`,
  balance: 'Your wallet balance:',
  balanceLoading: 'Loading your balance',
  balanceUnknown: 'unavailable',
  addFunds: 'Add funds',
  ownerTitle: 'This is your agent',
  ownerText: 'You chat with your own agent in its editor, where answers cost you the usage and the service fee only.',
  ownerLink: (name: string) => `Open ${name} in Your Agentic Users`,
  unavailable: 'This agent is unavailable right now.',
} as const;
