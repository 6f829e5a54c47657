import { vi } from 'vitest';

/** A minimal stand-in for the Firebase identity user. */
export function fakeIdentity(overrides: Partial<{ uid: string; email: string | null; displayName: string | null }> = {}) {
  return {
    uid: 'uid-1',
    email: 'ada@example.com',
    displayName: null as string | null,
    getIdToken: vi.fn(async (_force?: boolean) => 'token-123'),
    ...overrides,
  };
}

export type FakeIdentity = ReturnType<typeof fakeIdentity>;

/** A fake of the lazily loaded firebase-sdk module (see src/lib/firebase.ts). */
export function createFakeSdk() {
  let listener: ((user: FakeIdentity | null) => void) | undefined;
  const auth = { currentUser: null as FakeIdentity | null };
  const sdk = {
    auth,
    onAuthStateChanged: vi.fn((_auth: unknown, next: (user: FakeIdentity | null) => void) => {
      listener = next;
      return () => {
        listener = undefined;
      };
    }),
    signInWithEmailAndPassword: vi.fn(),
    createUserWithEmailAndPassword: vi.fn(),
    updateProfile: vi.fn(),
    signInWithPopup: vi.fn(),
    signOut: vi.fn(),
    GoogleAuthProvider: class {},
  };
  /** Simulates Firebase reporting a new auth state. */
  function emit(user: FakeIdentity | null) {
    auth.currentUser = user;
    if (!listener) throw new Error('no onAuthStateChanged listener');
    listener(user);
  }
  return { sdk, auth, emit };
}
