import { useQuery } from '@tanstack/react-query';
import { AGENTS_QUERY_KEY, fetchAgents } from '@/features/agents';
import { useAuth } from '@/features/auth';
import { hasListedAgent } from '../lib/listed';

/**
 * Whether the signed-in user has a listed marketplace agent (the Earnings link of the navigation shows then).
 * Shares the agents list's cache entry; false while unknown and after a failure.
 */
export function useHasListedAgent(): boolean {
  const { user } = useAuth();
  const agents = useQuery({
    queryKey: AGENTS_QUERY_KEY,
    queryFn: ({ signal }) => fetchAgents(signal),
    enabled: Boolean(user),
    staleTime: 60_000,
  });
  return hasListedAgent(agents.data);
}
