import { format, isValid, parseISO } from 'date-fns';

/** US-style date (spec §9): '03/07/2026'; '' when missing or unreadable. */
export function formatDate(value: string | null | undefined): string {
  if (!value) return '';
  const date = parseISO(value);
  return isValid(date) ? format(date, 'MM/dd/yyyy') : '';
}

/** Whether a review or reply was changed after it was written (more than a minute later). */
export function wasEdited(createdAt: string, updatedAt: string): boolean {
  const created = Date.parse(createdAt);
  const updated = Date.parse(updatedAt);
  return Number.isFinite(created) && Number.isFinite(updated) && updated - created > 60_000;
}
