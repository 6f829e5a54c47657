import { z } from 'zod';
import { AMOUNT_MESSAGES } from './texts';

/** Whole cents (no floating-point remainder: 10.1 + 0.2 stays 10.3). */
const cents = (dollars: number) => Math.round(dollars * 100);

/** The amount of a form: dollars (2 decimals); null while the field is empty. */
export interface AmountValues {
  amount: number | null;
}

/** Withdraw: at least the minimum ($10.00), at most what is available. */
export function withdrawSchema(available: number, minimum: number) {
  return z.object({
    amount: z
      .number({ error: AMOUNT_MESSAGES.required })
      .nullable()
      .superRefine((value, ctx) => {
        if (value === null) {
          ctx.addIssue({ code: 'custom', message: AMOUNT_MESSAGES.required });
        } else if (cents(value) < cents(minimum)) {
          ctx.addIssue({ code: 'custom', message: AMOUNT_MESSAGES.minimumWithdrawal(minimum) });
        } else if (cents(value) > cents(available)) {
          ctx.addIssue({ code: 'custom', message: AMOUNT_MESSAGES.moreThanAvailableWithdraw(available) });
        }
      }),
  });
}

/** Move to wallet: at least $0.01, at most what is available. */
export function transferSchema(available: number) {
  return z.object({
    amount: z
      .number({ error: AMOUNT_MESSAGES.required })
      .nullable()
      .superRefine((value, ctx) => {
        if (value === null) {
          ctx.addIssue({ code: 'custom', message: AMOUNT_MESSAGES.required });
        } else if (cents(value) < 1) {
          ctx.addIssue({ code: 'custom', message: AMOUNT_MESSAGES.minimumTransfer });
        } else if (cents(value) > Math.floor(available * 100 + 1e-6)) {
          ctx.addIssue({ code: 'custom', message: AMOUNT_MESSAGES.moreThanAvailableTransfer(available) });
        }
      }),
  });
}

/** The dollars sent: rounded to whole cents. */
export function toDollars(value: number): number {
  return cents(value) / 100;
}
