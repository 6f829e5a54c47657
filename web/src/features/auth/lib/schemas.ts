import { z } from 'zod';
import { MESSAGES } from './messages';

export { MESSAGES };

/** Validation rules of spec §5. */
const email = z.string().trim().pipe(z.email(MESSAGES.email));
const password = z.string().min(6, MESSAGES.password);

export const loginSchema = z.object({
  email,
  password,
});

const registerFields = z.object({
  username: z.string().trim().min(3, MESSAGES.username),
  email,
  password,
  confirmPassword: z.string(),
});

export const registerSchema = registerFields.refine((values) => values.password === values.confirmPassword, {
  message: MESSAGES.passwordsMismatch,
  path: ['confirmPassword'],
  // Check the match as soon as both password fields are present, even if another field is invalid.
  when: (payload) =>
    registerFields.pick({ password: true, confirmPassword: true }).safeParse(payload.value).success,
});

export type LoginInput = z.input<typeof loginSchema>;
export type LoginValues = z.output<typeof loginSchema>;
export type RegisterInput = z.input<typeof registerSchema>;
export type RegisterValues = z.output<typeof registerSchema>;
