import { CHECKOUT_SESSION_PLACEHOLDER } from './constants';

export type PaymentReturn = 'success' | 'canceled' | null;

/**
 * Reads the payment provider's return parameters: success=true with a real session id
 * (not the literal placeholder) → 'success'; canceled=true → 'canceled'.
 */
export function readPaymentReturn(params: URLSearchParams): PaymentReturn {
  const sessionId = params.get('session_id');
  if (params.get('success') === 'true' && sessionId && sessionId !== CHECKOUT_SESSION_PLACEHOLDER) return 'success';
  if (params.get('canceled') === 'true') return 'canceled';
  return null;
}

/** Whether the address carries return parameters that must be removed (URL replaced with the bare path). */
export function hasPaymentReturnParams(params: URLSearchParams): boolean {
  return params.has('success') || params.has('canceled') || params.has('session_id');
}

export const PAYMENT_TOASTS = {
  success: { title: 'Payment Successful!', description: 'Your funds have been added to your wallet.' },
  canceled: { title: 'Payment Canceled', description: 'Your payment was canceled. No funds were added to your wallet.' },
} as const;

export type SetupReturn = 'success' | 'canceled' | null;

/** Stripe's return from saving a card (Checkout in setup mode): ?setup=success or ?setup=canceled. */
export function readSetupReturn(params: URLSearchParams): SetupReturn {
  const v = params.get('setup');
  return v === 'success' || v === 'canceled' ? v : null;
}

export const SETUP_TOASTS = {
  success: { title: 'Card saved', description: 'Your card is saved for auto-recharge.' },
  pending: { title: 'Card saved', description: 'Stripe saved your card; it will show here in a moment.' },
  canceled: { title: 'Card not saved', description: 'You left before saving a card. Nothing was changed.' },
} as const;
