/**
 * GET /api/usage (analytics; docs/billing-api.md): what the signed-in user spent per day and per agent.
 * The default range is the last 30 days up to today (UTC), every day present (zeros included).
 * Shared by the wallet's Usage chart and the dashboard's Interactions chart.
 */
import { useQuery } from '@tanstack/react-query';

export const USAGE_PATH = '/api/usage';
/** The last 30 days (the service's default range), each day split by agent. */
export const USAGE_LAST_30_DAYS_URL = `${USAGE_PATH}?groupBy=day`;
/** Query key (the default query fn GETs the first element); the uid keeps users apart. */
export const usageKey = (uid: string | undefined) => [USAGE_LAST_30_DAYS_URL, uid] as const;
/** Client cache window of the usage series. */
export const USAGE_STALE_TIME_MS = 30_000;

export interface AgentUsage {
  agentId: string;
  agentName: string;
  /** Dollars (answers and the agent's monthly fees). */
  amount: number;
  interactions: number;
  /** Dollars: the part of amount that is the agent's monthly fee (readUsage gives 0 for older servers). */
  fees?: number;
}

export interface UsageDay {
  /** YYYY-MM-DD (UTC day). */
  date: string;
  /** Dollars. */
  total: number;
  interactions: number;
  agents: AgentUsage[];
}

export interface Usage {
  from: string;
  to: string;
  /** Dollars spent in the range. */
  total: number;
  /** Dollars: the part of total that is monthly agent fees (readUsage gives 0 for older servers). */
  fees?: number;
  days: UsageDay[];
  agents: AgentUsage[];
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function num(value: unknown): number {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : 0;
}

function readAgents(value: unknown): AgentUsage[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((a): a is Record<string, unknown> => typeof a === 'object' && a !== null)
    .map((a) => ({
      agentId: typeof a.agentId === 'string' ? a.agentId : '',
      agentName: typeof a.agentName === 'string' && a.agentName !== '' ? a.agentName : 'Unknown agent',
      amount: num(a.amount),
      interactions: num(a.interactions),
      fees: num(a.fees),
    }));
}

/** Reads the bare Usage body; throws when it is not one (so the chart shows its error state). */
export function readUsage(body: unknown): Usage {
  const u = body as Partial<Record<keyof Usage, unknown>> | null | undefined;
  if (!u || typeof u !== 'object' || !Array.isArray(u.days)) {
    throw new Error('Invalid usage response');
  }
  const days = u.days
    .filter((d): d is Record<string, unknown> => typeof d === 'object' && d !== null && typeof d.date === 'string' && DATE.test(d.date))
    .map((d) => ({
      date: d.date as string,
      total: num(d.total),
      interactions: num(d.interactions),
      agents: readAgents(d.agents),
    }));
  return {
    from: typeof u.from === 'string' ? u.from : (days[0]?.date ?? ''),
    to: typeof u.to === 'string' ? u.to : (days[days.length - 1]?.date ?? ''),
    total: num(u.total),
    fees: num((u as { fees?: unknown }).fees),
    days,
    agents: readAgents(u.agents),
  };
}

/** The last 30 days of usage for `uid`, read with readUsage; asked only while `enabled` and signed in. */
export function useUsage(uid: string | undefined, enabled = true) {
  return useQuery({
    queryKey: usageKey(uid),
    select: readUsage,
    enabled: enabled && Boolean(uid),
    staleTime: USAGE_STALE_TIME_MS,
  });
}
