import { describe, expect, it } from 'vitest';
import { agentsQueryString } from '../api/marketplace';
import { filtersFromParams, isFiltered, sortOptions, withFilter } from './filters';

describe('marketplace filters in the address', () => {
  it('reads q, category, tag and sort (an unknown sort is the default)', () => {
    expect(filtersFromParams(new URLSearchParams('q=tax&category=Finance&tag=vat&sort=rating'))).toEqual({
      q: 'tax',
      category: 'Finance',
      tag: 'vat',
      sort: 'rating',
    });
    expect(filtersFromParams(new URLSearchParams('sort=cheapest'))).toEqual({ q: '', category: '', tag: '', sort: 'popular' });
  });

  it('sorts a search by best match unless another sort is chosen, and never without a search', () => {
    expect(filtersFromParams(new URLSearchParams('q=tax')).sort).toBe('relevance');
    expect(filtersFromParams(new URLSearchParams('q=tax&sort=newest')).sort).toBe('newest');
    expect(filtersFromParams(new URLSearchParams('sort=relevance')).sort).toBe('popular');
    expect(sortOptions('tax').map((o) => o.value)).toContain('relevance');
    expect(sortOptions('  ').map((o) => o.value)).not.toContain('relevance');
  });

  it('drops empty values and the default sort from the address', () => {
    const params = new URLSearchParams('q=tax&sort=price');
    expect(withFilter(params, 'q', '').toString()).toBe('sort=price');
    // While searching the default is best match: choosing 'popular' is kept, choosing best match is not.
    expect(withFilter(params, 'sort', 'popular').toString()).toBe('q=tax&sort=popular');
    expect(withFilter(params, 'sort', 'relevance').toString()).toBe('q=tax');
    expect(withFilter(new URLSearchParams('sort=price'), 'sort', 'popular').toString()).toBe('');
    expect(withFilter(params, 'category', 'Law').toString()).toBe('q=tax&sort=price&category=Law');
    expect(params.toString()).toBe('q=tax&sort=price');
  });

  it('builds the list request: trimmed q, filters, sort, limit and cursor', () => {
    const filters = { q: '  iso 27001 ', category: 'Compliance', tag: '', sort: 'newest' as const };
    expect(agentsQueryString(filters)).toBe('q=iso+27001&category=Compliance&sort=newest&limit=20');
    expect(agentsQueryString(filters, 'abc=')).toBe('q=iso+27001&category=Compliance&sort=newest&limit=20&cursor=abc%3D');
    expect(isFiltered(filters)).toBe(true);
    expect(isFiltered({ q: ' ', category: '', tag: '', sort: 'popular' })).toBe(false);
  });
});
