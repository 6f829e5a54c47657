import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { balanceKey } from '../hooks/use-balance-details';
import { BILLING_SETTINGS_PATH, fetchBillingSettings, saveBillingSettings, type BillingSettings } from './billing';

export const billingSettingsKey = (uid: string | undefined) => [BILLING_SETTINGS_PATH, uid] as const;

/** The saved spend controls (GET /api/billing/settings) of the signed-in user. */
export function useBillingSettings(uid: string | undefined) {
  return useQuery({
    queryKey: billingSettingsKey(uid),
    queryFn: ({ signal }) => fetchBillingSettings(signal),
    enabled: Boolean(uid),
  });
}

/**
 * Saves the spend controls (PUT replaces the whole object) built by `toSettings` from the mutation's variables;
 * the saved object replaces the cached settings and the balance (its notices) is read again. `onSaved` runs after.
 */
export function useSaveBillingSettings<TVariables>(
  uid: string | undefined,
  toSettings: (variables: TVariables) => BillingSettings,
  onSaved?: () => void,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (variables: TVariables) => saveBillingSettings(toSettings(variables)),
    onSuccess: (saved) => {
      queryClient.setQueryData(billingSettingsKey(uid), saved);
      void queryClient.invalidateQueries({ queryKey: balanceKey(uid) });
      onSaved?.();
    },
  });
}
