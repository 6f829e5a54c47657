import { describe, expect, it } from 'vitest';
import {
  authErrorToast,
  googleErrorMessage,
  loginErrorMessage,
  logoutErrorMessage,
  registerErrorMessage,
} from './auth-errors';

/** Shaped like a FirebaseError: an Error with a code. */
function fbError(code: string, message = `Firebase: Error (${code}).`) {
  return Object.assign(new Error(message), { code });
}

describe('loginErrorMessage', () => {
  it.each([
    ['auth/user-not-found', 'No user found with this email.'],
    ['auth/wrong-password', 'Incorrect password.'],
    ['auth/invalid-email', 'Invalid email address format.'],
  ])('%s → %s', (code, message) => {
    expect(loginErrorMessage(fbError(code))).toBe(message);
  });

  it("uses the provider's message for any other code (e.g. the emulator's invalid-credential)", () => {
    expect(loginErrorMessage(fbError('auth/invalid-credential'))).toBe('Firebase: Error (auth/invalid-credential).');
    expect(loginErrorMessage(fbError('auth/too-many-requests', 'Too many attempts'))).toBe('Too many attempts');
  });

  it('falls back to the unexpected-error text without a code', () => {
    expect(loginErrorMessage(new Error('boom'))).toBe('An unexpected error occurred during login.');
    expect(loginErrorMessage(undefined)).toBe('An unexpected error occurred during login.');
  });
});

describe('registerErrorMessage', () => {
  it.each([
    ['auth/email-already-in-use', 'This email address is already in use.'],
    ['auth/invalid-email', 'Invalid email address format.'],
    ['auth/operation-not-allowed', 'Email/password registration is not enabled.'],
    ['auth/weak-password', 'Password is too weak. Please choose a stronger password.'],
    ['auth/network-request-failed', 'An unexpected error occurred during registration.'],
  ])('%s → %s', (code, message) => {
    expect(registerErrorMessage(fbError(code))).toBe(message);
  });

  it('defaults without a code', () => {
    expect(registerErrorMessage(new Error('x'))).toBe('An unexpected error occurred during registration.');
  });
});

describe('googleErrorMessage', () => {
  it.each([
    ['auth/popup-closed-by-user', 'Google Sign-In popup closed.'],
    ['auth/cancelled-popup-request', 'Google Sign-In popup request was cancelled.'],
    ['auth/popup-blocked', 'An unexpected error occurred during Google Sign-In.'],
  ])('%s → %s', (code, message) => {
    expect(googleErrorMessage(fbError(code))).toBe(message);
  });
});

describe('logoutErrorMessage', () => {
  it('uses the error message', () => {
    expect(logoutErrorMessage(new Error('Network down'))).toBe('Network down');
  });
});

describe('authErrorToast', () => {
  it('builds destructive toasts with the spec titles', () => {
    expect(authErrorToast('login', fbError('auth/wrong-password'))).toEqual({
      title: 'Login failed',
      description: 'Incorrect password.',
      variant: 'destructive',
    });
    expect(authErrorToast('login', fbError('auth/invalid-credential')).title).toBe('Login failed');
    expect(authErrorToast('register', fbError('auth/email-already-in-use')).title).toBe('Registration failed');
    expect(authErrorToast('google', fbError('auth/popup-closed-by-user')).title).toBe('Google Sign-In failed');
    expect(authErrorToast('logout', new Error('nope'))).toEqual({
      title: 'Logout failed',
      description: 'nope',
      variant: 'destructive',
    });
  });
});
