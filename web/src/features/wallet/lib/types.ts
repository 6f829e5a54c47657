export type TransactionType = 'deposit' | 'income' | 'expense';

/** One wallet transaction as the wallet service returns it (amount in dollars, positive). */
export interface Transaction {
  id: string;
  date?: string | null;
  amount: number;
  /** Usually one of TransactionType; tolerated as any string (or missing). */
  type?: string | null;
  provider?: string | null;
  description?: string | null;
  /** 'agent_fee' for an agent's monthly fee (listed apart from usage); absent otherwise. */
  kind?: string | null;
}

export interface TransactionPage {
  items: Transaction[];
  hasMore: boolean;
  /** Opaque snapshot token of the first page, sent back on later pages for stable paging. */
  snapshot: string | null;
}

/** Values of the type filter. */
export type TransactionFilter = 'all' | 'income' | 'expense' | 'balance_update';
