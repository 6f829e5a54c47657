import { useEffect, useRef } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { useLatest } from '@/lib/use-latest';

interface StripeReturn {
  enabled: boolean;
  /** Whether the address carries this return's parameters. */
  matches: (params: URLSearchParams) => boolean;
  /** The query string to keep once the return is handled (without its parameters). */
  keep: (params: URLSearchParams) => string;
  /** Handles the return; isActive() turns false once the page is left (stop polling then). */
  onReturn: (params: URLSearchParams, isActive: () => boolean) => void;
}

/**
 * The return from a Stripe page (checkout, card saving): handled once per address (StrictMode
 * runs effects twice), the address replaced at once with one that no longer carries it, so a
 * reload or Back does not handle it again.
 */
export function useStripeReturn({ enabled, matches, keep, onReturn }: StripeReturn) {
  const location = useLocation();
  const navigate = useNavigate();
  const handled = useRef<string | null>(null);
  const active = useRef(true);
  const matchesRef = useLatest(matches);
  const keepRef = useLatest(keep);
  const onReturnRef = useLatest(onReturn);

  useEffect(() => {
    active.current = true;
    return () => {
      active.current = false;
    };
  }, []);

  useEffect(() => {
    if (!enabled) return;
    const params = new URLSearchParams(location.search);
    if (!matchesRef.current(params)) return;
    const key = `${location.key}${location.search}`;
    if (handled.current === key) return;
    handled.current = key;

    const search = keepRef.current(new URLSearchParams(params));
    navigate({ pathname: location.pathname, search: search ? `?${search}` : '', hash: location.hash }, { replace: true });
    onReturnRef.current(params, () => active.current);
  }, [enabled, location.key, location.search, location.pathname, location.hash, navigate, matchesRef, keepRef, onReturnRef]);
}
