import { Outlet } from 'react-router';
import { LoadingSpinner } from '@/components/LoadingSpinner';
import { NotFound } from '@/components/NotFound';
import { useMarketplaceSwitch } from '../api/use-marketplace-enabled';

/**
 * The public marketplace routes (/marketplace, /marketplace/:slug, …) exist only while the marketplace is on:
 * a spinner while the switch is asked, then the page, or the spec's not-found screen (off, or the question
 * failed).
 */
export function MarketplaceGate() {
  const { enabled, known } = useMarketplaceSwitch();
  if (!known) return <LoadingSpinner />;
  return enabled ? <Outlet /> : <NotFound />;
}

export default MarketplaceGate;
