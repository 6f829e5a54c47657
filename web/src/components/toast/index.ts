export { Toaster } from './Toaster';
export { toast, useToast, type ToastHandle } from './use-toast';
export { TOAST_DEFAULT_DURATION, TOAST_LIMIT, TOAST_REMOVE_DELAY, type ToastInput } from './toast-store';
