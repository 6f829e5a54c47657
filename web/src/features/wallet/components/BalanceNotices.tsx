import { Alert } from 'antd';
import type { BalanceDetails } from '../api/billing';
import { balanceNotices } from '../lib/notices';

/**
 * Billing notices from the balance response (debt, monthly limit at 80%/100%, low balance and, with
 * `autoRecharge`, auto-recharge problems) as antd Alerts. Renders nothing when all is well.
 */
export function BalanceNotices({ balance, autoRecharge = false }: { balance: BalanceDetails | undefined; autoRecharge?: boolean }) {
  const notices = balanceNotices(balance, { autoRecharge });
  if (notices.length === 0) return null;
  return (
    <div className="billing-notices" aria-label="Billing notices" role="group">
      {notices.map((n) => (
        <Alert
          key={n.kind}
          type={n.type}
          showIcon
          title={n.message}
          description={n.description}
          data-notice={n.kind}
        />
      ))}
    </div>
  );
}
