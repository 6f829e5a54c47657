import { useMutation } from '@tanstack/react-query';
import { toast } from '@/components/toast';
import { registerPublicAgentInterest, useAuth } from '@/features/auth';

/**
 * "Notify Me When Available": POST /api/user/public-agent-interest with no body, then the
 * 'Interest Registered' toast and a user refresh (the onboarding response carries
 * interestedInPublicAgents, so the recorded state survives reloads). Failure: the 'Error' toast.
 */
export function useRegisterMarketplaceInterest() {
  const { refreshUser } = useAuth();
  return useMutation({
    mutationFn: () => registerPublicAgentInterest(),
    onSuccess: async () => {
      toast({ title: 'Interest Registered', description: "We'll notify you when the marketplace is available!" });
      await refreshUser();
    },
    onError: (error) => {
      toast({ title: 'Error', description: error.message, variant: 'destructive', error });
    },
  });
}
