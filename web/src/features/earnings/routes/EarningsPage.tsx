import { Alert, Button, Skeleton } from 'antd';
import { usePageTitle } from '@/components/usePageTitle';
import { useAuth } from '@/features/auth';
import { errorText, useEarnings } from '../api/earnings';
import { AgentEarningsTable } from '../components/AgentEarningsTable';
import { EarningsChartCard } from '../components/EarningsChartCard';
import { EarningsSummary } from '../components/EarningsSummary';
import { PayoutAccountCard } from '../components/PayoutAccountCard';
import { PayoutsList } from '../components/PayoutsList';
import { TransferCard } from '../components/TransferCard';
import { WithdrawCard } from '../components/WithdrawCard';
import { usePayoutsReturn } from '../hooks/use-payouts-return';
import { EARNINGS_TEXTS as T } from '../lib/texts';
import '../earnings.css';

/**
 * /dashboard/earnings (issue 28): what the user's listed agents earned (pending, available, in transit, paid out),
 * per day and per agent, the payout account, Withdraw, Move to wallet and the payouts.
 */
export function EarningsPage() {
  usePageTitle(T.title);
  const { user } = useAuth();
  const uid = user?.uid;
  const earnings = useEarnings(uid);
  const returned = usePayoutsReturn();

  let content;
  if (earnings.isPending) {
    content = (
      <div role="status" aria-label={T.loading} className="earnings-card">
        <Skeleton active paragraph={{ rows: 4 }} />
      </div>
    );
  } else if (earnings.isError) {
    content = (
      <Alert
        type="error"
        showIcon
        title={T.loadError}
        description={errorText(earnings.error, '') || undefined}
        action={
          <Button size="small" onClick={() => void earnings.refetch()}>
            {T.tryAgain}
          </Button>
        }
      />
    );
  } else {
    const data = earnings.data;
    content = (
      <>
        <EarningsSummary earnings={data} />
        <EarningsChartCard uid={uid} />
        <AgentEarningsTable rows={data.byAgent} />
        <div className="earnings-grid">
          <PayoutAccountCard account={data.payoutAccount} />
          <WithdrawCard earnings={data} />
          <TransferCard earnings={data} />
        </div>
        <PayoutsList uid={uid} />
      </>
    );
  }

  return (
    <section className="page earnings-page">
      <h1 className="page__title">{T.title}</h1>
      <p className="page__lead">{T.lead}</p>
      {returned && (
        <Alert
          className="earnings-return"
          type={returned === 'return' ? 'info' : 'warning'}
          showIcon
          role="status"
          title={returned === 'return' ? T.returned : T.refreshed}
        />
      )}
      {content}
    </section>
  );
}

export default EarningsPage;
