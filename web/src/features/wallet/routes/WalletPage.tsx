import { ArrowLeftOutlined } from '@ant-design/icons';
import { Link } from 'react-router';
import { UserDataGate } from '@/components/UserDataGate';
import { usePageTitle } from '@/components/usePageTitle';
import { useAuth } from '@/features/auth';
import { AddFundsCard } from '../components/AddFundsCard';
import { BalanceCard } from '../components/BalanceCard';
import { TransactionHistory } from '../components/TransactionHistory';
import { usePaymentReturn } from '../hooks/use-payment-return';
import { useWalletData } from '../hooks/use-wallet-data';
import '../wallet.css';

/** The wallet (spec §2 "Wallet screen"): balance, Add Funds (Stripe Checkout), transaction history. */
function WalletScreen({ standalone }: { standalone: boolean }) {
  const { user } = useAuth();
  const wallet = useWalletData(user?.uid);
  usePaymentReturn(wallet.refresh, Boolean(user));
  return (
    <section className="page wallet">
      {standalone && (
        <p className="wallet__back">
          <Link to="/dashboard">
            <ArrowLeftOutlined aria-hidden="true" /> Back to dashboard
          </Link>
        </p>
      )}
      <h1 className="page__title">Wallet</h1>
      <p className="page__lead">Your prepaid balance funds your agents' interactions, pay as you go.</p>
      <div className="wallet__grid">
        <BalanceCard balance={wallet.balance} onRefresh={wallet.refresh} />
        <AddFundsCard />
        <TransactionHistory state={wallet.transactions} onLoadMore={wallet.loadMore} />
      </div>
    </section>
  );
}

/** /dashboard/wallet (inside the dashboard layout) and, with `standalone`, /wallet. */
export function WalletPage({ standalone = false }: { standalone?: boolean }) {
  usePageTitle('Wallet');
  const content = (
    <UserDataGate>
      <WalletScreen standalone={standalone} />
    </UserDataGate>
  );
  return standalone ? <main className="standalone-main">{content}</main> : content;
}

export function StandaloneWalletPage() {
  return <WalletPage standalone />;
}

export default WalletPage;
