import type { Agent } from '@/features/agents';

/** A listed marketplace agent of the owner: public and published (it has a slug or a publish date). */
export function isListed(agent: Pick<Agent, 'isPublic' | 'slug' | 'publishedAt'>): boolean {
  return agent.isPublic && Boolean(agent.slug || agent.publishedAt);
}

export function hasListedAgent(agents: readonly Pick<Agent, 'isPublic' | 'slug' | 'publishedAt'>[] | undefined): boolean {
  // Anything but a list (an unexpected answer) counts as none.
  return Array.isArray(agents) && agents.some((a) => Boolean(a) && isListed(a));
}
