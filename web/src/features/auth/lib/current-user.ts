import type { User as FirebaseUser } from 'firebase/auth';

/** The profile the identity service returns under data.user (fields beyond these are kept as-is). */
export interface UserProfile {
  name?: string | null;
  displayName?: string | null;
  username?: string | null;
  email?: string | null;
  interestedInPublicAgents?: boolean;
  [key: string]: unknown;
}

/** The app's current user: the Firebase identity merged with the server profile (spec §3). */
export interface CurrentUser extends UserProfile {
  uid: string;
  email: string | null;
  displayName: string | null;
  /** Firebase's emailVerified (absent when unknown); invitations need a verified address. */
  emailVerified?: boolean;
}

type IdentityFields = Pick<FirebaseUser, 'uid' | 'email' | 'displayName'> & Partial<Pick<FirebaseUser, 'emailVerified'>>;

export function mergeCurrentUser(identity: IdentityFields, profile: UserProfile | null | undefined): CurrentUser {
  const p = profile ?? {};
  return {
    ...p,
    uid: identity.uid,
    email: p.email ?? identity.email ?? null,
    displayName: p.displayName ?? identity.displayName ?? null,
    ...(typeof identity.emailVerified === 'boolean' ? { emailVerified: identity.emailVerified } : {}),
  };
}
