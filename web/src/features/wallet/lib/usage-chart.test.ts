import { describe, expect, it } from 'vitest';
import type { Usage } from '../api/usage';
import { agentLabels, dayLabel, formatSpend, isUsageEmpty, usageColumnRows, usageSummary } from './usage-chart';

const usage: Usage = {
  from: '2026-03-08',
  to: '2026-03-10',
  total: 12.5,
  days: [
    { date: '2026-03-08', total: 0, interactions: 0, agents: [] },
    {
      date: '2026-03-09',
      total: 12,
      interactions: 2,
      agents: [
        { agentId: 'a1', agentName: 'Math Tutor', amount: 11.5, interactions: 1 },
        { agentId: 'a2', agentName: 'Essay Coach', amount: 0.5, interactions: 1 },
      ],
    },
    { date: '2026-03-10', total: 0.5, interactions: 1, agents: [{ agentId: 'a2', agentName: 'Essay Coach', amount: 0.5, interactions: 1 }] },
  ],
  agents: [
    { agentId: 'a1', agentName: 'Math Tutor', amount: 11.5, interactions: 1 },
    { agentId: 'a2', agentName: 'Essay Coach', amount: 1, interactions: 2 },
  ],
};

describe('usage chart data', () => {
  it('has every day × agent, zeros included, in the totals order', () => {
    const rows = usageColumnRows(usage);
    expect(rows).toHaveLength(6);
    expect(rows.slice(0, 2)).toEqual([
      { date: '2026-03-08', day: 'Mar 8', agent: 'Math Tutor', amount: 0, dayTotal: 0 },
      { date: '2026-03-08', day: 'Mar 8', agent: 'Essay Coach', amount: 0, dayTotal: 0 },
    ]);
    expect(rows[2]).toEqual({ date: '2026-03-09', day: 'Mar 9', agent: 'Math Tutor', amount: 11.5, dayTotal: 12 });
    expect(rows[5]).toEqual({ date: '2026-03-10', day: 'Mar 10', agent: 'Essay Coach', amount: 0.5, dayTotal: 0.5 });
  });

  it('keeps the axis when nobody spent anything', () => {
    const empty: Usage = { ...usage, total: 0, agents: [], days: usage.days.map((d) => ({ ...d, total: 0, interactions: 0, agents: [] })) };
    expect(isUsageEmpty(empty)).toBe(true);
    expect(isUsageEmpty(usage)).toBe(false);
    expect(usageColumnRows(empty).map((r) => r.date)).toEqual(['2026-03-08', '2026-03-09', '2026-03-10']);
  });

  it('tells two agents with the same name apart', () => {
    const twins: Usage = {
      ...usage,
      agents: [
        { agentId: 'abcdef123', agentName: 'Tutor', amount: 1, interactions: 1 },
        { agentId: 'zyxwvu987', agentName: 'Tutor', amount: 1, interactions: 1 },
      ],
      days: [],
    };
    expect([...agentLabels(twins).values()]).toEqual(['Tutor (abcdef)', 'Tutor (zyxwvu)']);
  });

  it('formats amounts, days and the summary', () => {
    expect(formatSpend(12.5)).toBe('$12.50');
    expect(formatSpend(0)).toBe('$0.00');
    expect(formatSpend(0.000901)).toBe('$0.0009');
    // Below $0.0001: more digits, never '$0.0000' (issue 29).
    expect(formatSpend(0.00004)).toBe('$0.00004');
    expect(formatSpend(0.000001)).toBe('$0.000001');
    expect(dayLabel('2026-03-09')).toBe('Mar 9');
    expect(dayLabel('nope')).toBe('nope');
    expect(usageSummary(usage)).toBe(
      'Spend per day for the last 3 days, stacked by agent. Total $12.50: Math Tutor $11.50, Essay Coach $1.00.',
    );
  });
});
