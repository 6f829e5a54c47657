import { formatMoney } from '@/features/wallet';

/** Every visible text of the Earnings page (issue 28). */
export const EARNINGS_TEXTS = {
  title: 'Earnings',
  lead: 'What your listed marketplace agents earn: you keep 100% of your markup and greeting costs.',
  loading: 'Loading earnings',
  loadError: 'Could not load your earnings.',
  tryAgain: 'Try again',
  summaryLabel: 'Earnings summary',
  pending: 'Pending',
  available: 'Available',
  inTransit: 'In transit',
  paidOut: 'Paid out',
  chartTitle: 'Earnings per day',
  chartLoading: 'Loading the earnings chart',
  chartError: 'Could not load the earnings per day.',
  chartEmpty: 'No earnings in the last 30 days.',
  agentsTitle: 'By agent',
  agentsEmpty: 'No answers have earned anything yet. Publish an agent in the marketplace to start earning.',
  agentCol: 'Agent',
  answersCol: 'Answers',
  usersCol: 'Unique users',
  earnedCol: 'Earned',
  ratingCol: 'Average rating',
  payoutTitle: 'Payout account',
  setUp: 'Set up payouts',
  continueSetup: 'Continue setup',
  linkFailed: 'Could not open the payout setup.',
  withdrawTitle: 'Withdraw',
  withdrawAmount: 'Amount to withdraw',
  withdraw: 'Withdraw',
  withdrawHint: (min: number) => `At least ${formatMoney(min)}, up to what is available. Payouts go to your payout account.`,
  withdrawNotEnabled: 'Withdrawals open once your payout account is set up and enabled.',
  confirmTitle: (amount: number) => `Withdraw ${formatMoney(amount)}?`,
  confirmText: (amount: number) =>
    `${formatMoney(amount)} of your available earnings will be sent to your payout account. It usually arrives within a few business days.`,
  confirmOk: (amount: number) => `Withdraw ${formatMoney(amount)}`,
  cancel: 'Cancel',
  withdrawn: 'Payout on its way',
  withdrawnText: (amount: number) => `${formatMoney(amount)} is on its way to your payout account.`,
  withdrawFailed: 'Withdrawal failed',
  transferTitle: 'Move to wallet',
  transferLead: 'Move available earnings into your wallet to pay for your agents’ fees and usage. This cannot be withdrawn again.',
  transferAmount: 'Amount to move',
  transfer: 'Move to wallet',
  transferred: 'Moved to your wallet',
  transferredText: (amount: number, balance: number) =>
    `${formatMoney(amount)} moved to your wallet. Your balance is ${formatMoney(balance)}.`,
  transferFailed: 'Transfer failed',
  payoutsTitle: 'Payouts',
  payoutsLoading: 'Loading payouts',
  payoutsError: 'Could not load your payouts.',
  payoutsEmpty: 'No payouts yet.',
  dateCol: 'Date',
  amountCol: 'Amount',
  statusCol: 'Status',
  returned: 'Welcome back. Your payout account’s state is shown below.',
  refreshed: 'The setup link expired or was already used. Choose Continue setup to go on.',
} as const;

/** Field messages of the Withdraw and Move to wallet forms (the server's words, checked first here). */
export const AMOUNT_MESSAGES = {
  required: 'Enter an amount.',
  minimumWithdrawal: (min: number) => `The minimum withdrawal is ${formatMoney(min)}.`,
  moreThanAvailableWithdraw: (available: number) => `You have ${formatMoney(available)} available to withdraw.`,
  minimumTransfer: 'Enter an amount of at least $0.01.',
  moreThanAvailableTransfer: (available: number) => `You have ${formatMoney(available)} available to transfer.`,
} as const;

/** The payout account's state in words. */
export function payoutAccountText(status: string, reason?: string | null): string {
  switch (status) {
    case 'enabled':
      return 'Your payout account is ready: you can withdraw available earnings.';
    case 'onboarding':
      return 'Your payout account setup is not finished.';
    case 'restricted':
      return reason
        ? `Your payout account cannot receive payouts yet: ${reason.replace(/\.$/, '')}.`
        : 'Your payout account cannot receive payouts yet.';
    default:
      return 'You have no payout account yet. Set one up with Stripe to withdraw your earnings.';
  }
}

/** The account button's label; none when the account is enabled. */
export function payoutAccountAction(status: string): string | null {
  if (status === 'enabled') return null;
  if (status === 'onboarding' || status === 'restricted') return EARNINGS_TEXTS.continueSetup;
  return EARNINGS_TEXTS.setUp;
}

export const PAYOUT_STATUS_LABELS: Record<string, string> = {
  in_transit: 'In transit',
  paid: 'Paid',
  failed: 'Failed',
  reversed: 'Reversed',
};

export function payoutStatusLabel(status: string): string {
  return PAYOUT_STATUS_LABELS[status] ?? status;
}

/** 604800 → '7 days', 60 → '1 minute', 5400 → '90 minutes'. */
export function durationText(seconds: number): string {
  const s = Math.max(0, Math.round(Number.isFinite(seconds) ? seconds : 0));
  const unit = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
  if (s >= 86_400 && s % 86_400 === 0) return unit(s / 86_400, 'day');
  if (s >= 3_600 && s % 3_600 === 0) return unit(s / 3_600, 'hour');
  if (s >= 60 && s % 60 === 0) return unit(s / 60, 'minute');
  return unit(s, 'second');
}

/** 'Earnings become available 7 days after each answer.' plus why. */
export function holdText(holdSeconds: number): string {
  return `Earnings become available ${durationText(holdSeconds)} after each answer, so that disputed payments can surface first. Only available earnings can be withdrawn or moved to your wallet.`;
}
