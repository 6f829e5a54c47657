/**
 * Spec §5 "Labels": trimmed, a blank input is ignored, a label with a space is rejected,
 * duplicates (exact, like the documents service) are ignored. Pure.
 */
export const LABEL_MESSAGES = {
  spaces: 'Invalid label: Labels cannot contain spaces.',
  tooMany: 'A document can have at most 30 labels',
} as const;

export const MAX_LABEL_LENGTH = 40;
export const MAX_LABELS = 30;

export type AddLabelResult = { labels: readonly string[]; error: null } | { labels: readonly string[]; error: string };

/** Adds `input` to `labels`; returns the same array when nothing is added. */
export function addLabel(labels: readonly string[], input: string): AddLabelResult {
  const label = input.trim();
  if (!label || labels.includes(label)) return { labels, error: null };
  if (/\s/.test(label)) return { labels, error: LABEL_MESSAGES.spaces };
  if (labels.length >= MAX_LABELS) return { labels, error: LABEL_MESSAGES.tooMany };
  return { labels: [...labels, label], error: null };
}

export function removeLabel(labels: readonly string[], label: string): string[] {
  return labels.filter((l) => l !== label);
}
