import { Outlet } from 'react-router';
import { LoadingSpinner } from '@/components/LoadingSpinner';
import { NotFound } from '@/components/NotFound';
import { useAuth } from '@/features/auth';
import { useMarketplaceSwitch } from '../api/use-marketplace-enabled';

/**
 * The public marketplace routes (/marketplace, /marketplace/:slug, …) exist only while the marketplace is on:
 * a spinner while the switch is asked, then the page, or the spec's not-found screen (off, or the question
 * failed).
 *
 * The pages wait for the session to be restored and are mounted afresh for each user: the query cache is
 * scoped to the signed-in user and dropped when that changes (lib/query-client), which would otherwise
 * cancel a page's request in flight and leave it loading for good on a signed-in full page load.
 */
export function MarketplaceGate() {
  const { enabled, known } = useMarketplaceSwitch();
  const { user, loading } = useAuth();
  if (!known || loading) return <LoadingSpinner />;
  return enabled ? <Outlet key={user?.uid ?? 'signed-out'} /> : <NotFound />;
}

export default MarketplaceGate;
