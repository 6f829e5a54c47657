import { Navigate, Outlet, useLocation } from 'react-router';
import { LoadingSpinner } from '@/components/LoadingSpinner';
import { useAuth } from '../auth-context';

/**
 * Spinner while the user loads; redirect to /auth when signed out; else the child routes.
 * A signed-in identity whose profile failed to load (spec §8 "Onboarding failure") is not
 * signed out: the page renders and shows 'Error loading user data: {message}' itself.
 */
export function ProtectedRoute() {
  const { user, loading, error } = useAuth();
  const location = useLocation();

  if (loading) return <LoadingSpinner />;
  if (!user && !error) return <Navigate to="/auth" replace state={{ from: location.pathname }} />;
  return <Outlet />;
}
