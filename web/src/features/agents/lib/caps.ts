import { z } from 'zod';
import { formatUsd } from '@/features/wallet';
import type { Subscriber, SubscriberCapMode, SubscriberCapPayload } from '../types';

/** Bounds of a monthly cap, in cents (the catalog's rule): $0.01 … $100,000.00. */
export const MIN_CAP_CENTS = 1;
export const MAX_CAP_CENTS = 10_000_000;

export const CAP_TEXTS = {
  /** The server's message for a bad amount (fields.subscriberMonthlyCapCents / fields.monthlyCapCents). */
  range: 'Enter a monthly cap between $0.01 and $100,000.00, or leave it empty for no cap.',
  /** "Custom amount" chosen with no amount. */
  customRequired: 'Enter the custom amount.',
  /** The server's message for a bad capMode. */
  mode: 'Choose default, none or custom.',
  defaultLabel: 'Monthly cap per subscriber',
  defaultHelp:
    "What you pay at most each month for one subscriber's answers. A subscriber over the cap is told the agent is unavailable; you get an e-mail.",
  noCap: 'No cap',
  custom: 'Custom amount',
} as const;

/** Cents as dollars: 500 → '$5.00', 10000000 → '$100,000.00'. */
export function formatCents(cents: number): string {
  return formatUsd(cents / 100);
}

/** Dollars (as typed) to whole cents. */
export function dollarsToCents(dollars: number): number {
  return Math.round(dollars * 100);
}

/** Whether a typed dollar amount is a cap the server accepts (after rounding to cents). */
export function isValidCapDollars(dollars: number): boolean {
  if (!Number.isFinite(dollars)) return false;
  const cents = dollarsToCents(dollars);
  return cents >= MIN_CAP_CENTS && cents <= MAX_CAP_CENTS;
}

/** "Default ($5.00)" or "Default (no cap)": the default option, given the agent's default cap. */
export function defaultCapLabel(defaultCapCents: number | null | undefined): string {
  return `Default (${defaultCapCents == null ? 'no cap' : formatCents(defaultCapCents)})`;
}

/** The subscriber's cap mode; a missing or unknown one reads as the default. */
export function capModeOf(subscriber: Pick<Subscriber, 'capMode'>): SubscriberCapMode {
  const mode = subscriber.capMode;
  if (mode === 'none') return 'none';
  if (mode === 'custom') return 'custom';
  return 'default';
}

/**
 * What a subscriber row shows: "Default ($5.00)", "Default (no cap)", "No cap" or "$2.00".
 * For the default the server's effectiveCapCents is used when sent, else the agent's default.
 */
export function subscriberCapLabel(
  subscriber: Pick<Subscriber, 'capMode' | 'monthlyCapCents' | 'effectiveCapCents'>,
  defaultCapCents: number | null | undefined,
): string {
  const mode = capModeOf(subscriber);
  if (mode === 'none') return CAP_TEXTS.noCap;
  if (mode === 'custom') {
    const cents = subscriber.monthlyCapCents ?? subscriber.effectiveCapCents;
    return cents == null ? CAP_TEXTS.noCap : formatCents(cents);
  }
  return defaultCapLabel(subscriber.effectiveCapCents !== undefined ? subscriber.effectiveCapCents : defaultCapCents);
}

/** The default-cap form: dollars, or null (empty = no cap). */
export const defaultCapSchema = z.object({
  cap: z
    .number({ error: CAP_TEXTS.range })
    .nullable()
    .refine((v) => v === null || isValidCapDollars(v), CAP_TEXTS.range),
});
export type DefaultCapValues = z.infer<typeof defaultCapSchema>;

/** The PATCH agent value of the default-cap form: cents, or null for no cap. */
export function toDefaultCapCents(values: DefaultCapValues): number | null {
  return values.cap === null ? null : dollarsToCents(values.cap);
}

/** The per-subscriber cap form: a mode and, for 'custom', an amount in dollars. */
export const subscriberCapSchema = z
  .object({
    mode: z.enum(['default', 'none', 'custom'], { error: CAP_TEXTS.mode }),
    amount: z.number({ error: CAP_TEXTS.range }).nullable(),
  })
  .superRefine((values, ctx) => {
    if (values.mode !== 'custom') return;
    if (values.amount === null) {
      ctx.addIssue({ code: 'custom', path: ['amount'], message: CAP_TEXTS.customRequired });
    } else if (!isValidCapDollars(values.amount)) {
      ctx.addIssue({ code: 'custom', path: ['amount'], message: CAP_TEXTS.range });
    }
  });
export type SubscriberCapValues = z.infer<typeof subscriberCapSchema>;

/** The form's starting values for a subscriber. */
export function subscriberCapValues(subscriber: Pick<Subscriber, 'capMode' | 'monthlyCapCents'>): SubscriberCapValues {
  const mode = capModeOf(subscriber);
  const cents = subscriber.monthlyCapCents;
  return { mode, amount: mode === 'custom' && cents != null ? cents / 100 : null };
}

/** The PATCH subscriber body: monthlyCapCents only for a custom amount. */
export function toSubscriberCapPayload(values: SubscriberCapValues): SubscriberCapPayload {
  if (values.mode === 'custom') return { capMode: 'custom', monthlyCapCents: dollarsToCents(values.amount ?? 0) };
  return { capMode: values.mode };
}
