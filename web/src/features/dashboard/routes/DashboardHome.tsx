import { UserDataGate } from '@/components/UserDataGate';
import { usePageTitle } from '@/components/usePageTitle';
import { useAuth } from '@/features/auth';
import { getDisplayLabel } from '@/features/dashboard-layout/lib/user-display';

/** Dashboard home placeholder (stats and activity come with a later issue). */
export function DashboardHome() {
  usePageTitle('Dashboard');
  const { user } = useAuth();
  return (
    <UserDataGate>
      <section className="page">
        <h1 className="page__title">Dashboard</h1>
        <p className="page__lead">Welcome back, {getDisplayLabel(user)}!</p>
      </section>
    </UserDataGate>
  );
}

export default DashboardHome;
