/**
 * GET /api/user/agent-fees (wallet; docs/billing-api.md): the signed-in user's agents whose monthly fee
 * ($10.00 per 30-day period) is paid for now, or due and unpaid (the agent is paused and refuses answers
 * until funds are added). An agent that never answered, or whose period lapsed unused, is not listed.
 * Used by the agent editor ("Paused: add funds to resume", "Monthly fee paid until …").
 */
import { useQuery } from '@tanstack/react-query';

export const AGENT_FEES_PATH = '/api/user/agent-fees';
/** Query key (the default query fn GETs the first element); the uid keeps users apart. */
export const agentFeesKey = (uid: string | undefined) => [AGENT_FEES_PATH, uid] as const;

export type AgentFeeStatus = 'paid' | 'paused';

export interface AgentFee {
  agentId: string;
  agentName: string;
  /** RFC 3339 UTC: the current (or last paid) 30-day period. */
  periodStart: string;
  /** RFC 3339 UTC: the end of that period (exclusive). */
  periodEnd: string;
  status: AgentFeeStatus;
}

/** Reads `{"success": true, "data": AgentFee[]}`; throws when the body is not one (entries without an id are skipped). */
export function readAgentFees(body: unknown): AgentFee[] {
  const data = (body as { data?: unknown } | null | undefined)?.data;
  if (!body || typeof body !== 'object' || Array.isArray(body) || !Array.isArray(data)) {
    throw new Error('Invalid agent fees response');
  }
  return data
    .filter((f): f is Record<string, unknown> => typeof f === 'object' && f !== null)
    .filter((f) => typeof f.agentId === 'string' && f.agentId !== '')
    .map((f) => ({
      agentId: f.agentId as string,
      agentName: typeof f.agentName === 'string' ? f.agentName : '',
      periodStart: typeof f.periodStart === 'string' ? f.periodStart : '',
      periodEnd: typeof f.periodEnd === 'string' ? f.periodEnd : '',
      // Anything but an explicit 'paused' is not a reason to tell the owner the agent is stopped.
      status: f.status === 'paused' ? 'paused' : 'paid',
    }));
}

/** The fee entry of one agent, or undefined when it is not listed (never answered, or lapsed unused). */
export function agentFeeOf(fees: readonly AgentFee[] | undefined, agentId: string): AgentFee | undefined {
  return fees?.find((f) => f.agentId === agentId);
}

/**
 * The user's agent fees. Refetched whenever a component using it mounts (stale at once), since an answer,
 * a renewal or a top-up can change them at any time; a failure simply yields no data.
 */
export function useAgentFees(uid: string | undefined, enabled = true) {
  return useQuery({
    queryKey: agentFeesKey(uid),
    select: readAgentFees,
    enabled: Boolean(uid) && enabled,
    staleTime: 0,
  });
}
