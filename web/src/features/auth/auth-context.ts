import { createContext, useContext } from 'react';
import type { CurrentUser } from './lib/current-user';

export interface RegisterParams {
  email: string;
  password: string;
  username: string;
}

export interface AuthContextValue {
  /** The merged current user, or null (signed out, or the profile failed to load). */
  user: CurrentUser | null;
  /** True until the first auth state is known, and again on every auth state change. */
  loading: boolean;
  /** True while the onboarding call (the stored profile) is running. */
  profileLoading: boolean;
  /** The profile-load (onboarding) error, if the last attempt failed. */
  error: Error | null;
  login: (email: string, password: string) => Promise<void>;
  register: (params: RegisterParams) => Promise<void>;
  googleSignIn: () => Promise<void>;
  logout: () => Promise<void>;
  /** Re-runs onboarding for the current identity and stores the merged user. */
  refreshUser: () => Promise<void>;
}

export const AuthContext = createContext<AuthContextValue | null>(null);

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth must be used inside <AuthProvider>.');
  return value;
}
