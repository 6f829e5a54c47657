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

/** Deposits are credits ('+', green); any other type is a debit ('-', red). */
export function isCredit(tx: Pick<Transaction, 'type'>): boolean {
  return tx.type === 'deposit';
}

/** '+$25.00' for a deposit, '-$1.20' for anything else (the amount's magnitude, 2 decimals). */
export function formatTransactionAmount(tx: Pick<Transaction, 'type' | 'amount'>): string {
  const magnitude = formatUsd(Math.abs(Number(tx.amount) || 0));
  return `${isCredit(tx) ? '+' : '-'}${magnitude}`;
}

/** 'deposit' → 'Deposit'; missing → 'N/A'. */
export function formatTransactionType(type: string | null | undefined): string {
  if (!type) return 'N/A';
  return type.charAt(0).toUpperCase() + type.slice(1);
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
