import { Navigate, Outlet, useLocation } from 'react-router';
import { LoadingSpinner } from '@/components/LoadingSpinner';
import { useAuth } from '../auth-context';

/** Spinner while the user loads; redirect to /auth when signed out; else the child routes. */
export function ProtectedRoute() {
  const { user, loading } = useAuth();
  const location = useLocation();

  if (loading) return <LoadingSpinner />;
  if (!user) return <Navigate to="/auth" replace state={{ from: location.pathname }} />;
  return <Outlet />;
}
