import { formatMoney } from '@/features/wallet';

/** Pure formatting of the dashboard's numbers (spec "Dashboard home"). */

export type GrowthDirection = 'up' | 'down';
export type GrowthColor = 'green' | 'red';

/** A value of zero or more has an up arrow in green; a negative value a down arrow in red. */
export function growthTone(value: number): { direction: GrowthDirection; color: GrowthColor } {
  return value >= 0 || Number.isNaN(value) ? { direction: 'up', color: 'green' } : { direction: 'down', color: 'red' };
}

/** '+12.5%', '+0.0%', '-3.2%' (one decimal; a non-finite value counts as 0). */
export function formatGrowth(value: number): string {
  const v = Number.isFinite(value) ? value : 0;
  const rounded = Math.round(v * 10) / 10;
  const fixed = Math.abs(rounded).toFixed(1);
  return rounded < 0 ? `-${fixed}%` : `+${fixed}%`;
}

/** The caption under a stat: '+12.5% from last month'. */
export function growthCaption(value: number): string {
  return `${formatGrowth(value)} from last month`;
}

/**
 * Revenue is stored in cents and shown as dollars with 2 decimals: 1250 → '$12.50'. A fraction of a cent that is
 * not zero keeps its first significant digit (0.3 → '$0.003'), never '$0.00' (the wallet's formatMoney).
 */
export function formatCents(cents: number): string {
  return formatMoney((Number.isFinite(cents) ? cents : 0) / 100);
}

const count = new Intl.NumberFormat('en-US');

/** Whole counts with thousands separators: 1234 → '1,234'. */
export function formatCount(n: number): string {
  return count.format(Number.isFinite(n) ? n : 0);
}
