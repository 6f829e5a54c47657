/**
 * Lazy access to the Firebase SDK. Everything that needs Firebase calls `loadFirebase()`;
 * the first call downloads and initialises the SDK (and connects the Auth emulator when
 * VITE_FIREBASE_AUTH_EMULATOR_URL is set), later calls reuse the same module.
 */
export type FirebaseSdk = typeof import('./firebase-sdk');

let sdk: Promise<FirebaseSdk> | undefined;

export function loadFirebase(): Promise<FirebaseSdk> {
  sdk ??= import('./firebase-sdk').catch((error: unknown) => {
    sdk = undefined; // allow a retry after a failed chunk download
    throw error;
  });
  return sdk;
}
