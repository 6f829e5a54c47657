import { useMemo, useState } from 'react';
import { toast } from '@/components/toast';
import { errorText, useTransferToWallet } from '../api/earnings';
import { toDollars, transferSchema } from '../lib/schemas';
import { EARNINGS_TEXTS as T } from '../lib/texts';
import type { Earnings } from '../types';
import { AmountForm } from './AmountForm';

/** Move available earnings into the wallet (to pay the agents' fees and usage). */
export function TransferCard({ earnings }: { earnings: Earnings }) {
  const transfer = useTransferToWallet();
  const [serverError, setServerError] = useState<string | undefined>();
  const schema = useMemo(() => transferSchema(earnings.available), [earnings.available]);

  return (
    <section className="earnings-card" aria-labelledby="earnings-transfer-title">
      <h2 id="earnings-transfer-title" className="earnings-card__title">
        {T.transferTitle}
      </h2>
      <p className="earnings-muted">{T.transferLead}</p>
      <AmountForm
        label={T.transferAmount}
        submitLabel={T.transfer}
        schema={schema}
        busy={transfer.isPending}
        serverError={serverError}
        onEdit={() => setServerError(undefined)}
        onValid={(amount) => {
          setServerError(undefined);
          transfer.mutate(toDollars(amount), {
            onSuccess: (result) =>
              toast({ title: T.transferred, description: T.transferredText(result?.transferred ?? amount, result?.balance ?? 0) }),
            onError: (error) => {
              const message = errorText(error, 'The transfer failed. Please try again.');
              setServerError(message);
              toast({ title: T.transferFailed, description: message, variant: 'destructive', error });
            },
          });
        }}
      />
    </section>
  );
}
