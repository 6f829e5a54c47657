import { describe, expect, it } from 'vitest';
import { returnToOf, returnToState } from './return-to';

describe('returnTo after sign-in', () => {
  it('honours marketplace paths of this app only', () => {
    expect(returnToOf(returnToState('/marketplace/tax-helper'))).toBe('/marketplace/tax-helper');
    expect(returnToOf(returnToState('/marketplace/tax-helper/chat'))).toBe('/marketplace/tax-helper/chat');
    expect(returnToOf(returnToState('/marketplace'))).toBe('/marketplace');
    expect(returnToOf(returnToState('/marketplace?q=tax'))).toBe('/marketplace?q=tax');
    for (const bad of ['//evil.example/marketplace', 'https://evil.example', '/dashboard', '/marketplacex', '/marketplace//evil']) {
      expect(returnToOf(returnToState(bad)), bad).toBeNull();
    }
    expect(returnToOf(null)).toBeNull();
    expect(returnToOf({ from: '/marketplace/x' })).toBeNull();
    expect(returnToOf({ returnTo: 42 })).toBeNull();
  });
});
