import { format, isValid, parseISO } from 'date-fns';
import type { Transaction } from './types';

const usd = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});

/** Dollars as '$12.50' (US format, 2 decimals). */
export function formatUsd(dollars: number): string {
  return usd.format(dollars);
}

const MICROS_PER_DOLLAR = 1_000_000;

/**
 * Dollars as '$12.50', but never '$0.00' for an amount that is not zero: below half a cent the first
 * significant digit is kept ('$0.004', '$0.0003', down to one micro-dollar '$0.000001'). Negative amounts
 * get a leading '-'. Rounded half up on whole micro-dollars (integer arithmetic).
 */
export function formatMoney(dollars: number): string {
  const value = Number.isFinite(dollars) ? dollars : 0;
  const micros = Math.round(Math.abs(value) * MICROS_PER_DOLLAR);
  const sign = value < 0 && micros > 0 ? '-' : '';
  return sign + formatMicrosAbs(micros);
}

/** formatMoney for a count of micro-dollars. */
export function formatMoneyMicros(micros: number): string {
  return formatMoney((Number.isFinite(micros) ? micros : 0) / MICROS_PER_DOLLAR);
}

function formatMicrosAbs(micros: number): string {
  let decimals = 2;
  while (decimals < 6 && micros > 0 && roundMicros(micros, decimals) === 0) decimals++;
  if (decimals === 2) return usd.format(roundMicros(micros, 2) / 100);
  return `$0.${String(roundMicros(micros, decimals)).padStart(decimals, '0')}`;
}

/** micros rounded half up to `decimals` places of a dollar, as an integer count of those units. */
function roundMicros(micros: number, decimals: number): number {
  const step = MICROS_PER_DOLLAR / 10 ** decimals;
  return Math.floor((micros + step / 2) / step);
}

/** Deposits are credits ('+', green); any other type is a debit ('-', red). */
export function isCredit(tx: Pick<Transaction, 'type'>): boolean {
  return tx.type === 'deposit';
}

/**
 * '+$25.00' for a deposit, '-$1.20' for anything else (the amount's magnitude, 2 decimals; an amount under half
 * a cent keeps its first significant digit, '-$0.0003', never '-$0.00').
 */
export function formatTransactionAmount(tx: Pick<Transaction, 'type' | 'amount'>): string {
  const magnitude = formatMoney(Math.abs(Number(tx.amount) || 0));
  return `${isCredit(tx) ? '+' : '-'}${magnitude}`;
}

/** 'deposit' → 'Deposit'; missing → 'N/A'. */
export function formatTransactionType(type: string | null | undefined): string {
  if (!type) return 'N/A';
  return type.charAt(0).toUpperCase() + type.slice(1);
}

/** The Type column: 'Agent fee' for an agent's monthly fee (an expense listed apart from usage), else formatTransactionType. */
export function transactionTypeLabel(tx: Pick<Transaction, 'type' | 'kind'>): string {
  return tx.kind === 'agent_fee' ? 'Agent fee' : formatTransactionType(tx.type);
}

export function formatDescription(description: string | null | undefined): string {
  return description ? description : 'N/A';
}

/** US-style local date and time, e.g. '03/07/2026 4:05 PM'; 'N/A' when missing or unparsable. */
export function formatTransactionDate(date: string | number | null | undefined): string {
  if (date === null || date === undefined || date === '') return 'N/A';
  const parsed = typeof date === 'number' ? new Date(date) : parseISO(date);
  const value = isValid(parsed) ? parsed : new Date(date);
  return isValid(value) ? format(value, 'MM/dd/yyyy h:mm a') : 'N/A';
}
