import { useQueryClient } from '@tanstack/react-query';
import type { User as FirebaseUser } from 'firebase/auth';
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { toast } from '@/components/toast';
import { loadFirebase } from '@/lib/firebase';
import { setQueryCacheUser } from '@/lib/query-client';
import { onboardUser } from './api/onboarding';
import { AuthContext, type AuthContextValue, type RegisterParams } from './auth-context';
import { authErrorToast } from './lib/auth-errors';
import { mergeCurrentUser, type CurrentUser } from './lib/current-user';

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * The auth state machine of spec §4. On every auth state change: loading is set and the
 * profile-load error cleared; with an identity, profileLoading is set and onboarding runs
 * (success → merged user; failure → error kept, user null); then both flags are cleared.
 * Without an identity the user is null and loading ends.
 */
export function AuthProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<CurrentUser | null>(null);
  const [loading, setLoading] = useState(true);
  const [profileLoading, setProfileLoading] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  // Only the latest onboarding run may write state (auth changes and refreshUser can overlap).
  const runRef = useRef(0);
  const queryClient = useQueryClient();

  const loadProfile = useCallback(async (identity: FirebaseUser, run: number) => {
    try {
      const profile = await onboardUser(identity, identity.displayName);
      if (run !== runRef.current) return;
      setUser(mergeCurrentUser(identity, profile));
    } catch (err) {
      if (run !== runRef.current) return;
      console.error('Error loading user profile:', err);
      setError(toError(err));
      setUser(null);
    } finally {
      if (run === runRef.current) {
        setProfileLoading(false);
        setLoading(false);
      }
    }
  }, []);

  useEffect(() => {
    let active = true;
    let unsubscribe: (() => void) | undefined;

    loadFirebase()
      .then((fb) => {
        if (!active) return;
        unsubscribe = fb.onAuthStateChanged(fb.auth, (identity) => {
          // Another user (or none): drop the previous user's cached data before anything renders.
          setQueryCacheUser(queryClient, identity?.uid ?? null);
          const run = ++runRef.current;
          setLoading(true);
          setError(null);
          if (identity) {
            setProfileLoading(true);
            void loadProfile(identity, run);
          } else {
            setUser(null);
            setProfileLoading(false);
            setLoading(false);
          }
        });
      })
      .catch((err: unknown) => {
        if (!active) return;
        console.error('Error initialising authentication:', err);
        setError(toError(err));
        setUser(null);
        setLoading(false);
      });

    return () => {
      active = false;
      unsubscribe?.();
    };
  }, [loadProfile, queryClient]);

  const refreshUser = useCallback(async () => {
    const fb = await loadFirebase();
    const identity = fb.auth.currentUser;
    const run = ++runRef.current;
    setError(null);
    if (!identity) {
      setUser(null);
      setProfileLoading(false);
      setLoading(false);
      return;
    }
    setProfileLoading(true);
    await loadProfile(identity, run);
  }, [loadProfile]);

  const login = useCallback(async (email: string, password: string) => {
    try {
      const fb = await loadFirebase();
      const credential = await fb.signInWithEmailAndPassword(fb.auth, email, password);
      toast({ title: 'Login successful', description: `Welcome back, ${credential.user.email ?? email}!` });
    } catch (err) {
      console.error('Login error:', err);
      toast(authErrorToast('login', err));
      throw err;
    }
  }, []);

  const register = useCallback(
    async ({ email, password, username }: RegisterParams) => {
      try {
        const fb = await loadFirebase();
        const credential = await fb.createUserWithEmailAndPassword(fb.auth, email, password);
        await fb.updateProfile(credential.user, { displayName: username });
        // Run onboarding again so the server learns the username (the first run saw no displayName).
        await refreshUser();
        toast({ title: 'Registration successful', description: `Welcome, ${credential.user.email ?? email}!` });
      } catch (err) {
        console.error('Registration error:', err);
        toast(authErrorToast('register', err));
        throw err;
      }
    },
    [refreshUser],
  );

  const googleSignIn = useCallback(async () => {
    try {
      const fb = await loadFirebase();
      const credential = await fb.signInWithPopup(fb.auth, new fb.GoogleAuthProvider());
      toast({ title: 'Google Sign-In successful', description: `Welcome, ${credential.user.email ?? credential.user.displayName ?? ''}!` });
    } catch (err) {
      console.error('Google Sign-In error:', err);
      toast(authErrorToast('google', err));
      throw err;
    }
  }, []);

  const logout = useCallback(async () => {
    try {
      const fb = await loadFirebase();
      await fb.signOut(fb.auth);
      setQueryCacheUser(queryClient, null);
      toast({ title: 'Logged out', description: 'You have been successfully logged out.' });
    } catch (err) {
      console.error('Logout error:', err);
      toast(authErrorToast('logout', err));
      throw err;
    }
  }, [queryClient]);

  const value = useMemo<AuthContextValue>(
    () => ({ user, loading, profileLoading, error, login, register, googleSignIn, logout, refreshUser }),
    [user, loading, profileLoading, error, login, register, googleSignIn, logout, refreshUser],
  );

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
