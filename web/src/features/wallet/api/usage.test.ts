import { describe, expect, it } from 'vitest';
import { readUsage } from './usage';

describe('readUsage', () => {
  it('reads the analytics body', () => {
    const body = {
      from: '2026-03-09',
      to: '2026-03-10',
      total: 1.5,
      days: [
        { date: '2026-03-09', total: 1.5, interactions: 2, agents: [{ agentId: 'a1', agentName: 'Tutor', amount: 1.5, interactions: 2 }] },
        { date: '2026-03-10', total: 0, interactions: 0, agents: [] },
      ],
      agents: [{ agentId: 'a1', agentName: 'Tutor', amount: 1.5, interactions: 2 }],
    };
    expect(readUsage(body)).toEqual(body);
  });

  it('tolerates missing fields and names', () => {
    expect(readUsage({ days: [{ date: '2026-03-09', agents: [{ agentId: 'x' }] }, { date: 'bad' }] })).toEqual({
      from: '2026-03-09',
      to: '2026-03-09',
      total: 0,
      days: [
        { date: '2026-03-09', total: 0, interactions: 0, agents: [{ agentId: 'x', agentName: 'Unknown agent', amount: 0, interactions: 0 }] },
      ],
      agents: [],
    });
  });

  it('throws on anything else', () => {
    expect(() => readUsage(undefined)).toThrow('Invalid usage response');
    expect(() => readUsage({ success: true, data: { items: [] } })).toThrow('Invalid usage response');
  });
});
