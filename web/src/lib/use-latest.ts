import { useLayoutEffect, useRef, type RefObject } from 'react';

/**
 * A ref that always holds the latest committed `value`, for callbacks and effects that must not
 * re-subscribe when it changes. Updated in a layout effect (not during render, which React forbids:
 * react-hooks/refs), so it is current before any effect or event handler of the same commit runs.
 */
export function useLatest<T>(value: T): RefObject<T> {
  const ref = useRef(value);
  useLayoutEffect(() => {
    ref.current = value;
  });
  return ref;
}
