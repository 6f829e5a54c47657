import { useCallback, useSyncExternalStore } from 'react';

/** Phones (and narrow windows): below antd's `md` breakpoint (768px), as the app's CSS `@media (max-width: 767px)`. */
export const PHONE_QUERY = '(max-width: 767px)';

function mediaList(query: string): MediaQueryList | null {
  return typeof window !== 'undefined' && typeof window.matchMedia === 'function' ? window.matchMedia(query) : null;
}

/** Whether the CSS media query matches now (re-rendering when it changes). False where matchMedia is missing. */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (notify: () => void) => {
      const list = mediaList(query);
      if (!list) return () => undefined;
      if (typeof list.addEventListener === 'function') {
        list.addEventListener('change', notify);
        return () => list.removeEventListener('change', notify);
      }
      list.addListener?.(notify);
      return () => list.removeListener?.(notify);
    },
    [query],
  );
  return useSyncExternalStore(
    subscribe,
    () => mediaList(query)?.matches ?? false,
    () => false,
  );
}

/** True on phones (below 768px). */
export function useIsPhone(): boolean {
  return useMediaQuery(PHONE_QUERY);
}
