import { getErrorCode, getErrorMessage, MESSAGES } from '@/features/auth';
import { ACCOUNT_TEXTS } from './texts';

export type PasswordField = 'currentPassword' | 'newPassword' | 'form';

/** Where and how a failed reauthentication or password update is shown. */
export function passwordError(error: unknown): { field: PasswordField; message: string } {
  switch (getErrorCode(error)) {
    case 'auth/wrong-password':
    case 'auth/invalid-credential':
    case 'auth/invalid-login-credentials':
      return { field: 'currentPassword', message: ACCOUNT_TEXTS.wrongPassword };
    case 'auth/missing-password':
      return { field: 'currentPassword', message: ACCOUNT_TEXTS.currentPasswordRequired };
    case 'auth/weak-password':
    case 'auth/password-does-not-meet-requirements':
      return { field: 'newPassword', message: getErrorMessage(error)?.replace(/^Firebase: /, '') ?? MESSAGES.password };
    case 'auth/too-many-requests':
      return { field: 'form', message: ACCOUNT_TEXTS.tooMany };
    case 'auth/network-request-failed':
      return { field: 'form', message: ACCOUNT_TEXTS.network };
    default:
      return { field: 'form', message: ACCOUNT_TEXTS.passwordFailed };
  }
}
