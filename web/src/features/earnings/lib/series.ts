import { addDays, format, parseISO } from 'date-fns';
import type { DailyColumnRow } from '@/components/DailyColumnChart';
import { dayLabel } from '@/lib/dates';
import { formatMoney } from '@/features/wallet';
import type { EarningsDay } from '../types';

/** One stacked segment: what one agent earned on one UTC day (every day × agent present, zeros included). */
export type EarningsColumnRow = DailyColumnRow;

export const SERIES_DAYS = 30;

/** The last `days` UTC dates up to `today` (YYYY-MM-DD), oldest first. */
export function lastUtcDays(today: Date, days = SERIES_DAYS): string[] {
  const end = today.toISOString().slice(0, 10);
  const last = parseISO(end);
  const out: string[] = [];
  for (let i = days - 1; i >= 0; i -= 1) out.push(format(addDays(last, -i), 'yyyy-MM-dd'));
  return out;
}

export { dayLabel };

/** Agent labels by id, in order of earnings (largest first); a repeated name gets a short id suffix. */
export function agentOrder(days: readonly EarningsDay[]): { id: string; label: string; total: number }[] {
  const totals = new Map<string, { name: string; total: number }>();
  for (const d of days) {
    const entry = totals.get(d.agentId) ?? { name: d.name || 'Agent', total: 0 };
    entry.total += d.earned;
    totals.set(d.agentId, entry);
  }
  const count = new Map<string, number>();
  totals.forEach(({ name }) => count.set(name, (count.get(name) ?? 0) + 1));
  return [...totals.entries()]
    .map(([id, { name, total }]) => ({ id, label: (count.get(name) ?? 0) > 1 ? `${name} (${id.slice(0, 6)})` : name, total }))
    .sort((a, b) => b.total - a.total);
}

/** Rows for the stacked column chart over `dates` (every day × agent, zeros included). */
export function earningsColumnRows(days: readonly EarningsDay[], dates: readonly string[]): EarningsColumnRow[] {
  const agents = agentOrder(days);
  const amounts = new Map<string, number>();
  const dayTotals = new Map<string, number>();
  for (const d of days) {
    amounts.set(`${d.date}|${d.agentId}`, (amounts.get(`${d.date}|${d.agentId}`) ?? 0) + d.earned);
    dayTotals.set(d.date, (dayTotals.get(d.date) ?? 0) + d.earned);
  }
  const rows: EarningsColumnRow[] = [];
  for (const date of dates) {
    for (const agent of agents) {
      rows.push({
        date,
        day: dayLabel(date),
        agent: agent.label,
        amount: amounts.get(`${date}|${agent.id}`) ?? 0,
        dayTotal: dayTotals.get(date) ?? 0,
      });
    }
  }
  return rows;
}

/** The chart's text alternative: 'Earnings per day for the last 30 days, by agent. Total $1.20: Math Tutor $1.00, …'. */
export function earningsChartSummary(days: readonly EarningsDay[], dayCount = SERIES_DAYS): string {
  const agents = agentOrder(days);
  const total = agents.reduce((sum, a) => sum + a.total, 0);
  const parts = agents.map((a) => `${a.label} ${formatMoney(a.total)}`).join(', ');
  return `Earnings per day for the last ${dayCount} days, by agent. Total ${formatMoney(total)}${parts ? `: ${parts}` : ''}.`;
}
