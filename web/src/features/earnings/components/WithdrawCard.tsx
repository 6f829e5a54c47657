import { Modal } from 'antd';
import { useMemo, useState } from 'react';
import { toast } from '@/components/toast';
import { errorText, useWithdraw } from '../api/earnings';
import { toDollars, withdrawSchema } from '../lib/schemas';
import { EARNINGS_TEXTS as T } from '../lib/texts';
import type { Earnings } from '../types';
import { AmountForm } from './AmountForm';

/** Withdraw available earnings (≥ the minimum) to the payout account, after a confirmation stating the amount. */
export function WithdrawCard({ earnings }: { earnings: Earnings }) {
  const withdraw = useWithdraw();
  const [confirming, setConfirming] = useState<number | null>(null);
  const [serverError, setServerError] = useState<string | undefined>();
  const schema = useMemo(
    () => withdrawSchema(earnings.available, earnings.minimumWithdrawal),
    [earnings.available, earnings.minimumWithdrawal],
  );

  const confirm = () => {
    if (confirming === null) return;
    const amount = confirming;
    withdraw.mutate(amount, {
      onSuccess: () => {
        setConfirming(null);
        toast({ title: T.withdrawn, description: T.withdrawnText(amount) });
      },
      onError: (error) => {
        setConfirming(null);
        const message = errorText(error, 'The payout could not be started. Please try again.');
        setServerError(message);
        toast({ title: T.withdrawFailed, description: message, variant: 'destructive', error });
      },
    });
  };

  return (
    <section className="earnings-card" aria-labelledby="earnings-withdraw-title">
      <h2 id="earnings-withdraw-title" className="earnings-card__title">
        {T.withdrawTitle}
      </h2>
      <p className="earnings-muted">{T.withdrawHint(earnings.minimumWithdrawal)}</p>
      {earnings.payoutAccount.status !== 'enabled' && <p className="earnings-muted">{T.withdrawNotEnabled}</p>}
      <AmountForm
        label={T.withdrawAmount}
        submitLabel={T.withdraw}
        schema={schema}
        busy={withdraw.isPending}
        serverError={serverError}
        onEdit={() => setServerError(undefined)}
        onValid={(amount) => {
          setServerError(undefined);
          setConfirming(toDollars(amount));
        }}
      />
      <Modal
        open={confirming !== null}
        title={confirming !== null ? T.confirmTitle(confirming) : T.withdraw}
        okText={confirming !== null ? T.confirmOk(confirming) : T.withdraw}
        cancelText={T.cancel}
        onOk={confirm}
        onCancel={() => !withdraw.isPending && setConfirming(null)}
        confirmLoading={withdraw.isPending}
        destroyOnHidden
      >
        <p>{confirming !== null ? T.confirmText(confirming) : ''}</p>
      </Modal>
    </section>
  );
}
