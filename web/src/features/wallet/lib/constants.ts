/** Wallet business constants (spec §9 "Wallet"). */
export const WALLET_CURRENCY = 'usd';
/** Transactions per page (`limit`). */
export const TRANSACTIONS_PAGE_SIZE = 20;
/** The next page loads when the table is scrolled within this many pixels of its bottom. */
export const SCROLL_THRESHOLD_PX = 50;
/** Maximum height of the scrollable transaction table. */
export const TABLE_MAX_HEIGHT_PX = 500;
/** Client cache window of the balance. */
export const BALANCE_STALE_TIME_MS = 30_000;
/** Client cache window of the transactions (the first page on entry). */
export const TRANSACTIONS_STALE_TIME_MS = 60_000;
/** After a successful payment: refresh balance + first page this many times ... */
export const SUCCESS_POLL_ROUNDS = 5;
/** ... this far apart, then once more, then the success toast. */
export const SUCCESS_POLL_INTERVAL_MS = 2000;
/** How long the 'Payment Successful!' toast stays (the spec's payment-success constant). */
export const PAYMENT_SUCCESS_TOAST_MS = 5000;
/** Minimum top-up in dollars. */
export const MIN_TOP_UP_DOLLARS = 0.5;
/** Stripe's literal placeholder, left in the success URL when no real session id was substituted. */
export const CHECKOUT_SESSION_PLACEHOLDER = '{CHECKOUT_SESSION_ID}';
/** The card payment provider's name (ARCHITECTURE "Names"). */
export const PAYMENT_PROVIDER_NAME = 'Stripe';
/** After saving a card: refresh the billing data up to this many times ... */
export const SETUP_POLL_ROUNDS = 5;
/** ... this far apart, until the saved card shows. */
export const SETUP_POLL_INTERVAL_MS = 2000;
