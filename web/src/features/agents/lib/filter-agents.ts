import type { Agent } from '../types';

/**
 * The agent list search (spec "Agent list"): case-insensitive match of the query on the
 * name, description or category. A blank query keeps every agent.
 */
export function filterAgents<T extends Pick<Agent, 'name' | 'description' | 'category'>>(
  agents: readonly T[],
  query: string,
): T[] {
  const q = query.trim().toLowerCase();
  if (!q) return [...agents];
  return agents.filter((agent) =>
    [agent.name, agent.description, agent.category].some((field) => (field ?? '').toLowerCase().includes(q)),
  );
}

/** The Users tab search: case-insensitive match on the subscriber's name or e-mail. */
export function filterSubscribers<T extends { name: string; email: string }>(subscribers: readonly T[], query: string): T[] {
  const q = query.trim().toLowerCase();
  if (!q) return [...subscribers];
  return subscribers.filter((s) => (s.name ?? '').toLowerCase().includes(q) || (s.email ?? '').toLowerCase().includes(q));
}
