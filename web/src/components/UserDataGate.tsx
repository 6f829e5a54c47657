import type { ReactNode } from 'react';
import { useAuth } from '@/features/auth';
import { LoadingSpinner } from './LoadingSpinner';

/**
 * Screens that need the user's data: a spinner while auth or the profile loads, and
 * 'Error loading user data: {message}' if the profile failed to load.
 */
export function UserDataGate({ children }: { children: ReactNode }) {
  const { loading, profileLoading, error } = useAuth();
  if (loading || profileLoading) return <LoadingSpinner fullPage={false} />;
  if (error) {
    return (
      <p role="alert" className="user-data-error">
        Error loading user data: {error.message}
      </p>
    );
  }
  return <>{children}</>;
}
