/**
 * Billing calls of the wallet service (docs/billing-api.md): the full balance (held money, debt, this
 * month's usage, limits, auto-recharge status), spend-control settings, saving a card with Stripe
 * Checkout in setup mode, and the transaction history as CSV. Every field added by the billing issue is
 * optional when reading, so an older wallet (balance only) still works.
 */
import { ApiError, authFetch, requestIdOf } from '@/lib/api-client';
import type { TransactionFilter } from '../lib/types';
import { redirectTo } from '../lib/redirect';
import { saveBlob } from '../lib/download';

export const BILLING_SETTINGS_PATH = '/api/user/billing-settings';
export const SETUP_SESSION_PATH = '/api/stripe/setup-session';
export const TRANSACTIONS_CSV_PATH = '/api/user/transactions.csv';
export const TRANSACTIONS_CSV_FILENAME = 'transactions.csv';

export type LimitWarning = 'limit_80' | 'limit_100';

export interface AutoRechargeStatus {
  enabled: boolean;
  threshold: number | null;
  amount: number | null;
  hasCard: boolean;
  /** e.g. 'Visa •••• 4242'. */
  cardLabel: string | null;
  /** Why auto-recharge was turned off (after 3 failures in a row). */
  disabledReason: string | null;
  lastFailure: string | null;
  inFlight: boolean;
}

/** GET /api/user/balance's data; only `balance` is required (an older wallet sends nothing else). */
export interface BalanceDetails {
  balance: number;
  held: number;
  available: number;
  debt: number;
  /** Usage since the 1st of this month (UTC); null when the wallet does not say. */
  monthUsage: number | null;
  monthlyLimit: number | null;
  lowBalanceThreshold: number | null;
  lowBalance: boolean;
  limitWarning: LimitWarning | null;
  /** null when the wallet does not report auto-recharge. */
  autoRecharge: AutoRechargeStatus | null;
}

export interface BillingSettings {
  monthlyLimit: number | null;
  lowBalanceThreshold: number | null;
  autoRecharge: { enabled: boolean; threshold: number | null; amount: number | null };
}

interface Envelope<T> {
  success?: boolean;
  data?: T;
}

function number(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

function readAutoRecharge(value: unknown): AutoRechargeStatus | null {
  if (!value || typeof value !== 'object') return null;
  const a = value as Record<string, unknown>;
  return {
    enabled: a.enabled === true,
    threshold: number(a.threshold),
    amount: number(a.amount),
    hasCard: a.hasCard === true,
    cardLabel: text(a.cardLabel),
    disabledReason: text(a.disabledReason),
    lastFailure: text(a.lastFailure),
    inFlight: a.inFlight === true,
  };
}

/** data of GET /api/user/balance with defaults for every field an older wallet does not send. */
export function readBalanceDetails(body: unknown): BalanceDetails {
  const data = (body as Envelope<Record<string, unknown>> | null)?.data;
  const balance = number(data?.balance);
  if (!data || balance === null) {
    throw new Error('Invalid balance response');
  }
  const held = number(data.held) ?? 0;
  const warning = data.limitWarning;
  return {
    balance,
    held,
    available: number(data.available) ?? balance - held,
    debt: Math.max(0, number(data.debt) ?? 0),
    monthUsage: number(data.monthUsage),
    monthlyLimit: number(data.monthlyLimit),
    lowBalanceThreshold: number(data.lowBalanceThreshold),
    lowBalance: data.lowBalance === true,
    limitWarning: warning === 'limit_80' || warning === 'limit_100' ? warning : null,
    autoRecharge: readAutoRecharge(data.autoRecharge),
  };
}

/** data of GET/PUT /api/user/billing-settings. */
export function readBillingSettings(body: unknown): BillingSettings {
  const data = (body as Envelope<Record<string, unknown>> | null)?.data;
  if (!data || typeof data !== 'object') {
    throw new Error('Invalid billing settings response');
  }
  const auto = (data.autoRecharge ?? {}) as Record<string, unknown>;
  return {
    monthlyLimit: number(data.monthlyLimit),
    lowBalanceThreshold: number(data.lowBalanceThreshold),
    autoRecharge: { enabled: auto.enabled === true, threshold: number(auto.threshold), amount: number(auto.amount) },
  };
}

/** A failed billing call: the platform's error code and its message (shown to the user). */
export class BillingApiError extends ApiError {
  constructor(
    status: number,
    readonly code: string,
    message: string,
    requestId?: string,
  ) {
    super(message, status, { requestId });
    this.name = 'BillingApiError';
  }
}

async function failure(response: Response, fallback: string): Promise<BillingApiError> {
  let code = '';
  let message = '';
  try {
    const body = (await response.json()) as { error?: unknown; message?: unknown };
    code = typeof body.error === 'string' ? body.error : '';
    message = typeof body.message === 'string' ? body.message : '';
  } catch {
    // not JSON: keep the fallback
  }
  return new BillingApiError(response.status, code, message || fallback, requestIdOf(response));
}

async function call<T>(path: string, init: Parameters<typeof authFetch>[1], read: (body: unknown) => T, fallback: string) {
  const response = await authFetch(path, init);
  if (!response.ok) throw await failure(response, fallback);
  return read(await response.json());
}

export const BILLING_MESSAGES = {
  loadFailed: 'Failed to load spend controls.',
  saveFailed: 'Failed to save spend controls.',
  setupFailed: 'Could not start saving a card. Please try again.',
  noUrl: 'No checkout address was returned.',
  exportFailed: 'Failed to export transactions.',
} as const;

export function fetchBillingSettings(signal?: AbortSignal): Promise<BillingSettings> {
  return call(BILLING_SETTINGS_PATH, { method: 'GET', signal }, readBillingSettings, BILLING_MESSAGES.loadFailed);
}

export function saveBillingSettings(settings: BillingSettings): Promise<BillingSettings> {
  return call(BILLING_SETTINGS_PATH, { method: 'PUT', body: settings }, readBillingSettings, BILLING_MESSAGES.saveFailed);
}

/** POST /api/stripe/setup-session, then leaves for Stripe's page that saves a card. */
export async function startCardSetup(): Promise<void> {
  const url = await call(
    SETUP_SESSION_PATH,
    { method: 'POST', body: {} },
    (body) => text((body as Envelope<{ url?: unknown }> | null)?.data?.url),
    BILLING_MESSAGES.setupFailed,
  );
  if (!url) throw new Error(BILLING_MESSAGES.noUrl);
  redirectTo(url);
}

/** GET /api/user/transactions.csv with the history's current search and type filter. */
export function transactionsCsvUrl(search: string, filter: TransactionFilter): string {
  const params = new URLSearchParams();
  if (search !== '') params.set('search', search);
  if (filter !== 'all') params.set('type', filter);
  const query = params.toString();
  return query ? `${TRANSACTIONS_CSV_PATH}?${query}` : TRANSACTIONS_CSV_PATH;
}

/** Downloads every page of the history as transactions.csv (fetched with the Bearer token → blob → file). */
export async function downloadTransactionsCsv(search: string, filter: TransactionFilter): Promise<void> {
  const response = await authFetch(transactionsCsvUrl(search, filter), { method: 'GET', headers: { Accept: 'text/csv' } });
  if (!response.ok) throw await failure(response, BILLING_MESSAGES.exportFailed);
  saveBlob(await response.blob(), TRANSACTIONS_CSV_FILENAME);
}
