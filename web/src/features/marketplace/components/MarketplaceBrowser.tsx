import { CloseOutlined, ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { Alert, Button, Input } from 'antd';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useNavigation, useSearchParams } from 'react-router';
import { flattenPages, useMarketplaceAgents, useMarketplaceCategories } from '../api/marketplace';
import { filtersFromParams, isFiltered, sortOptions, withFilter } from '../lib/filters';
import { formatCount } from '../lib/format';
import { AgentCard, AgentCardSkeleton } from './AgentCard';

export const BROWSER_TEXTS = {
  search: 'Search the marketplace',
  searchPlaceholder: 'Search agents by name, description, tag or category',
  category: 'Category',
  allCategories: 'All categories',
  sort: 'Sort by',
  noMatch: 'No agents match your search.',
  noAgents: 'No agents are listed yet.',
  loading: 'Loading agents',
  loadMore: 'Load more agents',
  loadingMore: 'Loading more agents...',
  end: "You've reached the end of the list.",
  failed: 'Could not load the marketplace.',
  retry: 'Try again',
  clearTag: (tag: string) => `Remove the tag filter ${tag}`,
} as const;

/** How long the search box waits after the last keystroke before it searches. */
export const SEARCH_DEBOUNCE_MS = 300;

/**
 * The marketplace itself (issue 27 "Discovery"), on /marketplace and /dashboard/marketplace: a search box
 * (debounced, kept in the address as ?q=), a category filter, the sort, the agent cards and infinite scroll
 * (an observer at the end of the list, and a Load more button for keyboards and older browsers).
 */
export function MarketplaceBrowser() {
  const [params, setParams] = useSearchParams();
  const filters = filtersFromParams(params);
  const ids = useId();
  const categories = useMarketplaceCategories();
  const list = useMarketplaceAgents(filters);
  const agents = flattenPages(list.data);

  // The search box: typed text reaches the address (and the query) after a pause.
  const [text, setText] = useState(filters.q);
  const [seenQ, setSeenQ] = useState(filters.q);
  const [sentQ, setSentQ] = useState<string | null>(null);
  if (filters.q !== seenQ) {
    // The address changed: Back/Forward or a link sets the box; our own debounced write does not.
    setSeenQ(filters.q);
    if (filters.q !== sentQ) setText(filters.q);
  }

  // A card clicked during the pause starts a navigation (to a lazily loaded page) while this page is still
  // shown; the pending search write is dropped so that it cannot replace it.
  const navigating = useNavigation().state !== 'idle';

  useEffect(() => {
    if (text === filters.q || navigating) return;
    const timer = setTimeout(() => {
      setSentQ(text);
      setParams((prev) => withFilter(prev, 'q', text), { replace: true });
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, filters.q, setParams, navigating]);

  const submitSearch = (event: FormEvent) => {
    event.preventDefault();
    if (text === filters.q) return;
    setSentQ(text);
    setParams((prev) => withFilter(prev, 'q', text), { replace: true });
  };

  const setFilter = (key: 'category' | 'sort' | 'tag', value: string) =>
    setParams((prev) => withFilter(prev, key, value), { replace: true });

  // Infinite scroll: the sentinel after the last card loads the next page as it comes into view.
  const [sentinel, setSentinel] = useState<HTMLDivElement | null>(null);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list;
  useEffect(() => {
    const el = sentinel;
    if (!el || !hasNextPage || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting) && !isFetchingNextPage) void fetchNextPage();
      },
      { rootMargin: '300px 0px' },
    );
    observer.observe(el);
    return () => observer.disconnect();
  }, [sentinel, hasNextPage, isFetchingNextPage, fetchNextPage]);

  const categoryOptions = categories.data ?? [];
  const knownCategory = categoryOptions.some((c) => c.category === filters.category);

  let results;
  if (list.isPending) {
    results = (
      <div className="mp-grid" role="status" aria-label={BROWSER_TEXTS.loading} aria-busy="true">
        {Array.from({ length: 6 }, (_, i) => (
          <AgentCardSkeleton key={i} />
        ))}
      </div>
    );
  } else if (list.isError && agents.length === 0) {
    results = (
      <Alert
        type="error"
        showIcon
        title={BROWSER_TEXTS.failed}
        description={list.error.message}
        action={
          <Button size="small" icon={<ReloadOutlined aria-hidden="true" />} onClick={() => void list.refetch()}>
            {BROWSER_TEXTS.retry}
          </Button>
        }
      />
    );
  } else if (agents.length === 0) {
    results = (
      <p className="mp-empty" role="status">
        {isFiltered(filters) ? BROWSER_TEXTS.noMatch : BROWSER_TEXTS.noAgents}
      </p>
    );
  } else {
    results = (
      <>
        <ul className="mp-grid" aria-label="Agents" aria-busy={list.isFetching}>
          {agents.map((agent) => (
            <li key={agent.id} className="mp-grid__item">
              <AgentCard agent={agent} />
            </li>
          ))}
        </ul>
        <div ref={setSentinel} className="mp-sentinel" aria-hidden="true" />
        <div className="mp-more">
          {hasNextPage ? (
            <Button onClick={() => void fetchNextPage()} disabled={isFetchingNextPage}>
              {isFetchingNextPage ? BROWSER_TEXTS.loadingMore : BROWSER_TEXTS.loadMore}
            </Button>
          ) : (
            <p className="mp-muted">{BROWSER_TEXTS.end}</p>
          )}
          {list.isFetchNextPageError && (
            <p role="alert" className="form-field__error">
              {list.error?.message}
            </p>
          )}
        </div>
      </>
    );
  }

  return (
    <div className="mp-browser">
      <div className="mp-filters">
        <form role="search" className="mp-filters__search" onSubmit={submitSearch}>
          <label htmlFor={`${ids}-q`} className="sr-only">
            {BROWSER_TEXTS.search}
          </label>
          <Input
            id={`${ids}-q`}
            type="search"
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder={BROWSER_TEXTS.searchPlaceholder}
            prefix={<SearchOutlined aria-hidden="true" />}
            allowClear
            autoComplete="off"
            enterKeyHint="search"
          />
        </form>
        <div className="mp-filters__field">
          <label htmlFor={`${ids}-category`} className="mp-filters__label">
            {BROWSER_TEXTS.category}
          </label>
          <select
            id={`${ids}-category`}
            className="mp-select"
            value={filters.category}
            onChange={(e) => setFilter('category', e.target.value)}
          >
            <option value="">{BROWSER_TEXTS.allCategories}</option>
            {filters.category && !knownCategory && <option value={filters.category}>{filters.category}</option>}
            {categoryOptions.map((c) => (
              <option key={c.category} value={c.category}>
                {`${c.category} (${formatCount(c.count)})`}
              </option>
            ))}
          </select>
        </div>
        <div className="mp-filters__field">
          <label htmlFor={`${ids}-sort`} className="mp-filters__label">
            {BROWSER_TEXTS.sort}
          </label>
          <select id={`${ids}-sort`} className="mp-select" value={filters.sort} onChange={(e) => setFilter('sort', e.target.value)}>
            {sortOptions(filters.q).map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      {filters.tag && (
        <p className="mp-active-tag">
          Tag: <span className="mp-chip">{filters.tag}</span>
          <Button
            size="small"
            type="text"
            icon={<CloseOutlined aria-hidden="true" />}
            aria-label={BROWSER_TEXTS.clearTag(filters.tag)}
            onClick={() => setFilter('tag', '')}
          />
        </p>
      )}
      {results}
    </div>
  );
}
