/**
 * Maps Firebase Auth errors to the toasts of spec §8 ("Auth toasts"). Pure functions.
 *
 * Note: the Auth emulator (and current Firebase projects with e-mail enumeration
 * protection) answer a wrong password or an unknown user with `auth/invalid-credential`.
 * The spec's table has no row for it, so it falls under "other code → the provider's
 * message" and still produces a 'Login failed' toast.
 */
export type AuthAction = 'login' | 'register' | 'google' | 'logout';

export const AUTH_ERROR_TITLES: Record<AuthAction, string> = {
  login: 'Login failed',
  register: 'Registration failed',
  google: 'Google Sign-In failed',
  logout: 'Logout failed',
};

export const UNEXPECTED_LOGIN = 'An unexpected error occurred during login.';
export const UNEXPECTED_REGISTRATION = 'An unexpected error occurred during registration.';
export const UNEXPECTED_GOOGLE = 'An unexpected error occurred during Google Sign-In.';
export const UNEXPECTED_LOGOUT = 'An unexpected error occurred during logout.';

export function getErrorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const { code } = error as { code: unknown };
    if (typeof code === 'string' && code !== '') return code;
  }
  return undefined;
}

export function getErrorMessage(error: unknown): string | undefined {
  if (error instanceof Error && error.message) return error.message;
  if (typeof error === 'object' && error !== null && 'message' in error) {
    const { message } = error as { message: unknown };
    if (typeof message === 'string' && message !== '') return message;
  }
  if (typeof error === 'string' && error !== '') return error;
  return undefined;
}

export function loginErrorMessage(error: unknown): string {
  const code = getErrorCode(error);
  switch (code) {
    case 'auth/user-not-found':
      return 'No user found with this email.';
    case 'auth/wrong-password':
      return 'Incorrect password.';
    case 'auth/invalid-email':
      return 'Invalid email address format.';
    case undefined:
      return UNEXPECTED_LOGIN;
    default:
      return getErrorMessage(error) ?? UNEXPECTED_LOGIN;
  }
}

export function registerErrorMessage(error: unknown): string {
  switch (getErrorCode(error)) {
    case 'auth/email-already-in-use':
      return 'This email address is already in use.';
    case 'auth/invalid-email':
      return 'Invalid email address format.';
    case 'auth/operation-not-allowed':
      return 'Email/password registration is not enabled.';
    case 'auth/weak-password':
      return 'Password is too weak. Please choose a stronger password.';
    default:
      return UNEXPECTED_REGISTRATION;
  }
}

export function googleErrorMessage(error: unknown): string {
  switch (getErrorCode(error)) {
    case 'auth/popup-closed-by-user':
      return 'Google Sign-In popup closed.';
    case 'auth/cancelled-popup-request':
      return 'Google Sign-In popup request was cancelled.';
    default:
      return UNEXPECTED_GOOGLE;
  }
}

export function logoutErrorMessage(error: unknown): string {
  return getErrorMessage(error) ?? UNEXPECTED_LOGOUT;
}

const MESSAGE_FOR: Record<AuthAction, (error: unknown) => string> = {
  login: loginErrorMessage,
  register: registerErrorMessage,
  google: googleErrorMessage,
  logout: logoutErrorMessage,
};

export interface AuthErrorToast {
  title: string;
  description: string;
  variant: 'destructive';
}

export function authErrorToast(action: AuthAction, error: unknown): AuthErrorToast {
  return { title: AUTH_ERROR_TITLES[action], description: MESSAGE_FOR[action](error), variant: 'destructive' };
}
