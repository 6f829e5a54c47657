import { useEffect, useRef } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { toast } from '@/components/toast';
import { useLatest } from '@/lib/use-latest';
import { SETUP_POLL_INTERVAL_MS, SETUP_POLL_ROUNDS } from '../lib/constants';
import { readSetupReturn, SETUP_TOASTS } from '../lib/payment-return';
import { sleep } from '../lib/success-polling';

/**
 * Handles the return from Stripe's card-saving page (?setup=success / ?setup=canceled): removes the
 * parameter at once, then on success refreshes the billing data until the saved card shows (the
 * webhook may land a moment later; at most SETUP_POLL_ROUNDS rounds) and toasts 'Card saved'.
 * `refresh` resolves true once the card is known.
 */
export function useSetupReturn(refresh: () => Promise<boolean>, enabled: boolean) {
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
    if (!params.has('setup')) return;
    const key = `${location.key}${location.search}`;
    if (handled.current === key) return;
    handled.current = key;

    const kind = readSetupReturn(params);
    params.delete('setup');
    const search = params.toString();
    navigate({ pathname: location.pathname, search: search ? `?${search}` : '', hash: location.hash }, { replace: true });
    if (kind === 'canceled') {
      toast(SETUP_TOASTS.canceled);
      return;
    }
    if (kind !== 'success') return;
    void (async () => {
      let shown = false;
      for (let round = 0; round < SETUP_POLL_ROUNDS && !shown; round += 1) {
        if (round > 0) await sleep(SETUP_POLL_INTERVAL_MS);
        if (!active.current) return;
        try {
          shown = await refreshRef.current();
        } catch {
          // keep polling
        }
      }
      if (active.current) toast(shown ? SETUP_TOASTS.success : SETUP_TOASTS.pending);
    })();
  }, [enabled, location.key, location.search, location.pathname, location.hash, navigate, refreshRef]);
}
