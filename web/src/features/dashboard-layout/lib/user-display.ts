/**
 * How the account menu shows a user (spec §2 "Dashboard layout"). Pure functions.
 *
 * Initials: from `name`, else `displayName` — the first letters of the first two words,
 * upper-cased ("ada lovelace byron" → "AL", "Ada" → "A"); else the first letter of the
 * e-mail, upper-cased; else 'U'.
 * Label: `username`, else `displayName`, else `email`; a missing user is 'Guest User'.
 */
export interface DisplayableUser {
  name?: string | null;
  displayName?: string | null;
  username?: string | null;
  email?: string | null;
}

export const GUEST_LABEL = 'Guest User';
export const FALLBACK_INITIALS = 'U';

function clean(value: string | null | undefined): string {
  return typeof value === 'string' ? value.trim() : '';
}

function firstLetter(word: string): string {
  // Use the first code point so that letters outside the BMP are not split.
  return Array.from(word)[0] ?? '';
}

export function getInitials(user: DisplayableUser | null | undefined): string {
  if (!user) return FALLBACK_INITIALS;
  const name = clean(user.name) || clean(user.displayName);
  if (name) {
    return name
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, 2)
      .map(firstLetter)
      .join('')
      .toUpperCase();
  }
  const email = clean(user.email);
  if (email) return firstLetter(email).toUpperCase();
  return FALLBACK_INITIALS;
}

export function getDisplayLabel(user: DisplayableUser | null | undefined): string {
  if (!user) return GUEST_LABEL;
  return clean(user.username) || clean(user.displayName) || clean(user.email) || 'User';
}
