/** Display helpers of the API tab. */

/** Dollars: "$0.00", "$0.0012" below a cent (at least one significant digit), else two decimals. */
export function formatUsd(amount: number): string {
  if (!Number.isFinite(amount) || amount === 0) return '$0.00';
  if (Math.abs(amount) >= 0.01) return `$${amount.toFixed(2)}`;
  let digits = 4;
  while (digits < 6 && Number(amount.toFixed(digits)) === 0) digits += 1;
  return `$${amount.toFixed(digits)}`;
}

/** A date as "Nov 23, 2026" (local time), or `empty` when there is none. */
export function formatDate(iso: string | null | undefined, empty = 'Never'): string {
  if (!iso) return empty;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return empty;
  return d.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' });
}

/** Whether a key's expiry has passed at `now`. */
export function isExpired(expiresAt: string | null, now: Date = new Date()): boolean {
  return !!expiresAt && new Date(expiresAt).getTime() <= now.getTime();
}

/** Tomorrow as YYYY-MM-DD in local time: the earliest expiry date the form offers. */
export function tomorrow(now: Date = new Date()): string {
  const d = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

export interface KeyFormValues {
  name: string;
  /** YYYY-MM-DD or '' (no expiry). */
  expiresOn: string;
  /** Dollars, or null (no limit). */
  monthlyLimit: number | null;
}

export type KeyFormErrors = Partial<Record<keyof KeyFormValues, string>>;

/** Checks the create form like the server does (it checks again). */
export function validateKeyForm(values: KeyFormValues, now: Date = new Date()): KeyFormErrors {
  const errors: KeyFormErrors = {};
  const name = values.name.trim();
  if (!name) errors.name = 'Give the key a name.';
  else if ([...name].length > 100) errors.name = 'The name must be at most 100 characters.';
  if (values.expiresOn) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(values.expiresOn)) errors.expiresOn = 'Pick a date.';
    else if (values.expiresOn < tomorrow(now)) errors.expiresOn = 'The expiry date must be in the future.';
  }
  if (values.monthlyLimit !== null) {
    if (!Number.isFinite(values.monthlyLimit) || values.monthlyLimit <= 0) errors.monthlyLimit = 'The limit must be more than $0.';
    else if (values.monthlyLimit > 1_000_000) errors.monthlyLimit = 'The limit must be at most $1,000,000.';
  }
  return errors;
}
