import { describe, expect, it } from 'vitest';
import { nextPathOf, returnToOf, returnToState } from './return-to';

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

describe('next after sign-in (/auth?next=…)', () => {
  it('honours same-origin relative paths only', () => {
    expect(nextPathOf('?next=/dashboard/shared')).toBe('/dashboard/shared');
    expect(nextPathOf('?next=%2Fdashboard%2Fshared')).toBe('/dashboard/shared');
    expect(nextPathOf('?interest=marketplace&next=/dashboard/shared?agent=a1')).toBe('/dashboard/shared?agent=a1');
    expect(nextPathOf('?next=/dashboard/../dashboard/wallet')).toBe('/dashboard/wallet');
    for (const bad of [
      '',
      '?next=',
      '?next=dashboard',
      '?next=//evil.example/x',
      '?next=/\\evil.example',
      '?next=%2F%2Fevil.example',
      '?next=https://evil.example/dashboard',
      '?next=javascript:alert(1)',
      '?next=/%0d%0a//evil.example',
      '?next=/dash%09board',
      '?next=/auth',
      '?next=/auth?next=/auth',
    ]) {
      expect(nextPathOf(bad), bad).toBeNull();
    }
  });
});
