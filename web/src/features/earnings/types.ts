/** Shapes of the earnings and payouts API (issue 28; dollars as JSON numbers, like /api/user/balance). */

export type PayoutAccountStatus = 'none' | 'onboarding' | 'enabled' | 'restricted';

export interface PayoutAccount {
  status: PayoutAccountStatus | (string & {});
  /** Why a restricted account cannot receive payouts (Stripe's requirements, in words). */
  reason?: string | null;
}

export interface AgentEarnings {
  agentId: string;
  name: string;
  answers: number;
  /** Unique paying users. */
  users: number;
  /** Dollars credited to the creator (markup + greeting costs). */
  earned: number;
}

/** GET /api/user/earnings */
export interface Earnings {
  pending: number;
  available: number;
  paidOut: number;
  inTransit: number;
  currency: string;
  /** Dollars; 10 today. */
  minimumWithdrawal: number;
  /** How long an answer's earning stays pending (EARNINGS_HOLD), in seconds. */
  holdSeconds: number;
  payoutAccount: PayoutAccount;
  byAgent: AgentEarnings[];
}

export interface EarningsDay {
  /** UTC day, YYYY-MM-DD. */
  date: string;
  agentId: string;
  name: string;
  earned: number;
  answers: number;
}

/** GET /api/user/earnings/series */
export interface EarningsSeries {
  days: EarningsDay[];
}

export type PayoutStatus = 'in_transit' | 'paid' | 'failed' | 'reversed';

export interface Payout {
  id: string;
  amount: number;
  status: PayoutStatus | (string & {});
  createdAt: string;
  updatedAt: string;
  failureMessage?: string | null;
}

/** POST /api/user/earnings/transfer-to-wallet → 200 */
export interface TransferResult {
  transferred: number;
  available: number;
  balance: number;
}
