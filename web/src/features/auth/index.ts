export { AuthProvider } from './AuthProvider';
export { AuthContext, useAuth, type AuthContextValue, type RegisterParams } from './auth-context';
export { EmailVerificationBanner } from './components/EmailVerificationBanner';
export { ProtectedRoute } from './components/ProtectedRoute';
export { getErrorCode, getErrorMessage } from './lib/auth-errors';
export type { CurrentUser, UserProfile } from './lib/current-user';
export { MESSAGES } from './lib/messages';
export { returnToState } from './lib/return-to';
export {
  PUBLIC_AGENT_INTEREST_PATH,
  REGISTER_INTEREST_FALLBACK,
  registerPublicAgentInterest,
} from './api/public-agent-interest';
