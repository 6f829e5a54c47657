import { describe, expect, it } from 'vitest';
import { agentFeeOf, agentFeesKey, readAgentFees } from './agent-fees';

describe('readAgentFees', () => {
  it('reads the wallet body', () => {
    const data = [
      { agentId: 'a1', agentName: 'Math Tutor', periodStart: '2026-01-01T00:00:00Z', periodEnd: '2026-01-31T00:00:00Z', status: 'paid' },
      { agentId: 'a2', agentName: 'Essay Coach', periodStart: '2025-12-01T00:00:00Z', periodEnd: '2025-12-31T00:00:00Z', status: 'paused' },
    ];
    expect(readAgentFees({ success: true, data })).toEqual(data);
  });

  it('skips entries without an id and reads anything but "paused" as paid', () => {
    expect(readAgentFees({ data: [null, 7, { agentName: 'x' }, { agentId: 'a3', status: 'weird' }] })).toEqual([
      { agentId: 'a3', agentName: '', periodStart: '', periodEnd: '', status: 'paid' },
    ]);
  });

  it('throws on a body that is not the envelope', () => {
    expect(() => readAgentFees([{ agentId: 'a1' }])).toThrow('Invalid agent fees response');
    expect(() => readAgentFees({ success: true })).toThrow('Invalid agent fees response');
    expect(() => readAgentFees(null)).toThrow('Invalid agent fees response');
  });

  it('finds one agent and keys the query by user', () => {
    const fees = readAgentFees({ data: [{ agentId: 'a1', status: 'paused' }] });
    expect(agentFeeOf(fees, 'a1')?.status).toBe('paused');
    expect(agentFeeOf(fees, 'a2')).toBeUndefined();
    expect(agentFeeOf(undefined, 'a1')).toBeUndefined();
    expect(agentFeesKey('u1')).toEqual(['/api/user/agent-fees', 'u1']);
  });
});
