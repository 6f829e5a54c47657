import { WalletOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useAuth } from '@/features/auth';
import { BALANCE_PATH, formatMoney, selectBalance } from '@/features/wallet';
import { CONSUMER_CHAT_TEXTS as T } from '../lib/texts';
import { formatCents } from '../lib/format';
import type { MarketplaceProfile } from '../types';

/** Where Add funds goes (the wallet inside the dashboard). */
export const WALLET_PATH = '/dashboard/wallet';

/** The price sentences of a listed agent for a consumer (issue 28). */
export function consumerPriceSentences(agent: Pick<MarketplaceProfile, 'markupPercent' | 'greetingCostCents'>): string[] {
  const out = [T.price(Math.max(0, Math.round(agent.markupPercent ?? 0)))];
  if ((agent.greetingCostCents ?? 0) > 0) out.push(T.greeting(formatCents(agent.greetingCostCents)));
  return out;
}

/**
 * Before (and while) a marketplace user chats: what each answer costs them (usage + 3% fee + the creator's
 * markup, and the greeting cost with a conversation's first answer), their wallet balance and Add funds.
 */
export function ConsumerPriceNotice({ agent }: { agent: Pick<MarketplaceProfile, 'markupPercent' | 'greetingCostCents'> }) {
  const { user } = useAuth();
  const balance = useQuery({
    // The default queryFn GETs queryKey[0] with the token (the wallet page's key: one cache entry).
    queryKey: [BALANCE_PATH, user?.uid],
    select: selectBalance,
    staleTime: 30_000,
    enabled: Boolean(user?.uid),
  });

  let balanceText: string;
  if (balance.isPending) balanceText = '…';
  else if (balance.isError) balanceText = T.balanceUnknown;
  else balanceText = formatMoney(balance.data);

  return (
    <section className="mp-consumer-notice" aria-labelledby="mp-consumer-notice-title" data-testid="consumer-price-notice">
      <h2 id="mp-consumer-notice-title" className="mp-consumer-notice__title">
        {T.pricingHeading}
      </h2>
      {consumerPriceSentences(agent).map((sentence) => (
        <p key={sentence} className="mp-consumer-notice__text">
          {sentence}
        </p>
      ))}
      <p className="mp-consumer-notice__balance">
        <WalletOutlined aria-hidden="true" /> {T.balance}{' '}
        <strong data-testid="consumer-balance" aria-busy={balance.isPending}>
          {balanceText}
        </strong>{' '}
        <Link to={WALLET_PATH} className="mp-consumer-notice__link">
          {T.addFunds}
        </Link>
      </p>
    </section>
  );
}
