/** Validation messages of spec §5; the messages are the contract. Kept apart from the zod schemas so that
 * importing them (through the feature's index) does not pull zod into a chunk. */
export const MESSAGES = {
  email: 'Please enter a valid email address',
  password: 'Password must be at least 6 characters',
  username: 'Username must be at least 3 characters',
  passwordsMismatch: 'Passwords do not match',
} as const;
