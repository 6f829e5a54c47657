import { describe, expect, it } from 'vitest';
import type { Usage } from '@/features/wallet/api/usage';
import { interactionRows, interactionsSummary, totalInteractions } from './interactions-chart';

const usage: Usage = {
  from: '2026-03-08',
  to: '2026-03-10',
  total: 1.5,
  days: [
    { date: '2026-03-08', total: 0, interactions: 0, agents: [] },
    { date: '2026-03-09', total: 1, interactions: 3, agents: [] },
    { date: '2026-03-10', total: 0.5, interactions: 1, agents: [] },
  ],
  agents: [],
};

describe('interactions chart data', () => {
  it('has one row per day, zeros included', () => {
    expect(interactionRows(usage)).toEqual([
      { date: '2026-03-08', day: 'Mar 8', interactions: 0 },
      { date: '2026-03-09', day: 'Mar 9', interactions: 3 },
      { date: '2026-03-10', day: 'Mar 10', interactions: 1 },
    ]);
    expect(totalInteractions(usage)).toBe(4);
  });

  it('summarises for screen readers', () => {
    expect(interactionsSummary(usage)).toBe('Answers per day for the last 3 days: 4 in all; most on Mar 9 (3).');
    expect(interactionsSummary({ ...usage, days: usage.days.map((d) => ({ ...d, interactions: 0 })) })).toBe(
      'Answers per day for the last 3 days: 0 in all.',
    );
  });
});
