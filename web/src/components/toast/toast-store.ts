/**
 * A tiny toast store (spec §4 "Toasts" and §9): toasts are added, updated, dismissed and
 * removed; at most TOAST_LIMIT are kept, newest first; each one closes itself after its
 * duration (default 5000 ms) and a dismissed toast is removed after TOAST_REMOVE_DELAY.
 * A toast given the `error` it reports shows that error's request id (lib/api-error), so every
 * error toast of a failed /api call reads "Reference: <id>" without its caller doing more.
 */
import { errorRequestId } from '@/lib/api-error';

export const TOAST_LIMIT = 3;
export const TOAST_DEFAULT_DURATION = 5000;
export const TOAST_REMOVE_DELAY = 1000;

export type ToastVariant = 'default' | 'destructive';

export interface ToastInput {
  title?: string;
  description?: string;
  variant?: ToastVariant;
  /** Milliseconds before the toast closes itself; Infinity keeps it open. */
  duration?: number;
  /** The failure the toast reports: its request id (a failed /api call's `x-request-id`), if any, is shown. */
  error?: unknown;
  /** The request id to show ("Reference: <id>"); default: that of `error`. */
  requestId?: string;
}

export interface ToastItem extends Required<Pick<ToastInput, 'variant' | 'duration'>> {
  id: string;
  title?: string;
  description?: string;
  /** Shown as "Reference: <id>" under the description. */
  requestId?: string;
  open: boolean;
  createdAt: number;
}

type Listener = (toasts: readonly ToastItem[]) => void;

let toasts: readonly ToastItem[] = [];
let counter = 0;
const listeners = new Set<Listener>();
const closeTimers = new Map<string, ReturnType<typeof setTimeout>>();
const removeTimers = new Map<string, ReturnType<typeof setTimeout>>();

function emit(next: readonly ToastItem[]) {
  toasts = next;
  for (const listener of listeners) listener(toasts);
}

function clearTimer(timers: Map<string, ReturnType<typeof setTimeout>>, id: string) {
  const timer = timers.get(id);
  if (timer !== undefined) {
    clearTimeout(timer);
    timers.delete(id);
  }
}

function scheduleClose(id: string, duration: number) {
  clearTimer(closeTimers, id);
  if (!Number.isFinite(duration)) return;
  closeTimers.set(
    id,
    setTimeout(() => dismissToast(id), duration),
  );
}

function scheduleRemove(id: string) {
  if (removeTimers.has(id)) return;
  removeTimers.set(
    id,
    setTimeout(() => {
      removeTimers.delete(id);
      removeToast(id);
    }, TOAST_REMOVE_DELAY),
  );
}

export function getToasts(): readonly ToastItem[] {
  return toasts;
}

export function subscribeToasts(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function addToast(input: ToastInput): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  const id = `toast-${counter}`;
  const item: ToastItem = {
    id,
    title: input.title,
    description: input.description,
    requestId: requestIdFor(input),
    variant: input.variant ?? 'default',
    duration: input.duration ?? TOAST_DEFAULT_DURATION,
    open: true,
    createdAt: Date.now(),
  };
  const next = [item, ...toasts];
  for (const dropped of next.slice(TOAST_LIMIT)) {
    clearTimer(closeTimers, dropped.id);
    clearTimer(removeTimers, dropped.id);
  }
  emit(next.slice(0, TOAST_LIMIT));
  scheduleClose(id, item.duration);
  return id;
}

export function updateToast(id: string, patch: ToastInput): void {
  emit(toasts.map((t) => (t.id === id ? { ...t, ...stripUndefined(patch) } : t)));
  if (patch.duration !== undefined) scheduleClose(id, patch.duration);
}

/** Closes one toast (or all when no id is given); it is removed after TOAST_REMOVE_DELAY. */
export function dismissToast(id?: string): void {
  const ids = id === undefined ? toasts.map((t) => t.id) : [id];
  for (const each of ids) {
    clearTimer(closeTimers, each);
    scheduleRemove(each);
  }
  emit(toasts.map((t) => (ids.includes(t.id) ? { ...t, open: false } : t)));
}

export function removeToast(id?: string): void {
  if (id === undefined) {
    for (const t of toasts) {
      clearTimer(closeTimers, t.id);
      clearTimer(removeTimers, t.id);
    }
    emit([]);
    return;
  }
  clearTimer(closeTimers, id);
  clearTimer(removeTimers, id);
  emit(toasts.filter((t) => t.id !== id));
}

/** Pauses / resumes auto-close while the pointer or focus is on the toast region. */
export function pauseToasts(): void {
  for (const id of [...closeTimers.keys()]) clearTimer(closeTimers, id);
}

export function resumeToasts(): void {
  for (const t of toasts) {
    if (t.open && !closeTimers.has(t.id)) scheduleClose(t.id, t.duration);
  }
}

function stripUndefined(patch: ToastInput): Partial<ToastItem> {
  const out: Partial<ToastItem> = {};
  if (patch.title !== undefined) out.title = patch.title;
  if (patch.description !== undefined) out.description = patch.description;
  if (patch.variant !== undefined) out.variant = patch.variant;
  if (patch.duration !== undefined) out.duration = patch.duration;
  const requestId = requestIdFor(patch);
  if (requestId !== undefined) out.requestId = requestId;
  return out;
}

function requestIdFor(input: ToastInput): string | undefined {
  return input.requestId?.trim() || errorRequestId(input.error);
}
