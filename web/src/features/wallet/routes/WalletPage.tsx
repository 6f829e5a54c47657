import { ArrowLeftOutlined } from '@ant-design/icons';
import { Link } from 'react-router';
import { UserDataGate } from '@/components/UserDataGate';
import { usePageTitle } from '@/components/usePageTitle';
import { useAuth } from '@/features/auth';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { billingSettingsKey } from '../api/spend-controls';
import { AddFundsCard } from '../components/AddFundsCard';
import { BalanceCard } from '../components/BalanceCard';
import { BalanceNotices } from '../components/BalanceNotices';
import { SpendControlsCard } from '../components/SpendControlsCard';
import { TransactionHistory } from '../components/TransactionHistory';
import { UsageCard } from '../components/UsageCard';
import { useBalanceDetails } from '../hooks/use-balance-details';
import { usePaymentReturn } from '../hooks/use-payment-return';
import { useSetupReturn } from '../hooks/use-setup-return';
import { useWalletData } from '../hooks/use-wallet-data';
import '../wallet.css';

/**
 * The wallet (spec §2 "Wallet screen"): balance, Add Funds (Stripe Checkout), transaction history; plus
 * the billing notices, the Usage chart and the spend controls (docs/web-wallet.md).
 */
function WalletScreen({ standalone }: { standalone: boolean }) {
  const { user } = useAuth();
  const uid = user?.uid;
  const wallet = useWalletData(uid);
  const details = useBalanceDetails(uid);
  const queryClient = useQueryClient();
  usePaymentReturn(wallet.refresh, Boolean(user));
  const { refetch: refetchDetails } = details;
  const refreshAfterCardSetup = useCallback(async () => {
    void queryClient.invalidateQueries({ queryKey: billingSettingsKey(uid) });
    const result = await refetchDetails();
    return result.data?.autoRecharge?.hasCard === true;
  }, [queryClient, refetchDetails, uid]);
  useSetupReturn(refreshAfterCardSetup, Boolean(user));
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
      <BalanceNotices balance={details.data} />
      <div className="wallet__grid">
        <BalanceCard balance={wallet.balance} onRefresh={wallet.refresh} />
        <AddFundsCard />
        <UsageCard uid={uid} />
        <SpendControlsCard uid={uid} balance={details.data} />
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
