import { MIN_TOP_UP_DOLLARS } from './constants';

/** Spec §5 "Add funds" messages and their toast titles. */
export const AMOUNT_MESSAGES = {
  missing: { title: 'Error', description: 'Please enter an amount to add funds and ensure you are logged in.' },
  invalid: { title: 'Invalid Amount', description: 'Please enter a valid positive amount.' },
  belowMinimum: { title: 'Invalid Amount', description: 'Minimum amount to add is $0.50' },
} as const;

export type AmountProblem = keyof typeof AMOUNT_MESSAGES;

export type AmountCheck = { ok: true; amount: number; cents: number } | { ok: false; problem: AmountProblem };

/** Parses the input text as a finite number, or NaN (blank, '1e', 'abc', '12abc' are not numbers). */
export function parseAmount(raw: string): number {
  const text = raw.trim();
  if (text === '') return Number.NaN;
  const value = Number(text);
  return Number.isFinite(value) ? value : Number.NaN;
}

/** Dollars → integer cents, as the spec says: Math.round(amount × 100). */
export function toCents(amount: number): number {
  return Math.round(amount * 100);
}

/** The Add Funds button is disabled when the amount is empty, not numeric or 0 or less. */
export function isAmountSubmittable(raw: string): boolean {
  const value = parseAmount(raw);
  return !Number.isNaN(value) && value > 0;
}

/** Validates the amount in the spec's order: empty / signed out → not numeric or ≤ 0 → below $0.50. */
export function checkAmount(raw: string, signedIn: boolean): AmountCheck {
  if (raw.trim() === '' || !signedIn) return { ok: false, problem: 'missing' };
  const amount = parseAmount(raw);
  if (Number.isNaN(amount) || amount <= 0) return { ok: false, problem: 'invalid' };
  if (amount < MIN_TOP_UP_DOLLARS) return { ok: false, problem: 'belowMinimum' };
  return { ok: true, amount, cents: toCents(amount) };
}
