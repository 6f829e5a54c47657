import type { Transaction, TransactionFilter } from './types';

export const TRANSACTION_FILTER_OPTIONS: ReadonlyArray<{ value: TransactionFilter; label: string }> = [
  { value: 'all', label: 'All Types' },
  { value: 'income', label: 'Income' },
  { value: 'expense', label: 'Expense' },
  { value: 'balance_update', label: 'Balance Update' },
];

/** Whether one transaction passes the type filter (spec §4 "Wallet loading"). */
export function matchesType(tx: Transaction, filter: TransactionFilter): boolean {
  if (filter === 'all') return true;
  if (filter === 'balance_update') return tx.provider === 'stripe' && Number(tx.amount) > 0;
  return tx.type === filter;
}

/** Whether the description contains the search text, ignoring case (blank search matches all). */
export function matchesSearch(tx: Transaction, search: string): boolean {
  if (search === '') return true;
  return (tx.description ?? '').toLowerCase().includes(search.toLowerCase());
}

/** The client-side filter: search on the description and the type filter. */
export function filterTransactions(
  items: readonly Transaction[],
  search: string,
  filter: TransactionFilter,
): Transaction[] {
  return items.filter((tx) => matchesType(tx, filter) && matchesSearch(tx, search));
}
