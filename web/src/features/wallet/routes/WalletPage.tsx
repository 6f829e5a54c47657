import { Link } from 'react-router';
import { UserDataGate } from '@/components/UserDataGate';
import { usePageTitle } from '@/components/usePageTitle';

/** Wallet placeholder, used at /dashboard/wallet (in the layout) and /wallet (standalone). */
export function WalletPage({ standalone = false }: { standalone?: boolean }) {
  usePageTitle('Wallet');
  const content = (
    <UserDataGate>
      <section className="page">
        {standalone && (
          <p>
            <Link to="/dashboard">← Back to dashboard</Link>
          </p>
        )}
        <h1 className="page__title">Wallet</h1>
        <p className="page__lead">Your prepaid balance funds your agents' interactions, pay as you go.</p>
      </section>
    </UserDataGate>
  );
  return standalone ? <main className="standalone-main">{content}</main> : content;
}

export function StandaloneWalletPage() {
  return <WalletPage standalone />;
}

export default WalletPage;
