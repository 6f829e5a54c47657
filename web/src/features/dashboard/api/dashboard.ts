/** Dashboard data (spec §3 "Dashboard stats", "Activity"; §7 GET /api/dashboard/stats, GET /api/activities). */
import { useQuery } from '@tanstack/react-query';

export const DASHBOARD_STATS_PATH = '/api/dashboard/stats';
export const ACTIVITIES_PATH = '/api/activities';

/** Query keys: the default query fn GETs the first element (lib/query-client.ts). */
export const dashboardStatsKey = [DASHBOARD_STATS_PATH] as const;
export const activitiesKey = [ACTIVITIES_PATH] as const;

export interface DashboardStats {
  agentCount: number;
  agentGrowth: number;
  /** Integer US cents. */
  totalRevenue: number;
  revenueGrowth: number;
  totalInteractions: number;
  interactionGrowth: number;
  /** Last month's total was 0 and this one is not: shown as "New" rather than "+100%" (absent from older servers). */
  agentNew?: boolean;
  revenueNew?: boolean;
  interactionNew?: boolean;
}

export interface ActivityMetadata {
  details?: string | null;
  documentReferences?: string | null;
  fileType?: string | null;
}

export interface Activity {
  id: string;
  activityType: string;
  description: string;
  createdAt: string;
  metadata?: ActivityMetadata | null;
  agent?: { name?: string | null; iconColor?: string | null } | null;
}

/** The dashboard's statistics (the default query fn GETs them), asked only while `enabled`. */
export function useDashboardStats(enabled: boolean) {
  return useQuery<DashboardStats>({ queryKey: dashboardStatsKey, enabled });
}

/** The recent activities (the default query fn GETs them), asked only while `enabled`. */
export function useActivities(enabled: boolean) {
  return useQuery<Activity[]>({ queryKey: activitiesKey, enabled });
}
