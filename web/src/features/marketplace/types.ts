/** The public marketplace's shapes (issue 27 "Discovery" and "Reviews"; docs/catalog.md). */

/** 'relevance' (best match) only with a search: the API refuses it without one. */
export type MarketplaceSort = 'relevance' | 'popular' | 'rating' | 'newest' | 'price';
export type ReviewSort = 'newest' | 'highest' | 'lowest';

export interface Rating {
  /** One decimal; 0 when there is none. */
  average: number;
  count: number;
}

/** One listed agent as GET /api/marketplace/agents lists it. */
export interface MarketplaceAgent {
  id: string;
  slug: string;
  name: string;
  description: string;
  category: string;
  iconName: string;
  iconColor: string;
  tags: string[];
  creatorName: string;
  rating: Rating;
  answers: number;
  markupPercent: number;
  greetingCostCents: number;
  memoryTokens: number;
  /** What a median answer of this agent costs a user, in micro-dollars. */
  typicalAnswerMicros: number;
  /** False when the agent is inactive (e.g. its monthly fee is unpaid): listed, but not answering. */
  available: boolean;
}

/** GET /api/marketplace/agents/{slug}: the listing plus the profile's fields. */
export interface MarketplaceProfile extends MarketplaceAgent {
  greeting: string;
  documentsCount: number;
  createdAt: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface CategoryCount {
  category: string;
  count: number;
}

export interface ReviewReply {
  text: string;
  createdAt: string;
  updatedAt: string;
}

export interface Review {
  id: string;
  rating: number;
  text: string;
  authorName: string;
  createdAt: string;
  updatedAt: string;
  reply: ReviewReply | null;
}

/** PUT /api/marketplace/agents/{slug}/review body. */
export interface ReviewInput {
  rating: number;
  text: string;
}

/** The list's filters, as they stand in the address (?q=&category=&tag=&sort=). */
export interface MarketplaceFilters {
  q: string;
  category: string;
  tag: string;
  sort: MarketplaceSort;
}
