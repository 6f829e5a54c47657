import { BankOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useState } from 'react';
import { toast } from '@/components/toast';
import { redirectTo } from '@/features/wallet';
import { errorText, useAccountLink } from '../api/earnings';
import { EARNINGS_TEXTS as T, payoutAccountAction, payoutAccountText } from '../lib/texts';
import type { PayoutAccount } from '../types';

/** The payout account's state and the Set up payouts / Continue setup button (Stripe's hosted onboarding). */
export function PayoutAccountCard({ account }: { account: PayoutAccount }) {
  const link = useAccountLink();
  const [leaving, setLeaving] = useState(false);
  const action = payoutAccountAction(account.status);

  const start = () =>
    link.mutate(undefined, {
      onSuccess: (body) => {
        if (!body?.url) {
          toast({ title: T.linkFailed, variant: 'destructive' });
          return;
        }
        setLeaving(true);
        redirectTo(body.url);
      },
      onError: (error) =>
        toast({ title: T.linkFailed, description: errorText(error, 'Please try again.'), variant: 'destructive', error }),
    });

  return (
    <section className="earnings-card" aria-labelledby="earnings-account-title">
      <h2 id="earnings-account-title" className="earnings-card__title">
        {T.payoutTitle}
      </h2>
      <p className="earnings-account__state" data-testid="payout-account-state" data-status={account.status}>
        <BankOutlined aria-hidden="true" /> {payoutAccountText(account.status, account.reason)}
      </p>
      {action && (
        <Button type="primary" onClick={start} loading={link.isPending || leaving}>
          {action}
        </Button>
      )}
    </section>
  );
}
