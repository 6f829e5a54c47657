import { formatDistance } from 'date-fns';

/** 'about 1 hour ago', '3 days ago', 'in 2 minutes' (date-fns distance wording, spec §9); '' if unparseable. */
export function relativeTime(date: string | number | Date, now: Date | number = Date.now()): string {
  const then = date instanceof Date ? date : new Date(date);
  if (Number.isNaN(then.getTime())) return '';
  return formatDistance(then, now, { addSuffix: true });
}
