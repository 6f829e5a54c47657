import { describe, expect, it } from 'vitest';
import { hasPaymentReturnParams, PAYMENT_TOASTS, readPaymentReturn } from './payment-return';

const read = (search: string) => readPaymentReturn(new URLSearchParams(search));

describe('readPaymentReturn', () => {
  it('needs success=true and a real session id', () => {
    expect(read('?success=true&session_id=cs_test_123')).toBe('success');
    expect(read('?success=true&session_id={CHECKOUT_SESSION_ID}')).toBeNull();
    expect(read('?success=true&session_id=%7BCHECKOUT_SESSION_ID%7D')).toBeNull();
    expect(read('?success=true')).toBeNull();
    expect(read('?success=1&session_id=cs_1')).toBeNull();
  });

  it('recognises canceled=true', () => {
    expect(read('?canceled=true')).toBe('canceled');
    expect(read('?canceled=false')).toBeNull();
    expect(read('')).toBeNull();
  });

  it('knows when the address needs cleaning', () => {
    expect(hasPaymentReturnParams(new URLSearchParams('?success=true&session_id={CHECKOUT_SESSION_ID}'))).toBe(true);
    expect(hasPaymentReturnParams(new URLSearchParams('?canceled=true'))).toBe(true);
    expect(hasPaymentReturnParams(new URLSearchParams('?foo=1'))).toBe(false);
  });

  it('has the spec toast texts', () => {
    expect(PAYMENT_TOASTS.success).toEqual({ title: 'Payment Successful!', description: 'Your funds have been added to your wallet.' });
    expect(PAYMENT_TOASTS.canceled).toEqual({
      title: 'Payment Canceled',
      description: 'Your payment was canceled. No funds were added to your wallet.',
    });
  });
});
