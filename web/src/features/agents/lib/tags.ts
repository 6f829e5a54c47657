import { MAX_VISIBLE_TAGS } from '../constants';

/**
 * Agent tag rules (spec §5 "Agent tags"): the input is trimmed, a blank input is ignored
 * and a tag already in the list is ignored. Returns the same array when nothing changes.
 */
export function addTag(tags: readonly string[], input: string): readonly string[] {
  const tag = input.trim();
  if (!tag || tags.includes(tag)) return tags;
  return [...tags, tag];
}

export function removeTag(tags: readonly string[], tag: string): string[] {
  return tags.filter((t) => t !== tag);
}

/** The list's Tags column: the first MAX_VISIBLE_TAGS tags and how many are hidden (+N). */
export function visibleTags(tags: readonly string[] | null | undefined, max = MAX_VISIBLE_TAGS) {
  const all = tags ?? [];
  return { shown: all.slice(0, max), hidden: Math.max(0, all.length - max) };
}
