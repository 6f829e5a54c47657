import { useEffect, useRef } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { toast } from '@/components/toast';
import { useLatest } from '@/lib/use-latest';
import { PAYMENT_SUCCESS_TOAST_MS } from '../lib/constants';
import { hasPaymentReturnParams, PAYMENT_TOASTS, readPaymentReturn } from '../lib/payment-return';
import { pollAfterPayment, sleep } from '../lib/success-polling';

/**
 * Handles the return from the checkout page: success=true&session_id=… polls the balance and
 * the first page, then toasts 'Payment Successful!'; canceled=true toasts 'Payment Canceled'.
 * Either way the address is replaced with the bare path.
 */
export function usePaymentReturn(refresh: () => Promise<unknown>, enabled: boolean) {
  const location = useLocation();
  const navigate = useNavigate();
  const handled = useRef<string | null>(null);
  const active = useRef(true);
  const refreshRef = useLatest(refresh);

  useEffect(() => {
    active.current = true;
    return () => {
      active.current = false;
    };
  }, []);

  useEffect(() => {
    if (!enabled) return;
    const params = new URLSearchParams(location.search);
    if (!hasPaymentReturnParams(params)) return;
    // Handle each return once (StrictMode runs effects twice).
    const key = `${location.key}${location.search}`;
    if (handled.current === key) return;
    handled.current = key;

    const kind = readPaymentReturn(params);
    navigate({ pathname: location.pathname, search: '', hash: location.hash }, { replace: true });
    if (kind === 'canceled') {
      toast({ ...PAYMENT_TOASTS.canceled, variant: 'destructive' });
    } else if (kind === 'success') {
      void pollAfterPayment({
        refresh: () => refreshRef.current(),
        sleep,
        isActive: () => active.current,
      }).then((finished) => {
        if (finished) toast({ ...PAYMENT_TOASTS.success, duration: PAYMENT_SUCCESS_TOAST_MS });
      });
    }
  }, [enabled, location.key, location.search, location.pathname, location.hash, navigate, refreshRef]);
}
