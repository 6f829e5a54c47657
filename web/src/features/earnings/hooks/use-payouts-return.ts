import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { EARNINGS_PATH, PAYOUTS_PATH } from '../api/earnings';

export type PayoutsReturn = 'return' | 'refresh' | null;

/**
 * Back from Stripe's onboarding (?payouts=return, or ?payouts=refresh when the link expired): remembers which,
 * removes the parameter and refetches the earnings (the account's state) and the payouts.
 */
export function usePayoutsReturn(): PayoutsReturn {
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const value = new URLSearchParams(location.search).get('payouts');
  const [seen] = useState<PayoutsReturn>(() => (value === 'return' || value === 'refresh' ? value : null));

  useEffect(() => {
    if (value === null) return;
    const params = new URLSearchParams(location.search);
    params.delete('payouts');
    const search = params.toString();
    void navigate({ pathname: location.pathname, search: search ? `?${search}` : '', hash: location.hash }, { replace: true });
    void queryClient.invalidateQueries({ queryKey: [EARNINGS_PATH] });
    void queryClient.invalidateQueries({ queryKey: [PAYOUTS_PATH] });
  }, [value, location.pathname, location.search, location.hash, navigate, queryClient]);

  return seen;
}
