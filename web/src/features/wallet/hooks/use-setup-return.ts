import { toast } from '@/components/toast';
import { useLatest } from '@/lib/use-latest';
import { SETUP_POLL_INTERVAL_MS, SETUP_POLL_ROUNDS } from '../lib/constants';
import { readSetupReturn, SETUP_TOASTS } from '../lib/payment-return';
import { sleep } from '../lib/success-polling';
import { useStripeReturn } from './use-stripe-return';

/**
 * Handles the return from Stripe's card-saving page (?setup=success / ?setup=canceled): removes the
 * parameter at once, then on success refreshes the billing data until the saved card shows (the
 * webhook may land a moment later; at most SETUP_POLL_ROUNDS rounds) and toasts 'Card saved'.
 * `refresh` resolves true once the card is known.
 */
export function useSetupReturn(refresh: () => Promise<boolean>, enabled: boolean) {
  const refreshRef = useLatest(refresh);
  useStripeReturn({
    enabled,
    matches: (params) => params.has('setup'),
    keep: (params) => {
      params.delete('setup');
      return params.toString();
    },
    onReturn: (params, isActive) => {
      const kind = readSetupReturn(params);
      if (kind === 'canceled') {
        toast(SETUP_TOASTS.canceled);
        return;
      }
      if (kind !== 'success') return;
      void (async () => {
        let shown = false;
        for (let round = 0; round < SETUP_POLL_ROUNDS && !shown; round += 1) {
          if (round > 0) await sleep(SETUP_POLL_INTERVAL_MS);
          if (!isActive()) return;
          try {
            shown = await refreshRef.current();
          } catch {
            // keep polling
          }
        }
        if (isActive()) toast(shown ? SETUP_TOASTS.success : SETUP_TOASTS.pending);
      })();
    },
  });
}
