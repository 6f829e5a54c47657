import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { toast } from '@/components/toast';
import { registerPublicAgentInterest } from '../api/public-agent-interest';
import { useAuth } from '../auth-context';

export const MARKETPLACE_INTEREST_TOAST = {
  title: 'Interest Registered',
  description: "We'll notify you when the marketplace is available!",
} as const;

/**
 * /auth?interest=marketplace (set by the landing page's waitlist dialog): once a user is signed in
 * (after registration, login or Google sign-in) and not yet interested, register the marketplace
 * interest (POST /api/user/public-agent-interest), then refresh the user so that
 * interestedInPublicAgents is current. Runs at most once per user and page visit.
 *
 * Returns true while the registration is pending: the caller holds the redirect to /dashboard until then.
 * A failure shows the 'Error' toast and lets the redirect go on.
 */
export function useMarketplaceInterestOnSignIn(): boolean {
  const [params] = useSearchParams();
  const { user, loading, profileLoading, refreshUser } = useAuth();
  const startedFor = useRef<string | null>(null);
  const [doneFor, setDoneFor] = useState<string | null>(null);

  const uid = user?.uid ?? null;
  const needed =
    params.get('interest') === 'marketplace' &&
    uid !== null &&
    !loading &&
    !profileLoading &&
    user?.interestedInPublicAgents !== true;

  useEffect(() => {
    if (!needed || uid === null || startedFor.current === uid) return;
    startedFor.current = uid;
    void (async () => {
      try {
        await registerPublicAgentInterest();
        toast({ ...MARKETPLACE_INTEREST_TOAST });
        await refreshUser();
      } catch (error) {
        toast({
          title: 'Error',
          description: error instanceof Error ? error.message : String(error),
          variant: 'destructive',
          error,
        });
      } finally {
        setDoneFor(uid);
      }
    })();
  }, [needed, uid, refreshUser]);

  return needed && doneFor !== uid;
}
