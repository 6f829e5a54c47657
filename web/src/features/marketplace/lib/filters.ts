import type { MarketplaceFilters, MarketplaceSort, ReviewSort } from '../types';

export const SORT_OPTIONS: readonly { value: MarketplaceSort; label: string }[] = [
  { value: 'relevance', label: 'Best match' },
  { value: 'popular', label: 'Most popular' },
  { value: 'rating', label: 'Highest rated' },
  { value: 'newest', label: 'Newest' },
  { value: 'price', label: 'Lowest price' },
];

export const REVIEW_SORT_OPTIONS: readonly { value: ReviewSort; label: string }[] = [
  { value: 'newest', label: 'Newest' },
  { value: 'highest', label: 'Highest rated' },
  { value: 'lowest', label: 'Lowest rated' },
];

export const DEFAULT_SORT: MarketplaceSort = 'popular';

/** The sort used when none is chosen: best match while searching, else the most popular first. */
export function defaultSort(q: string): MarketplaceSort {
  return q.trim() ? 'relevance' : DEFAULT_SORT;
}

/** The sorts offered: "Best match" only while searching. */
export function sortOptions(q: string): readonly { value: MarketplaceSort; label: string }[] {
  return q.trim() ? SORT_OPTIONS : SORT_OPTIONS.filter((o) => o.value !== 'relevance');
}

export function isSort(value: string | null): value is MarketplaceSort {
  return SORT_OPTIONS.some((o) => o.value === value);
}

/**
 * The list's filters from the address (?q=&category=&tag=&sort=); an unknown sort, or best match without a
 * search, reads as the default.
 */
export function filtersFromParams(params: URLSearchParams): MarketplaceFilters {
  const q = params.get('q') ?? '';
  const sort = params.get('sort');
  return {
    q,
    category: params.get('category') ?? '',
    tag: params.get('tag') ?? '',
    sort: isSort(sort) && (sort !== 'relevance' || q.trim()) ? sort : defaultSort(q),
  };
}

/** `params` with one filter changed; an empty value (and the default sort) leaves the address. */
export function withFilter(params: URLSearchParams, key: keyof MarketplaceFilters, value: string): URLSearchParams {
  const next = new URLSearchParams(params);
  if (!value || (key === 'sort' && value === defaultSort(next.get('q') ?? ''))) next.delete(key);
  else next.set(key, value);
  return next;
}

/** Whether the visitor narrowed the list (the empty state then says nothing matches). */
export function isFiltered(filters: MarketplaceFilters): boolean {
  return Boolean(filters.q.trim() || filters.category || filters.tag);
}
