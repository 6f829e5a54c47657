import { describe, expect, it } from 'vitest';
import { readUsage } from './usage';

describe('readUsage', () => {
  it('reads the analytics body', () => {
    const body = {
      from: '2026-03-09',
      to: '2026-03-10',
      total: 1.5,
      fees: 0,
      days: [
        { date: '2026-03-09', total: 1.5, interactions: 2, agents: [{ agentId: 'a1', agentName: 'Tutor', amount: 1.5, interactions: 2, fees: 0 }] },
        { date: '2026-03-10', total: 0, interactions: 0, agents: [] },
      ],
      agents: [{ agentId: 'a1', agentName: 'Tutor', amount: 1.5, interactions: 2, fees: 0 }],
    };
    expect(readUsage(body)).toEqual(body);
  });

  it('tolerates missing fields and names', () => {
    expect(readUsage({ days: [{ date: '2026-03-09', agents: [{ agentId: 'x' }] }, { date: 'bad' }] })).toEqual({
      from: '2026-03-09',
      to: '2026-03-09',
      total: 0,
      fees: 0,
      days: [
        { date: '2026-03-09', total: 0, interactions: 0, agents: [{ agentId: 'x', agentName: 'Unknown agent', amount: 0, interactions: 0, fees: 0 }] },
      ],
      agents: [],
    });
  });

  it('throws on anything else', () => {
    expect(() => readUsage(undefined)).toThrow('Invalid usage response');
    expect(() => readUsage({ success: true, data: { items: [] } })).toThrow('Invalid usage response');
  });
});

describe('readUsage fees', () => {
  it('reads the agent fees apart (0 when an older server does not say)', () => {
    const u = readUsage({
      from: '2026-03-09',
      to: '2026-03-09',
      total: 10.5,
      fees: 10,
      days: [{ date: '2026-03-09', total: 10.5, interactions: 1, agents: [{ agentId: 'a1', agentName: 'T', amount: 10.5, interactions: 1, fees: 10 }] }],
      agents: [{ agentId: 'a1', agentName: 'T', amount: 10.5, interactions: 1, fees: 10 }],
    });
    expect(u.fees).toBe(10);
    expect(u.agents[0]!.fees).toBe(10);
    const old = readUsage({ days: [], agents: [{ agentId: 'a1', agentName: 'T', amount: 1, interactions: 1 }] });
    expect(old.fees).toBe(0);
    expect(old.agents[0]!.fees).toBe(0);
  });
});
