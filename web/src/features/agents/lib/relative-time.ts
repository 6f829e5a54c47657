const DAY_MS = 24 * 60 * 60 * 1000;

function plural(n: number, unit: string) {
  return `${n} ${unit}${n === 1 ? '' : 's'} ago`;
}

/**
 * The Users tab's Joined column (spec §9): whole days ago under 7 days, weeks ago under
 * 30 days, months ago otherwise, counting 30-day months; less than a day is 'today' (never
 * '0 days ago', issue 29). A future date counts as today; an unparseable date gives ''.
 */
export function formatJoined(date: string | number | Date, now: Date | number = Date.now()): string {
  const then = date instanceof Date ? date.getTime() : new Date(date).getTime();
  const current = now instanceof Date ? now.getTime() : now;
  if (Number.isNaN(then)) return '';
  const days = Math.max(0, Math.floor((current - then) / DAY_MS));
  if (days === 0) return 'today';
  if (days < 7) return plural(days, 'day');
  if (days < 30) return plural(Math.floor(days / 7), 'week');
  return plural(Math.floor(days / 30), 'month');
}
