import type { DailyColumnRow } from '@/components/DailyColumnChart';
import { dayLabel } from '@/lib/dates';
import type { Usage } from '../api/usage';
import { formatMoney, formatUsd } from './format';

/** One stacked segment: what one agent cost on one day (every day × agent is present, zeros included). */
export type UsageColumnRow = DailyColumnRow;

export const USAGE_TEXTS = {
  title: 'Usage',
  empty: 'No usage in the last 30 days.',
  error: 'Failed to load usage.',
  loading: 'Loading usage',
} as const;

/** '$1.25'; amounts under a cent keep 4 decimals ('$0.0009') so a single answer is not shown as $0.00. */
export function formatSpend(dollars: number): string {
  if (dollars > 0 && dollars < 0.01) {
    // 4 decimals ('$0.0009'), or more below $0.0001 ('$0.00004'): never '$0.0000' for a non-zero amount.
    const four = `$${dollars.toFixed(4)}`;
    return four === '$0.0000' ? formatMoney(dollars) : four;
  }
  return formatUsd(dollars);
}

export { dayLabel };

/** Whether the range has nothing to draw. */
export function isUsageEmpty(usage: Usage): boolean {
  return usage.total <= 0 && usage.days.every((d) => d.total <= 0 && d.interactions <= 0);
}

/** Display names by agent id: the agent's name, with a short id suffix when two agents share a name. */
export function agentLabels(usage: Usage): Map<string, string> {
  const ids = new Map<string, string>();
  const add = (id: string, name: string) => {
    if (!ids.has(id)) ids.set(id, name);
  };
  usage.agents.forEach((a) => add(a.agentId, a.agentName));
  usage.days.forEach((d) => d.agents.forEach((a) => add(a.agentId, a.agentName)));
  const count = new Map<string, number>();
  ids.forEach((name) => count.set(name, (count.get(name) ?? 0) + 1));
  const labels = new Map<string, string>();
  ids.forEach((name, id) => labels.set(id, (count.get(name) ?? 0) > 1 ? `${name} (${id.slice(0, 6) || '?'})` : name));
  return labels;
}

/**
 * Rows for a stacked column chart: every day of the range × every agent (in the order of the per-agent
 * totals, largest first), so the axis is continuous and the stacking order is stable.
 */
export function usageColumnRows(usage: Usage): UsageColumnRow[] {
  const labels = agentLabels(usage);
  const order = [...labels.keys()];
  const rows: UsageColumnRow[] = [];
  for (const day of usage.days) {
    const byAgent = new Map(day.agents.map((a) => [a.agentId, a.amount]));
    const total = day.total || day.agents.reduce((sum, a) => sum + a.amount, 0);
    const agents = order.length > 0 ? order : [''];
    for (const id of agents) {
      rows.push({
        date: day.date,
        day: dayLabel(day.date),
        agent: labels.get(id) ?? 'Total',
        amount: byAgent.get(id) ?? 0,
        dayTotal: total,
      });
    }
  }
  return rows;
}

/** A sentence for screen readers describing the chart. */
export function usageSummary(usage: Usage): string {
  const parts = usage.agents.map((a) => `${a.agentName} ${formatSpend(a.amount)}`);
  return `Spend per day for the last ${usage.days.length} days, stacked by agent. Total ${formatSpend(usage.total)}${
    parts.length ? `: ${parts.join(', ')}` : ''
  }.`;
}
