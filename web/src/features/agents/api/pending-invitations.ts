import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** GET /api/user/pending-invitations: invitations waiting for the caller's address to be verified. */
export const PENDING_INVITATIONS_KEY = ['/api/user/pending-invitations'] as const;

export interface PendingInvitations {
  count: number;
}

/** The count, asked only while `enabled` (a signed-in user whose address is not verified). */
export function usePendingInvitations(enabled: boolean) {
  return useQuery({
    queryKey: PENDING_INVITATIONS_KEY,
    queryFn: ({ signal }) => api.get<PendingInvitations>(PENDING_INVITATIONS_KEY[0], { signal }),
    enabled,
    staleTime: 30_000,
  });
}

/** "You have N pending invitations: verify your e-mail to accept them" (singular for one). */
export function pendingInvitationsText(count: number): string {
  return count === 1
    ? 'You have 1 pending invitation: verify your e-mail to accept it'
    : `You have ${count} pending invitations: verify your e-mail to accept them`;
}
