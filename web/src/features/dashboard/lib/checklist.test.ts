import { afterEach, describe, expect, it } from 'vitest';
import { checklistDismissedKey, checklistSteps, readDismissed, writeDismissed } from './checklist';

const done = (steps: ReturnType<typeof checklistSteps>) => steps.filter((s) => s.done).map((s) => s.id);

describe('checklistSteps', () => {
  it('a new user: four steps in order, none done, each with a link', () => {
    const steps = checklistSteps({ agentIds: [], stats: { agentCount: 0, totalInteractions: 0 }, activities: [], balance: { balance: 0, monthUsage: 0 } });
    expect(steps.map((s) => s.label)).toEqual(['Create an agent', 'Link and share a document', 'Ask it a question', 'Add funds']);
    expect(done(steps)).toEqual([]);
    expect(steps.map((s) => s.href)).toEqual(['/dashboard/agentic-users', '/dashboard/agentic-users', '/dashboard/agentic-users', '/dashboard/wallet']);
  });

  it('ticks each step off from existing data', () => {
    expect(done(checklistSteps({ agentIds: ['a1'] }))).toEqual(['agent']);
    expect(done(checklistSteps({ stats: { agentCount: 2, totalInteractions: 0 } }))).toEqual(['agent']);
    expect(done(checklistSteps({ documentShared: true }))).toEqual(['document']);
    expect(done(checklistSteps({ activities: [{ activityType: 'upload' }] }))).toEqual(['document']);
    expect(done(checklistSteps({ stats: { agentCount: 0, totalInteractions: 3 } }))).toEqual(['question']);
    expect(done(checklistSteps({ activities: [{ activityType: 'response' }] }))).toEqual(['question']);
    expect(done(checklistSteps({ balance: { balance: 5, monthUsage: 0 } }))).toEqual(['funds']);
    expect(done(checklistSteps({ balance: { balance: 0, monthUsage: 0.0003 } }))).toEqual(['funds']);
  });

  it("links the document and question steps to the first agent's tabs", () => {
    const steps = checklistSteps({ agentIds: ['a 1', 'a2'] });
    expect(steps[1]!.href).toBe('/dashboard/agentic-users/a%201/instructions');
    expect(steps[2]!.href).toBe('/dashboard/agentic-users/a%201/chat');
  });
});

describe('dismissed', () => {
  afterEach(() => localStorage.clear());
  it('is remembered per user', () => {
    expect(readDismissed('u1')).toBe(false);
    writeDismissed('u1');
    expect(readDismissed('u1')).toBe(true);
    expect(readDismissed('u2')).toBe(false);
    expect(readDismissed(undefined)).toBe(false);
    expect(localStorage.getItem(checklistDismissedKey('u1'))).toBe('1');
  });
});
