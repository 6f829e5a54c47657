import { describe, expect, it } from 'vitest';
import { getDisplayLabel, getInitials } from './user-display';

describe('getInitials', () => {
  it('uses the first letters of the first two words of name, upper-cased', () => {
    expect(getInitials({ name: 'ada lovelace byron', displayName: 'Other Person' })).toBe('AL');
  });

  it('uses a single letter for a one-word name', () => {
    expect(getInitials({ name: 'ada' })).toBe('A');
  });

  it('falls back to displayName when name is missing or blank', () => {
    expect(getInitials({ name: '  ', displayName: 'Grace  Hopper' })).toBe('GH');
    expect(getInitials({ displayName: 'grace' })).toBe('G');
  });

  it('falls back to the first letter of the e-mail', () => {
    expect(getInitials({ email: 'zed@example.com' })).toBe('Z');
  });

  it("falls back to 'U'", () => {
    expect(getInitials({})).toBe('U');
    expect(getInitials(null)).toBe('U');
  });
});

describe('getDisplayLabel', () => {
  it('prefers username, then displayName, then email', () => {
    expect(getDisplayLabel({ username: 'ada', displayName: 'Ada L', email: 'a@x.io' })).toBe('ada');
    expect(getDisplayLabel({ displayName: 'Ada L', email: 'a@x.io' })).toBe('Ada L');
    expect(getDisplayLabel({ email: 'a@x.io' })).toBe('a@x.io');
  });

  it("shows 'Guest User' without a user", () => {
    expect(getDisplayLabel(null)).toBe('Guest User');
  });
});
