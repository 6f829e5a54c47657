/**
 * The public marketplace (issue 27): listing, profile, categories and reviews are read without a token;
 * writing a review and reporting need the signed-in user's token. Failures are ApiMessageErrors carrying the
 * server's message (and the per-field messages of a 400 validation_failed).
 */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { ApiMessageError, messageErrorOf } from '@/features/agents';
import { authFetch } from '@/lib/api-client';
import type {
  CategoryCount,
  MarketplaceAgent,
  MarketplaceFilters,
  MarketplaceProfile,
  Page,
  Review,
  ReviewInput,
  ReviewSort,
} from '../types';

export const MARKETPLACE_AGENTS_PATH = '/api/marketplace/agents';
export const MARKETPLACE_CATEGORIES_PATH = '/api/marketplace/categories';
/** Cards per page of the list. */
export const PAGE_SIZE = 20;

const agentPath = (slug: string) => `${MARKETPLACE_AGENTS_PATH}/${encodeURIComponent(slug)}`;

/** A GET of a public route: no token. */
async function publicGet<T>(path: string, signal?: AbortSignal): Promise<T> {
  const response = await fetch(path, { method: 'GET', headers: { Accept: 'application/json' }, credentials: 'include', signal });
  if (!response.ok) throw await messageErrorOf(response);
  return (await response.json()) as T;
}

/** A call that needs the signed-in user's token. */
async function authed<T>(path: string, init: Parameters<typeof authFetch>[1]): Promise<T> {
  const response = await authFetch(path, init);
  if (!response.ok) throw await messageErrorOf(response);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Whether a failure is the server's 404 (unknown or unlisted agent, no review to delete). */
export function isNotFound(error: unknown): boolean {
  return error instanceof ApiMessageError && error.status === 404;
}

/** The list's query string: empty filters are left out. */
export function agentsQueryString(filters: MarketplaceFilters, cursor?: string | null, limit = PAGE_SIZE): string {
  const params = new URLSearchParams();
  if (filters.q.trim()) params.set('q', filters.q.trim());
  if (filters.category) params.set('category', filters.category);
  if (filters.tag) params.set('tag', filters.tag);
  params.set('sort', filters.sort);
  params.set('limit', String(limit));
  if (cursor) params.set('cursor', cursor);
  return params.toString();
}

export function fetchMarketplaceAgents(filters: MarketplaceFilters, cursor: string | null, signal?: AbortSignal) {
  return publicGet<Page<MarketplaceAgent>>(`${MARKETPLACE_AGENTS_PATH}?${agentsQueryString(filters, cursor)}`, signal);
}

export const marketplaceAgentsKey = (filters: MarketplaceFilters) =>
  [MARKETPLACE_AGENTS_PATH, { q: filters.q.trim(), category: filters.category, tag: filters.tag, sort: filters.sort }] as const;

/** The listed agents matching `filters`, page by page (keyset cursor). */
export function useMarketplaceAgents(filters: MarketplaceFilters) {
  return useInfiniteQuery({
    queryKey: marketplaceAgentsKey(filters),
    queryFn: ({ pageParam, signal }) => fetchMarketplaceAgents(filters, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor || undefined,
    staleTime: 30_000,
  });
}

/** Categories with their counts of listed agents. */
export function useMarketplaceCategories() {
  return useQuery({
    queryKey: [MARKETPLACE_CATEGORIES_PATH],
    queryFn: ({ signal }) => publicGet<CategoryCount[]>(MARKETPLACE_CATEGORIES_PATH, signal),
    staleTime: 60_000,
  });
}

export const profileKey = (slug: string) => [agentPath(slug)] as const;

/** GET /api/marketplace/agents/{slug} (public). */
export function fetchMarketplaceProfile(slug: string, signal?: AbortSignal): Promise<MarketplaceProfile> {
  return publicGet<MarketplaceProfile>(agentPath(slug), signal);
}

/** One listed agent's profile; a 404 (unknown or unlisted) is not retried. */
export function useMarketplaceProfile(slug: string) {
  return useQuery({
    queryKey: profileKey(slug),
    queryFn: ({ signal }) => fetchMarketplaceProfile(slug, signal),
    staleTime: 30_000,
  });
}

export const reviewsKey = (slug: string, sort: ReviewSort) => [`${agentPath(slug)}/reviews`, { sort }] as const;

export function reviewsQueryString(sort: ReviewSort, cursor: string | null): string {
  const params = new URLSearchParams({ sort });
  if (cursor) params.set('cursor', cursor);
  return params.toString();
}

/** The agent's reviews in `sort` order, page by page. */
export function useReviews(slug: string, sort: ReviewSort) {
  return useInfiniteQuery({
    queryKey: reviewsKey(slug, sort),
    queryFn: ({ pageParam, signal }) =>
      publicGet<Page<Review>>(`${agentPath(slug)}/reviews?${reviewsQueryString(sort, pageParam)}`, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor || undefined,
    staleTime: 30_000,
  });
}

/**
 * When the profile and the lists are fetched again after a review changes (ms): at once, then twice more, because
 * the rating average and count are a read model the catalog updates from the review's event about a second later.
 */
export const RATING_REFRESH_DELAYS_MS = [0, 2_000, 6_000] as const;

/** After a review changes: its list, the profile's rating and the lists' order are stale. */
function refreshAfterReview(queryClient: ReturnType<typeof useQueryClient>, slug: string) {
  void queryClient.invalidateQueries({ queryKey: [`${agentPath(slug)}/reviews`] });
  for (const delay of RATING_REFRESH_DELAYS_MS) {
    setTimeout(() => {
      void queryClient.invalidateQueries({ queryKey: profileKey(slug) });
      void queryClient.invalidateQueries({ queryKey: [MARKETPLACE_AGENTS_PATH] });
    }, delay);
  }
}

/** PUT …/review: creates or replaces the caller's review. */
export function useSaveReview(slug: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ReviewInput) => authed<Review>(`${agentPath(slug)}/review`, { method: 'PUT', body: input }),
    onSuccess: () => refreshAfterReview(queryClient, slug),
  });
}

/** DELETE …/review: removes the caller's review (404 when there is none). */
export function useDeleteReview(slug: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => authed<void>(`${agentPath(slug)}/review`, { method: 'DELETE' }),
    onSuccess: () => refreshAfterReview(queryClient, slug),
  });
}

export const replyPath = (agentId: string, reviewId: string) =>
  `/api/agents/${encodeURIComponent(agentId)}/reviews/${encodeURIComponent(reviewId)}/reply`;

/** PUT /api/agents/{id}/reviews/{reviewId}/reply {text}: the owner's reply, created or replaced (200 Review). */
export function useSaveReply(agentId: string, slug: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ reviewId, text }: { reviewId: string; text: string }) =>
      authed<Review>(replyPath(agentId, reviewId), { method: 'PUT', body: { text } }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: [`${agentPath(slug)}/reviews`] }),
  });
}

/** DELETE /api/agents/{id}/reviews/{reviewId}/reply: removes the owner's reply (404 "Reply not found"). */
export function useDeleteReply(agentId: string, slug: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (reviewId: string) => authed<void>(replyPath(agentId, reviewId), { method: 'DELETE' }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: [`${agentPath(slug)}/reviews`] }),
  });
}

/** What a report is about: the agent (by slug) or one review (by id). */
export type ReportTarget = { kind: 'agent'; slug: string } | { kind: 'review'; reviewId: string };

export function reportPath(target: ReportTarget): string {
  return target.kind === 'agent'
    ? `${agentPath(target.slug)}/report`
    : `/api/marketplace/reviews/${encodeURIComponent(target.reviewId)}/report`;
}

/** POST …/report {reason} → 202. */
export function useReport(target: ReportTarget) {
  return useMutation({
    mutationFn: (reason: string) => authed<unknown>(reportPath(target), { method: 'POST', body: { reason } }),
  });
}

/** Every item of the pages loaded so far. */
export function flattenPages<T>(data: InfiniteData<Page<T>> | undefined): T[] {
  return data?.pages.flatMap((page) => page.items ?? []) ?? [];
}
