/** Leaves the app for an external page (the hosted checkout). A module of its own so tests can mock it. */
export function redirectTo(url: string): void {
  window.location.assign(url);
}
