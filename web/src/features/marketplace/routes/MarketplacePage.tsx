import { usePageTitle } from '@/components/usePageTitle';

/** Marketplace teaser placeholder (a later issue adds the chips and interest registration). */
export function MarketplacePage() {
  usePageTitle('Marketplace');
  return (
    <section className="page">
      <h1 className="page__title">Marketplace Coming Soon</h1>
      <p className="page__lead">Browse and use expert agents published by creators.</p>
    </section>
  );
}

export default MarketplacePage;
