import { format } from 'date-fns';
import { UserDataGate } from '@/components/UserDataGate';
import { usePageTitle } from '@/components/usePageTitle';
import { useAuth } from '@/features/auth';
import { BalanceNotices, useBalanceDetails } from '@/features/wallet';
import { useActivities, useDashboardStats } from '../api/dashboard';
import { FirstRunChecklist } from '../components/FirstRunChecklist';
import { InteractionsCard } from '../components/InteractionsCard';
import { RecentActivity } from '../components/RecentActivity';
import { StatCards, StatCardsSkeleton } from '../components/StatCards';
import '../components/dashboard.css';

export const STATS_ERROR_MESSAGE = 'Failed to load dashboard statistics';

function DashboardContent() {
  const { user, loading, profileLoading, error } = useAuth();
  // Spec §4 "Dashboard data": only once a user exists and user loading, profile loading and its error are all finished.
  const ready = Boolean(user) && !loading && !profileLoading && !error;
  const stats = useDashboardStats(ready);
  const activities = useActivities(ready);
  // Billing notices (low balance, monthly limit, debt, auto-recharge problems) from the wallet's balance.
  const balance = useBalanceDetails(user?.uid, ready);
  const updatedAt = stats.dataUpdatedAt ? new Date(stats.dataUpdatedAt) : new Date();

  return (
    <section className="page dashboard">
      <div className="dashboard__header">
        <h1 className="page__title">Dashboard</h1>
        <p className="dashboard__updated">Last updated: {format(updatedAt, 'MM/dd/yyyy, h:mm:ss a')}</p>
      </div>
      <BalanceNotices balance={balance.data} autoRecharge />
      {ready && (
        <FirstRunChecklist
          uid={user?.uid}
          stats={stats.data}
          activities={Array.isArray(activities.data) ? activities.data : undefined}
          balance={balance.data}
        />
      )}
      {stats.isError ? (
        <p className="dashboard__error" role="alert">
          {STATS_ERROR_MESSAGE}
        </p>
      ) : stats.data ? (
        <StatCards stats={stats.data} />
      ) : (
        <StatCardsSkeleton />
      )}
      <InteractionsCard uid={user?.uid} enabled={ready} />
      <RecentActivity
        activities={Array.isArray(activities.data) ? activities.data : undefined}
        loading={activities.isPending && !activities.isError}
        failed={activities.isError}
      />
    </section>
  );
}

/**
 * Dashboard home (/dashboard): stat cards, 'Last updated:', Recent Activity (spec "Dashboard home"), plus
 * the billing notices and the Interactions chart (docs/analytics.md).
 */
export function DashboardHome() {
  usePageTitle('Dashboard');
  return (
    <UserDataGate>
      <DashboardContent />
    </UserDataGate>
  );
}

export default DashboardHome;
