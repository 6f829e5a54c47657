import { formatMoney } from '@/features/wallet';
import { EARNINGS_TEXTS as T, holdText } from '../lib/texts';
import type { Earnings } from '../types';

/** Pending, available, in transit and paid out, with the hold explained. */
export function EarningsSummary({ earnings }: { earnings: Earnings }) {
  const items = [
    { key: 'pending', label: T.pending, value: earnings.pending },
    { key: 'available', label: T.available, value: earnings.available },
    { key: 'in-transit', label: T.inTransit, value: earnings.inTransit },
    { key: 'paid-out', label: T.paidOut, value: earnings.paidOut },
  ];
  return (
    <section className="earnings-card" aria-label={T.summaryLabel}>
      <dl className="earnings-summary">
        {items.map((item) => (
          <div key={item.key} className="earnings-summary__item">
            <dt className="earnings-summary__label">{item.label}</dt>
            <dd className="earnings-summary__value" data-testid={`earnings-${item.key}`}>
              {formatMoney(item.value)}
            </dd>
          </div>
        ))}
      </dl>
      <p className="earnings-hold" data-testid="earnings-hold">
        {holdText(earnings.holdSeconds)}
      </p>
    </section>
  );
}
