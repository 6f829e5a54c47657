import { describe, expect, it } from 'vitest';
import { filterAgents, filterSubscribers } from './filter-agents';

const agents = [
  { name: 'Physics Tutor', description: 'Helps students with homework', category: 'Education' },
  { name: 'ISO Writer', description: 'Writes ISO 27001 documents', category: 'Compliance' },
  { name: 'Docs Bot', description: 'Product documentation', category: 'Technical Writing' },
];

describe('filterAgents', () => {
  it('keeps everything for a blank query', () => {
    expect(filterAgents(agents, '')).toHaveLength(3);
    expect(filterAgents(agents, '   ')).toHaveLength(3);
  });

  it('matches the name, description or category case-insensitively', () => {
    expect(filterAgents(agents, 'physics').map((a) => a.name)).toEqual(['Physics Tutor']);
    expect(filterAgents(agents, 'iso 27001').map((a) => a.name)).toEqual(['ISO Writer']);
    expect(filterAgents(agents, 'TECHNICAL').map((a) => a.name)).toEqual(['Docs Bot']);
    expect(filterAgents(agents, 'doc').map((a) => a.name)).toEqual(['ISO Writer', 'Docs Bot']);
  });

  it('returns nothing when no field matches', () => {
    expect(filterAgents(agents, 'chemistry')).toEqual([]);
  });
});

describe('filterSubscribers', () => {
  const subscribers = [
    { name: 'Ada Lovelace', email: 'ada@example.com' },
    { name: 'Alan Turing', email: 'alan@computing.org' },
  ];
  it('matches the name or e-mail case-insensitively', () => {
    expect(filterSubscribers(subscribers, 'LOVE')).toEqual([subscribers[0]]);
    expect(filterSubscribers(subscribers, 'computing')).toEqual([subscribers[1]]);
    expect(filterSubscribers(subscribers, '')).toEqual(subscribers);
    expect(filterSubscribers(subscribers, 'grace')).toEqual([]);
  });
});
