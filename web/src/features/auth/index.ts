export { AuthProvider } from './AuthProvider';
export { useAuth, type AuthContextValue, type RegisterParams } from './auth-context';
export type { CurrentUser, UserProfile } from './lib/current-user';
