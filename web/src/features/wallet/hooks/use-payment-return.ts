import { toast } from '@/components/toast';
import { useLatest } from '@/lib/use-latest';
import { PAYMENT_SUCCESS_TOAST_MS } from '../lib/constants';
import { hasPaymentReturnParams, PAYMENT_TOASTS, readPaymentReturn } from '../lib/payment-return';
import { pollAfterPayment, sleep } from '../lib/success-polling';
import { useStripeReturn } from './use-stripe-return';

/**
 * Handles the return from the checkout page: success=true&session_id=… polls the balance and
 * the first page, then toasts 'Payment Successful!'; canceled=true toasts 'Payment Canceled'.
 * Either way the address is replaced with the bare path.
 */
export function usePaymentReturn(refresh: () => Promise<unknown>, enabled: boolean) {
  const refreshRef = useLatest(refresh);
  useStripeReturn({
    enabled,
    matches: hasPaymentReturnParams,
    keep: () => '',
    onReturn: (params, isActive) => {
      const kind = readPaymentReturn(params);
      if (kind === 'canceled') {
        toast({ ...PAYMENT_TOASTS.canceled, variant: 'destructive' });
      } else if (kind === 'success') {
        void pollAfterPayment({ refresh: () => refreshRef.current(), sleep, isActive }).then((finished) => {
          if (finished) toast({ ...PAYMENT_TOASTS.success, duration: PAYMENT_SUCCESS_TOAST_MS });
        });
      }
    },
  });
}
