import { z } from 'zod';
import type { BillingSettings } from '../api/billing';

/** The server's rules (docs/billing-api.md): every amount is at least $0.50 and at most $10,000. */
export const SETTINGS_MIN_DOLLARS = 0.5;
export const SETTINGS_MAX_DOLLARS = 10_000;

/** Names of the spend-control fields as the form shows them (used in the messages). */
export const SETTINGS_LABELS = {
  monthlyLimit: 'Monthly spending limit',
  lowBalanceThreshold: 'Low-balance threshold',
  threshold: 'Auto-recharge threshold',
  amount: 'Auto-recharge top-up',
} as const;

export const SETTINGS_MESSAGES = {
  min: (label: string) => `${label} must be at least $0.50`,
  max: (label: string) => `${label} must be at most $10,000.00`,
  notANumber: (label: string) => `${label} must be a number`,
  thresholdRequired: 'Enter the balance that starts a recharge.',
  amountRequired: 'Enter how much to add.',
  noCard: 'Save a card to turn on auto-recharge.',
} as const;

/** An optional dollar amount: empty (null) or $0.50 … $10,000. */
const dollars = (label: string) =>
  z
    .number({ error: SETTINGS_MESSAGES.notANumber(label) })
    .min(SETTINGS_MIN_DOLLARS, SETTINGS_MESSAGES.min(label))
    .max(SETTINGS_MAX_DOLLARS, SETTINGS_MESSAGES.max(label))
    .nullable();

export const spendControlsSchema = z
  .object({
    monthlyLimit: dollars(SETTINGS_LABELS.monthlyLimit),
    lowBalanceThreshold: dollars(SETTINGS_LABELS.lowBalanceThreshold),
    autoRecharge: z.object({
      enabled: z.boolean(),
      threshold: dollars(SETTINGS_LABELS.threshold),
      amount: dollars(SETTINGS_LABELS.amount),
    }),
    /** Not sent: whether a card is saved (auto-recharge needs one). */
    hasCard: z.boolean(),
  })
  .superRefine((values, ctx) => {
    const auto = values.autoRecharge;
    if (!auto.enabled) return;
    if (auto.threshold === null) {
      ctx.addIssue({ code: 'custom', path: ['autoRecharge', 'threshold'], message: SETTINGS_MESSAGES.thresholdRequired });
    }
    if (auto.amount === null) {
      ctx.addIssue({ code: 'custom', path: ['autoRecharge', 'amount'], message: SETTINGS_MESSAGES.amountRequired });
    }
    if (!values.hasCard) {
      ctx.addIssue({ code: 'custom', path: ['autoRecharge', 'enabled'], message: SETTINGS_MESSAGES.noCard });
    }
  });

export type SpendControlsValues = z.infer<typeof spendControlsSchema>;

/** Form values from the saved settings (and whether a card is saved). */
export function toFormValues(settings: BillingSettings | undefined, hasCard: boolean): SpendControlsValues {
  return {
    monthlyLimit: settings?.monthlyLimit ?? null,
    lowBalanceThreshold: settings?.lowBalanceThreshold ?? null,
    autoRecharge: {
      enabled: settings?.autoRecharge.enabled ?? false,
      threshold: settings?.autoRecharge.threshold ?? null,
      amount: settings?.autoRecharge.amount ?? null,
    },
    hasCard,
  };
}

/** The PUT body (amounts rounded to cents). */
export function toBillingSettings(values: SpendControlsValues): BillingSettings {
  const cents = (v: number | null) => (v === null ? null : Math.round(v * 100) / 100);
  return {
    monthlyLimit: cents(values.monthlyLimit),
    lowBalanceThreshold: cents(values.lowBalanceThreshold),
    autoRecharge: {
      enabled: values.autoRecharge.enabled,
      threshold: cents(values.autoRecharge.threshold),
      amount: cents(values.autoRecharge.amount),
    },
  };
}
