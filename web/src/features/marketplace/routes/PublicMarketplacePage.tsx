import { usePageTitle } from '@/components/usePageTitle';
import { MarketplaceBrowser } from '../components/MarketplaceBrowser';
import { PublicLayout } from '../components/PublicLayout';
import { MARKETPLACE_LEAD } from '../lib/texts';

/** /marketplace: the public marketplace (no sign-in), outside the dashboard layout. */
export function PublicMarketplacePage() {
  usePageTitle('Marketplace');
  return (
    <PublicLayout>
      <section className="mp-page" aria-labelledby="marketplace-title">
        <h1 id="marketplace-title" className="mp-page__title">
          Marketplace
        </h1>
        <p className="mp-page__lead">{MARKETPLACE_LEAD}</p>
        <MarketplaceBrowser />
      </section>
    </PublicLayout>
  );
}

export default PublicMarketplacePage;
