import { CreditCardOutlined } from '@ant-design/icons';
import { Button, Input } from 'antd';
import { useEffect, useState, type FormEvent } from 'react';
import { toast } from '@/components/toast';
import { useAuth } from '@/features/auth';
import { CHECKOUT_ERRORS, checkoutErrorMessage, startCheckout, type CheckoutDeps } from '../api/checkout';
import { AMOUNT_MESSAGES, checkAmount, isAmountSubmittable } from '../lib/amount';
import { MIN_TOP_UP_DOLLARS, PAYMENT_PROVIDER_NAME } from '../lib/constants';

export function AddFundsCard({ checkoutDeps }: { checkoutDeps?: CheckoutDeps }) {
  const { user } = useAuth();
  const [amount, setAmount] = useState('');
  const [processing, setProcessing] = useState(false);

  // Coming back with the browser's Back button restores the page from the bfcache: unlock the form.
  useEffect(() => {
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted) setProcessing(false);
    };
    window.addEventListener('pageshow', onPageShow);
    return () => window.removeEventListener('pageshow', onPageShow);
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (processing) return;
    const check = checkAmount(amount, Boolean(user));
    if (!check.ok) {
      toast({ ...AMOUNT_MESSAGES[check.problem], variant: 'destructive' });
      return;
    }
    setProcessing(true);
    try {
      await startCheckout(check.cents, user ? { uid: user.uid, email: user.email } : null, checkoutDeps);
      // The browser is leaving for the checkout page: stay in 'Processing...'.
    } catch (error) {
      console.error('Checkout failed:', error);
      toast({ title: CHECKOUT_ERRORS.title, description: checkoutErrorMessage(error), variant: 'destructive', error });
      setProcessing(false);
    }
  };

  const disabled = processing || !isAmountSubmittable(amount);
  return (
    <section className="wallet-card" aria-labelledby="wallet-add-funds-title">
      <header className="wallet-card__header">
        <h2 id="wallet-add-funds-title" className="wallet-card__title">
          Add Funds
        </h2>
      </header>
      <form className="wallet-add-funds" onSubmit={(event) => void submit(event)} noValidate>
        <label htmlFor="wallet-amount" className="wallet-add-funds__label">
          Amount
        </label>
        <div className="wallet-add-funds__row">
          <Input
            id="wallet-amount"
            name="amount"
            type="number"
            inputMode="decimal"
            min={MIN_TOP_UP_DOLLARS}
            step="0.01"
            prefix={<span aria-hidden="true">$</span>}
            placeholder="Enter amount"
            aria-describedby="wallet-amount-hint"
            value={amount}
            onChange={(event) => setAmount(event.target.value)}
            disabled={processing}
            className="wallet-add-funds__input"
          />
          <Button
            type="primary"
            htmlType="submit"
            disabled={disabled}
            icon={<CreditCardOutlined aria-hidden="true" />}
          >
            {processing ? 'Processing...' : `Add Funds with ${PAYMENT_PROVIDER_NAME}`}
          </Button>
        </div>
        <p id="wallet-amount-hint" className="wallet-card__hint">
          Amount in US dollars; the minimum is $0.50. You will be taken to {PAYMENT_PROVIDER_NAME} to pay.
        </p>
      </form>
    </section>
  );
}
