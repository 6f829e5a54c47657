import { Alert, Button, Skeleton, Tag } from 'antd';
import { formatMoney, formatTransactionDate } from '@/features/wallet';
import { usePayouts } from '../api/earnings';
import { EARNINGS_TEXTS as T, payoutStatusLabel } from '../lib/texts';

const STATUS_COLORS: Record<string, string> = { in_transit: 'processing', paid: 'success', failed: 'error', reversed: 'warning' };

/** The creator's payouts, newest first, with their status (and why one failed). */
export function PayoutsList({ uid }: { uid: string | undefined }) {
  const payouts = usePayouts(uid);

  let body;
  if (payouts.isPending) {
    body = (
      <div role="status" aria-label={T.payoutsLoading}>
        <Skeleton active paragraph={{ rows: 2 }} />
      </div>
    );
  } else if (payouts.isError) {
    body = (
      <Alert
        type="error"
        showIcon
        title={T.payoutsError}
        action={
          <Button size="small" onClick={() => void payouts.refetch()}>
            {T.tryAgain}
          </Button>
        }
      />
    );
  } else if (payouts.data.length === 0) {
    body = <p className="earnings-muted">{T.payoutsEmpty}</p>;
  } else {
    body = (
      <div className="earnings-table-wrap">
        <table className="earnings-table" aria-labelledby="earnings-payouts-title" data-testid="payouts">
          <thead>
            <tr>
              <th scope="col">{T.dateCol}</th>
              <th scope="col" className="earnings-table__num">
                {T.amountCol}
              </th>
              <th scope="col">{T.statusCol}</th>
            </tr>
          </thead>
          <tbody>
            {payouts.data.map((p) => (
              <tr key={p.id} data-testid="payout-row" data-status={p.status}>
                <td>{formatTransactionDate(p.createdAt)}</td>
                <td className="earnings-table__num">{formatMoney(p.amount)}</td>
                <td>
                  <Tag color={STATUS_COLORS[p.status] ?? 'default'}>{payoutStatusLabel(p.status)}</Tag>
                  {p.failureMessage && <span className="earnings-payout__failure">{p.failureMessage}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );
  }

  return (
    <section className="earnings-card" aria-labelledby="earnings-payouts-title">
      <h2 id="earnings-payouts-title" className="earnings-card__title">
        {T.payoutsTitle}
      </h2>
      {body}
    </section>
  );
}
