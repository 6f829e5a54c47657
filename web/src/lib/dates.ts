import { format, parseISO } from 'date-fns';

/** 'Mar 9' from '2026-03-09' (the date itself if it does not parse). */
export function dayLabel(date: string): string {
  const d = parseISO(date);
  return Number.isNaN(d.getTime()) ? date : format(d, 'MMM d');
}
