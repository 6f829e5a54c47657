import { describe, expect, it } from 'vitest';
import { addTag, removeTag, visibleTags } from './tags';

describe('addTag (spec §5 "Agent tags")', () => {
  it('adds a trimmed tag', () => {
    expect(addTag(['a'], '  physics  ')).toEqual(['a', 'physics']);
  });

  it('ignores a blank input', () => {
    const tags = ['a'];
    expect(addTag(tags, '')).toBe(tags);
    expect(addTag(tags, '   ')).toBe(tags);
  });

  it('ignores duplicates (after trimming)', () => {
    const tags = ['physics'];
    expect(addTag(tags, 'physics')).toBe(tags);
    expect(addTag(tags, ' physics ')).toBe(tags);
  });

  it('is case-sensitive like the original (Physics and physics are different tags)', () => {
    expect(addTag(['physics'], 'Physics')).toEqual(['physics', 'Physics']);
  });
});

describe('removeTag', () => {
  it('removes only that tag', () => {
    expect(removeTag(['a', 'b', 'c'], 'b')).toEqual(['a', 'c']);
    expect(removeTag(['a'], 'z')).toEqual(['a']);
  });
});

describe('visibleTags (spec §9: two tags per row, then +N)', () => {
  it('shows up to two tags and counts the rest', () => {
    expect(visibleTags([])).toEqual({ shown: [], hidden: 0 });
    expect(visibleTags(null)).toEqual({ shown: [], hidden: 0 });
    expect(visibleTags(['a', 'b'])).toEqual({ shown: ['a', 'b'], hidden: 0 });
    expect(visibleTags(['a', 'b', 'c', 'd', 'e'])).toEqual({ shown: ['a', 'b'], hidden: 3 });
  });
});
