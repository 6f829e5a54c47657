import { useSyncExternalStore } from 'react';
import {
  addToast,
  dismissToast,
  getToasts,
  subscribeToasts,
  updateToast,
  type ToastInput,
} from './toast-store';

export interface ToastHandle {
  id: string;
  dismiss: () => void;
  update: (patch: ToastInput) => void;
}

/** Shows a toast: `toast({ title, description, variant: 'destructive' })`. */
export function toast(input: ToastInput): ToastHandle {
  const id = addToast(input);
  return {
    id,
    dismiss: () => dismissToast(id),
    update: (patch) => updateToast(id, patch),
  };
}

export function useToast() {
  const toasts = useSyncExternalStore(subscribeToasts, getToasts, getToasts);
  return { toasts, toast, dismiss: dismissToast };
}
