import { dayLabel, type Usage } from '@/features/wallet';

export const INTERACTIONS_TEXTS = {
  title: 'Interactions per day',
  empty: 'No interactions in the last 30 days.',
  error: 'Failed to load interactions.',
  loading: 'Loading interactions',
} as const;

export interface InteractionsRow {
  /** YYYY-MM-DD. */
  date: string;
  /** 'Mar 9'. */
  day: string;
  interactions: number;
}

/** One row per day of the range (zeros included: a continuous axis). */
export function interactionRows(usage: Usage): InteractionsRow[] {
  return usage.days.map((d) => ({ date: d.date, day: dayLabel(d.date), interactions: d.interactions }));
}

export function totalInteractions(usage: Usage): number {
  return usage.days.reduce((sum, d) => sum + d.interactions, 0);
}

/** A sentence for screen readers describing the chart. */
export function interactionsSummary(usage: Usage): string {
  const total = totalInteractions(usage);
  const busiest = usage.days.reduce<Usage['days'][number] | null>(
    (best, d) => (d.interactions > (best?.interactions ?? 0) ? d : best),
    null,
  );
  const peak = busiest ? `; most on ${dayLabel(busiest.date)} (${busiest.interactions})` : '';
  return `Answers per day for the last ${usage.days.length} days: ${total} in all${peak}.`;
}
