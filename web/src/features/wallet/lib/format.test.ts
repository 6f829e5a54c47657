import { describe, expect, it } from 'vitest';
import {
  formatDescription,
  formatMoney,
  formatMoneyMicros,
  formatTransactionAmount,
  formatTransactionDate,
  formatTransactionType,
  formatUsd,
  isCredit,
  transactionTypeLabel,
} from './format';

describe('formatUsd', () => {
  it('shows dollars with 2 decimals', () => {
    expect(formatUsd(12.5)).toBe('$12.50');
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(1234.5)).toBe('$1,234.50');
    expect(formatUsd(0.005)).toBe('$0.01');
  });
});

describe('transaction amount', () => {
  it("shows deposits with '+' and everything else with '-'", () => {
    expect(formatTransactionAmount({ type: 'deposit', amount: 25 })).toBe('+$25.00');
    expect(formatTransactionAmount({ type: 'expense', amount: 1.2 })).toBe('-$1.20');
    expect(formatTransactionAmount({ type: 'income', amount: 3 })).toBe('-$3.00');
    expect(formatTransactionAmount({ type: null, amount: 0.456 })).toBe('-$0.46');
    expect(formatTransactionAmount({ type: 'expense', amount: -2 })).toBe('-$2.00');
  });

  it('colours only deposits as credits', () => {
    expect(isCredit({ type: 'deposit' })).toBe(true);
    expect(isCredit({ type: 'income' })).toBe(false);
    expect(isCredit({ type: undefined })).toBe(false);
  });
});

describe('type and description', () => {
  it('capitalises the type, N/A when missing', () => {
    expect(formatTransactionType('deposit')).toBe('Deposit');
    expect(formatTransactionType('expense')).toBe('Expense');
    expect(formatTransactionType('')).toBe('N/A');
    expect(formatTransactionType(null)).toBe('N/A');
    expect(formatTransactionType(undefined)).toBe('N/A');
  });

  it('falls back to N/A for a missing description', () => {
    expect(formatDescription('Top-up')).toBe('Top-up');
    expect(formatDescription('')).toBe('N/A');
    expect(formatDescription(null)).toBe('N/A');
  });
});

describe('formatTransactionDate', () => {
  it('uses the US style MM/dd/yyyy h:mm a in local time', () => {
    const local = new Date(2026, 2, 7, 16, 5); // 7 March 2026, 4:05 PM local
    expect(formatTransactionDate(local.toISOString())).toBe('03/07/2026 4:05 PM');
    expect(formatTransactionDate(local.getTime())).toBe('03/07/2026 4:05 PM');
  });

  it('shows N/A for a missing or unparsable date', () => {
    expect(formatTransactionDate(undefined)).toBe('N/A');
    expect(formatTransactionDate('')).toBe('N/A');
    expect(formatTransactionDate('not a date')).toBe('N/A');
  });
});

describe('formatMoney (never $0.00 for a non-zero amount)', () => {
  it('shows cents from half a cent up, else the first significant digit', () => {
    expect(formatMoney(12.5)).toBe('$12.50');
    expect(formatMoney(0)).toBe('$0.00');
    expect(formatMoney(0.005)).toBe('$0.01');
    expect(formatMoney(0.0049)).toBe('$0.005');
    expect(formatMoney(0.0003)).toBe('$0.0003');
    expect(formatMoney(0.000012)).toBe('$0.00001');
    expect(formatMoney(0.000001)).toBe('$0.000001');
    expect(formatMoney(-0.0003)).toBe('-$0.0003');
    expect(formatMoney(1234.5)).toBe('$1,234.50');
    expect(formatMoney(Number.NaN)).toBe('$0.00');
  });

  it('reads micro-dollars too', () => {
    expect(formatMoneyMicros(300)).toBe('$0.0003');
    expect(formatMoneyMicros(12_500_000)).toBe('$12.50');
  });

  it('keeps sub-cent transactions readable in the history', () => {
    expect(formatTransactionAmount({ type: 'expense', amount: 0.000312 })).toBe('-$0.0003');
    expect(formatTransactionAmount({ type: 'deposit', amount: 0.004 })).toBe('+$0.004');
  });
});

describe('transactionTypeLabel', () => {
  it("shows an agent's monthly fee as 'Agent fee', apart from usage", () => {
    expect(transactionTypeLabel({ type: 'expense', kind: 'agent_fee' })).toBe('Agent fee');
    expect(transactionTypeLabel({ type: 'expense' })).toBe('Expense');
    expect(transactionTypeLabel({ type: 'deposit', kind: null })).toBe('Deposit');
  });
});
