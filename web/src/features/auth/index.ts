export { AuthProvider } from './AuthProvider';
export { useAuth, type AuthContextValue, type RegisterParams } from './auth-context';
export type { CurrentUser, UserProfile } from './lib/current-user';
export {
  PUBLIC_AGENT_INTEREST_PATH,
  REGISTER_INTEREST_FALLBACK,
  registerPublicAgentInterest,
} from './api/public-agent-interest';
