import type { MarketplaceAgent, MarketplaceProfile, Review } from '../types';

export function listedAgent(overrides: Partial<MarketplaceAgent> = {}): MarketplaceAgent {
  return {
    id: 'a1',
    slug: 'tax-helper',
    name: 'Tax Helper',
    description: 'Answers questions about VAT and income tax.',
    category: 'Finance',
    iconName: 'ri-brain-line',
    iconColor: '#4076D6',
    tags: ['vat', 'tax'],
    creatorName: 'Ada Lovelace',
    rating: { average: 4.5, count: 12 },
    answers: 1234,
    markupPercent: 20,
    greetingCostCents: 50,
    memoryTokens: 4000,
    typicalAnswerMicros: 4200,
    available: true,
    ...overrides,
  };
}

export function profile(overrides: Partial<MarketplaceProfile> = {}): MarketplaceProfile {
  return {
    ...listedAgent(),
    greeting: 'Hello! Ask me anything about VAT.',
    documentsCount: 3,
    createdAt: '2026-01-15T10:00:00Z',
    ...overrides,
  };
}

export function review(overrides: Partial<Review> = {}): Review {
  return {
    id: 'r1',
    rating: 5,
    text: 'Clear and quick answers.',
    authorName: 'Grace',
    createdAt: '2026-02-01T10:00:00Z',
    updatedAt: '2026-02-01T10:00:00Z',
    reply: null,
    ...overrides,
  };
}

export { json } from '@/test/fake-api';
