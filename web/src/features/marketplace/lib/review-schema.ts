import { z } from 'zod';

export const MAX_REVIEW_LENGTH = 2000;
export const MAX_REPORT_LENGTH = 1000;

/** The catalog's messages (docs/catalog.md, reviews). */
export const REVIEW_MESSAGES = {
  rating: 'Choose a rating from 1 to 5 stars.',
  text: 'A review can be at most 2,000 characters.',
  reason: 'Tell us what is wrong, in at most 1,000 characters.',
} as const;

export const reviewSchema = z.object({
  // null: no star chosen yet.
  rating: z
    .number({ error: REVIEW_MESSAGES.rating })
    .nullable()
    .refine((v) => v !== null && Number.isInteger(v) && v >= 1 && v <= 5, REVIEW_MESSAGES.rating)
    .transform((v) => v ?? 0),
  text: z.string().max(MAX_REVIEW_LENGTH, REVIEW_MESSAGES.text),
});

export type ReviewFormInput = z.input<typeof reviewSchema>;
export type ReviewFormValues = z.output<typeof reviewSchema>;

export const reportSchema = z.object({
  reason: z.string().trim().min(1, REVIEW_MESSAGES.reason).max(MAX_REPORT_LENGTH, REVIEW_MESSAGES.reason),
});
export type ReportValues = z.output<typeof reportSchema>;
