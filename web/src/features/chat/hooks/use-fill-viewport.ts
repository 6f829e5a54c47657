import { useLayoutEffect, type RefObject } from 'react';

function scrollParent(el: HTMLElement): HTMLElement | null {
  for (let p = el.parentElement; p && p !== document.body && p !== document.documentElement; p = p.parentElement) {
    const { overflowY } = getComputedStyle(p);
    if (overflowY === 'auto' || overflowY === 'scroll') return p;
  }
  return null;
}

/**
 * On phones the chat fills the screen below what precedes it: sets `--chat-offset` on the element (its top when
 * its scroll container is at the top, plus what is below that container, e.g. a drawer's footer) so the CSS
 * `height: calc(100dvh - var(--chat-offset))` puts the message box at the bottom of the viewport.
 */
export function useFillViewport(ref: RefObject<HTMLElement | null>, enabled: boolean) {
  useLayoutEffect(() => {
    const el = ref.current;
    if (!enabled || !el) return;
    const update = () => {
      const rect = el.getBoundingClientRect();
      // Not laid out (a hidden tab): measured again when it is shown.
      if (rect.width === 0 && rect.height === 0) return;
      const scroller = scrollParent(el);
      let offset: number;
      if (scroller) {
        const box = scroller.getBoundingClientRect();
        const padding = parseFloat(getComputedStyle(scroller).paddingBottom) || 0;
        offset = rect.top + scroller.scrollTop + (window.innerHeight - box.bottom) + padding;
      } else {
        offset = rect.top + window.scrollY + 8;
      }
      const value = `${Math.max(0, Math.round(offset))}px`;
      if (el.style.getPropertyValue('--chat-offset') !== value) el.style.setProperty('--chat-offset', value);
    };
    update();
    window.addEventListener('resize', update);
    const observer = typeof ResizeObserver === 'function' ? new ResizeObserver(update) : null;
    // What precedes the chat may change height (a notice, the page's header once loaded).
    if (el.parentElement) observer?.observe(el.parentElement);
    const scroller = scrollParent(el);
    if (scroller?.firstElementChild) observer?.observe(scroller.firstElementChild);
    observer?.observe(document.body);
    return () => {
      window.removeEventListener('resize', update);
      observer?.disconnect();
      el.style.removeProperty('--chat-offset');
    };
  }, [ref, enabled]);
}
